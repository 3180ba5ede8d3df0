"""The persistent cache's codec: entries come back as they were judged, damage never does."""

from __future__ import annotations

import hashlib
import pickle

import pytest

from backends import MemoryBackend
from skills_core import SkillCatalog
from skills_core._catalog.cache import decode, encode, framed
from skills_core._catalog.entries import CatalogEntry, frontmatter_of
from skills_core._format.models import EMPTY_MAPPING

SKILLS = {
    "plain": b"---\nname: plain\ndescription: Plain.\n---\nbody\n",
    "rich": (
        b"---\nname: rich\ndescription: Rich.\nlicense: MIT\n"
        b"allowed-tools: Read Bash(git:*)\nmetadata:\n  author: team\n  version: '1.0'\n"
        b"released: 2024-05-01\nnested:\n  list: [1, two, {three: 3}]\n"
        b"hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n"
        b"        - type: command\n          command: ./check.sh\n---\nbody\n"
    ),
    "twin": (
        b"---\nname: twin\ndescription: Twin.\nmetadata:\n  author: team\n  version: '1.0'\n"
        b"---\nbody\n"
    ),
    "misnamed": b"---\nname: other-name\ndescription: Warned.\n---\nbody\n",
    "broken": b"no frontmatter\n",
}


@pytest.fixture
async def entries() -> dict[str, CatalogEntry]:
    backend = MemoryBackend({name: {"SKILL.md": data} for name, data in SKILLS.items()})
    catalog = SkillCatalog(backend)
    await catalog.refresh()
    found = dict(catalog.snapshot.entries)
    assert found["broken"].errors  # a refused entry goes through the codec too
    assert found["misnamed"].warnings
    return found


def saved(entries: dict[str, CatalogEntry]) -> bytes:
    digests = [hashlib.sha256(name.encode()).digest() for name in entries]
    return encode(entries, digests, [()] * len(entries))


def test_entries_round_trip_without_their_bodies(entries: dict[str, CatalogEntry]) -> None:
    decoded, files = decode(saved(entries))
    assert files == {}

    expected = {
        folder: entry._replace(
            raw=b"",
            digest=hashlib.sha256(folder.encode()).digest(),
            frontmatter=frontmatter_of(entry) if entry.loaded else "",  # kept, as written
        )
        for folder, entry in entries.items()
    }
    assert decoded["twin"].frontmatter == SKILLS["twin"].decode()[4:-10]
    assert decoded == expected
    assert list(decoded) == list(entries)
    assert decoded["rich"].metadata == entries["rich"].metadata
    assert decoded["rich"].metadata.hooks == entries["rich"].metadata.hooks  # type: ignore[union-attr]


def test_empty_mappings_come_back_as_the_shared_empty_one(
    entries: dict[str, CatalogEntry],
) -> None:
    plain = decode(saved(entries))[0]["plain"].metadata
    assert plain is not None
    assert plain.metadata is EMPTY_MAPPING
    assert plain.extra is EMPTY_MAPPING


def test_strings_skills_repeat_in_their_metadata_are_made_once(
    entries: dict[str, CatalogEntry],
) -> None:
    decoded = decode(saved(entries))[0]
    rich, twin = decoded["rich"].metadata, decoded["twin"].metadata
    assert rich is not None
    assert twin is not None
    assert dict(rich.metadata) == dict(twin.metadata) == {"author": "team", "version": "1.0"}
    for (key, value), (twin_key, twin_value) in zip(
        rich.metadata.items(), twin.metadata.items(), strict=True
    ):
        assert key is twin_key
        assert value is twin_value


HEADER = len(framed(b""))


def corrupt(data: bytes) -> bytes:
    middle = (HEADER + len(data)) // 2
    return data[:middle] + bytes([data[middle] ^ 0x40]) + data[middle + 1 :]


def recomputed_checksum_truncated(data: bytes) -> bytes:
    payload = data[HEADER:]
    return framed(payload[: len(payload) // 2])


def planted_columns(data: bytes) -> bytes:
    return framed(pickle.dumps(("not", "columns")))


@pytest.mark.parametrize(
    "damage",
    [
        corrupt,
        recomputed_checksum_truncated,
        lambda data: data[: len(data) // 2],
        lambda data: data[:-1],
        lambda data: b"",
        lambda data: b"skillfs-entries-1" + data[HEADER - 4 :],  # another format
        lambda data: b"skillfs-entries-3" + data[HEADER - 4 :],  # the one before file digests
        planted_columns,
    ],
)
def test_damaged_data_is_refused(entries: dict[str, CatalogEntry], damage: object) -> None:
    with pytest.raises(ValueError, match="not a cached catalog"):
        decode(damage(saved(entries)))  # type: ignore[operator]


def test_odd_offsets_and_digests_come_back_exactly(entries: dict[str, CatalogEntry]) -> None:
    offsets = [-1, 2**64, *range(len(entries) - 2)]  # not what a SKILL.md gives, but kept exactly
    odd = {
        name: entry.without_body()._replace(body_start=offset)
        for (name, entry), offset in zip(entries.items(), offsets, strict=True)
    }
    digests = [hashlib.sha256(bytes([number])).digest() for number in range(len(entries))]
    decoded = decode(encode(odd, digests, [()] * len(odd)))[0]
    assert [entry.body_start for entry in decoded.values()] == offsets
    assert [entry.digest for entry in decoded.values()] == digests


def test_a_column_of_one_constant_is_written_once(entries: dict[str, CatalogEntry]) -> None:
    data = saved(entries)
    entry_columns, _loaded, meta_columns, files = pickle.loads(data[HEADER:])
    assert files == ((),)  # no file digest known
    assert meta_columns["shell"] == (None,)  # no skill has one
    assert entry_columns["withheld"] == ((),)
    assert all(entry.metadata.shell is None for entry in decode(data)[0].values() if entry.metadata)


def test_a_planted_column_of_one_mutable_value_is_refused(
    entries: dict[str, CatalogEntry],
) -> None:
    plain = {folder: entry for folder, entry in entries.items() if folder not in ("rich", "twin")}
    entry_columns, loaded, meta_columns, files = pickle.loads(saved(plain)[HEADER:])
    meta_columns["license"] = (["shared by every skill"],)
    with pytest.raises(ValueError, match="not a cached catalog"):
        decode(framed(pickle.dumps((entry_columns, loaded, meta_columns, files))))


def test_file_digests_come_back_by_folder_for_the_skills_that_have_some(
    entries: dict[str, CatalogEntry],
) -> None:
    forms = ("references/forms.md", "fp-1", 12, "sha256:" + "a" * 64)
    files = [(forms,) if folder == "rich" else () for folder in entries]
    digests = [bytes(32)] * len(entries)
    assert decode(encode(entries, digests, files))[1] == {"rich": (forms,)}
