"""The conformance suite every backend passes, shipped so third-party backends can run it too.

As in fsspec's ``tests/abstract``: subclass :class:`BackendConformance` in a test module and
give it a ``harness`` fixture returning a :class:`BackendHarness` for your storage::

    class TestMyBackend(BackendConformance):
        @pytest.fixture
        def harness(self, tmp_path):
            return MyHarness(tmp_path)

A DocumentLister adds :class:`DocumentListerConformance`; storage with symlinks adds
:class:`SymlinkConformance` (with a :class:`SymlinkHarness`). Needs pytest-asyncio.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Mapping

import pytest
import pytest_asyncio

from backends._base import Backend, SkillDocument, SkillRef
from backends._errors import (
    LimitExceededError,
    ResourceNotFoundError,
    SkillNotFoundError,
    UnsafePathError,
)
from backends.capabilities import DocumentLister, fetch_many

__all__ = [
    "CANONICAL_TREE",
    "BackendConformance",
    "BackendHarness",
    "DocumentListerConformance",
    "SymlinkConformance",
    "SymlinkHarness",
    "skill_md",
]


def skill_md(name: str, description: str = "A canonical test skill.", body: str = "") -> bytes:
    """A valid SKILL.md for ``name``."""
    text = body or f"# {name}\n\nFollow these steps.\n"
    return f"---\nname: {name}\ndescription: {description}\n---\n{text}".encode()


LOGO = bytes(range(256)) * 4

CANONICAL_TREE: Mapping[str, bytes] = {
    "alpha/SKILL.md": skill_md("alpha"),
    "alpha/references/guide.md": b"# Guide\n\nRead me first.\n",
    "alpha/scripts/run.py": b"print('alpha')\n",
    "alpha/assets/logo.png": LOGO,
    "alpha/nested/SKILL.md": skill_md("nested"),
    "alpha/assets/.env.example": b"API_KEY=your-key-here\n",
    "alpha/.env": b"API_KEY=a secret, never served\n",
    "alpha/.git/config": b"[core]\n\tbare = false\n",
    "alpha/.DS_Store": b"\x00\x00\x00\x01Bud1 OS junk, never served",
    "alpha/scripts/__pycache__/run.cpython-311.pyc": b"bytecode cache, never listed",
    "beta/SKILL.md": skill_md("beta"),
    "gamma/skill.md": skill_md("gamma"),
    "no-skill/README.md": b"a folder without SKILL.md is not a skill",
    "deep/inner/SKILL.md": skill_md("inner"),
    ".hidden-skill/SKILL.md": skill_md("hidden-skill"),
}
"""Three skills (alpha, beta, gamma) among folders that are not, with hidden files in alpha."""

CANONICAL_SKILLS = ("alpha", "beta", "gamma")
ALPHA_FILES = (
    "SKILL.md",
    "assets/.env.example",
    "assets/logo.png",
    "nested/SKILL.md",
    "references/guide.md",
    "scripts/run.py",
)
HOSTILE_NAMES = ("..", "../alpha", "alpha/../beta", "/etc", ".hidden-skill", "", "a\\b", "C:")
HOSTILE_PATHS = (
    "../beta/SKILL.md",
    "/etc/passwd",
    "C:/Windows/win.ini",
    "references\\..\\..\\beta",
    "references/../../beta/SKILL.md",
    "",
    ".env",
    "references/../.env",
    ".git/config",
    ".DS_Store",
    "scripts/__pycache__/run.cpython-311.pyc",
    "scripts/\x00run.py",
    "scripts/run\n.py",
    "scripts/\x1b[2Jrun.py",
)


class BackendHarness(ABC):
    """Stores a tree of files where one backend reads it, and changes it afterwards."""

    @abstractmethod
    async def make_backend(self, tree: Mapping[str, bytes]) -> Backend:
        """Store ``tree`` (``{"skill/path": bytes}``) and return a backend reading it."""

    @abstractmethod
    async def write(self, path: str, data: bytes) -> None:
        """Create or replace one file of the stored tree."""

    @abstractmethod
    async def delete_skill(self, name: str) -> None:
        """Remove one skill folder from the stored tree."""


@pytest.mark.asyncio
class BackendConformance:
    """The behaviour every backend shares. Subclasses provide a ``harness`` fixture."""

    @pytest_asyncio.fixture
    async def backend(self, harness: BackendHarness) -> AsyncIterator[Backend]:
        backend = await harness.make_backend(CANONICAL_TREE)
        yield backend
        await backend.aclose()

    async def test_async_with_gives_the_backend_and_closes_it(self, backend: Backend) -> None:
        closes: list[Backend] = []
        aclose = backend.aclose

        async def counted_aclose() -> None:
            closes.append(backend)
            await aclose()

        backend.aclose = counted_aclose  # type: ignore[method-assign]
        async with backend as entered:
            assert entered is backend
            assert [ref.name for ref in await entered.list()] == list(CANONICAL_SKILLS)
        assert closes == [backend]

    async def test_lists_first_level_skills_sorted(self, backend: Backend) -> None:
        refs = await backend.list()
        assert [ref.name for ref in refs] == list(CANONICAL_SKILLS)
        assert all(ref.error is None for ref in refs)

    async def test_listing_is_deterministic(self, backend: Backend) -> None:
        first = [(ref.name, ref.fingerprint) for ref in await backend.list()]
        second = [(ref.name, ref.fingerprint) for ref in await backend.list()]
        assert first == second
        assert all(fingerprint for _, fingerprint in first)

    async def test_locations_name_each_skill_md(self, backend: Backend) -> None:
        for ref in await backend.list():
            expected = "skill.md" if ref.name == "gamma" else "SKILL.md"
            # A published index serves SKILL.md as its own file or from the skill's archive,
            # each named by the skill and its digest.
            published = rf"/{re.escape(ref.name)}-[0-9a-f]{{64}}\.(md|zip!/SKILL\.md)"
            assert ref.location.endswith(f"{ref.name}/{expected}") or re.search(
                published + "$", ref.location
            )

    async def test_get_returns_exact_bytes_and_listed_fingerprint(self, backend: Backend) -> None:
        refs = {ref.name: ref for ref in await backend.list()}
        for name in CANONICAL_SKILLS:
            document = await backend.get(name)
            path = f"{name}/skill.md" if name == "gamma" else f"{name}/SKILL.md"
            assert document.data == CANONICAL_TREE[path]
            assert document.fingerprint == refs[name].fingerprint
            if refs[name].size is not None:
                assert refs[name].size == len(document.data)

    async def test_batch_fetch_keeps_order_and_reports_each_failure(self, backend: Backend) -> None:
        results = await fetch_many(backend, ["beta", "missing", "alpha", ".."])
        assert isinstance(results[0], SkillDocument)
        assert results[0].name == "beta"
        assert isinstance(results[1], SkillNotFoundError)
        assert isinstance(results[2], SkillDocument)
        assert results[2].data == CANONICAL_TREE["alpha/SKILL.md"]
        assert isinstance(results[3], UnsafePathError)

    async def test_missing_skill_is_not_found(self, backend: Backend) -> None:
        for name in ("missing", "no-skill", "deep"):
            with pytest.raises(SkillNotFoundError):
                await backend.get(name)
            with pytest.raises(SkillNotFoundError):
                await backend.files(name)
            with pytest.raises(SkillNotFoundError):
                await backend.read(name, "README.md", max_bytes=1 << 20)

    @pytest.mark.parametrize("name", HOSTILE_NAMES)
    async def test_hostile_names_are_refused(self, backend: Backend, name: str) -> None:
        with pytest.raises(UnsafePathError):
            await backend.get(name)
        with pytest.raises(UnsafePathError):
            await backend.read(name, "SKILL.md", max_bytes=1 << 20)

    async def test_files_lists_visible_files_with_sizes(self, backend: Backend) -> None:
        entries = await backend.files("alpha")
        assert tuple(entry.path for entry in entries) == ALPHA_FILES
        sizes = {entry.path: entry.size for entry in entries}
        assert sizes["assets/logo.png"] == len(LOGO)
        assert [entry.path for entry in await backend.files("beta")] == ["SKILL.md"]

    async def test_read_returns_exact_bytes(self, backend: Backend) -> None:
        guide = await backend.read("alpha", "references/guide.md", max_bytes=1 << 20)
        assert guide == CANONICAL_TREE["alpha/references/guide.md"]
        assert await backend.read("alpha", "./assets//logo.png", max_bytes=1 << 20) == LOGO

    async def test_documented_dotfiles_are_served(self, backend: Backend) -> None:
        template = await backend.read("alpha", "assets/.env.example", max_bytes=1 << 20)
        assert template == CANONICAL_TREE["alpha/assets/.env.example"]

    @pytest.mark.parametrize("path", HOSTILE_PATHS)
    async def test_hostile_paths_are_refused(self, backend: Backend, path: str) -> None:
        with pytest.raises(UnsafePathError):
            await backend.read("alpha", path, max_bytes=1 << 20)

    async def test_missing_resource_is_not_found(self, backend: Backend) -> None:
        with pytest.raises(ResourceNotFoundError):
            await backend.read("alpha", "references/missing.md", max_bytes=1 << 20)
        with pytest.raises(ResourceNotFoundError):
            await backend.read("alpha", "references", max_bytes=1 << 20)

    async def test_a_path_too_long_for_any_storage_is_not_found(self, backend: Backend) -> None:
        for path in ("x" * 300, "/".join(["y" * 250] * 20)):
            with pytest.raises(ResourceNotFoundError):
                await backend.read("alpha", path, max_bytes=1 << 20)
        with pytest.raises(SkillNotFoundError):
            await backend.get("z" * 300)

    async def test_oversize_resource_is_refused(self, backend: Backend) -> None:
        with pytest.raises(LimitExceededError):
            await backend.read("alpha", "assets/logo.png", max_bytes=len(LOGO) - 1)

    async def test_file_fingerprints_change_with_a_same_size_edit(
        self, harness: BackendHarness, backend: Backend
    ) -> None:
        before = {entry.path: entry for entry in await backend.files("alpha")}
        assert all(entry.fingerprint for entry in before.values())
        edited = b"# Guide\n\nRead me later.\n"
        assert len(edited) == before["references/guide.md"].size
        await harness.write("alpha/references/guide.md", edited)
        await backend.list()
        after = {entry.path: entry for entry in await backend.files("alpha")}
        assert after["references/guide.md"].size == before["references/guide.md"].size
        assert after["references/guide.md"].fingerprint != before["references/guide.md"].fingerprint

    async def test_fingerprint_changes_only_for_the_changed_skill(
        self, harness: BackendHarness, backend: Backend
    ) -> None:
        before = {ref.name: ref.fingerprint for ref in await backend.list()}
        changed = skill_md("beta", "Changed, and longer than before.")
        await harness.write("beta/SKILL.md", changed)
        after = {ref.name: ref.fingerprint for ref in await backend.list()}
        assert after["beta"] != before["beta"]
        assert after["alpha"] == before["alpha"]
        assert after["gamma"] == before["gamma"]
        assert (await backend.get("beta")).data == changed

    async def test_added_and_deleted_skills_are_seen(
        self, harness: BackendHarness, backend: Backend
    ) -> None:
        await backend.list()
        await harness.write("delta/SKILL.md", skill_md("delta"))
        await harness.delete_skill("beta")
        assert [ref.name for ref in await backend.list()] == ["alpha", "delta", "gamma"]
        with pytest.raises(SkillNotFoundError):
            await backend.get("beta")
        assert (await backend.get("delta")).data == skill_md("delta")


class SymlinkHarness(BackendHarness):
    """A harness over storage that holds symbolic links."""

    @abstractmethod
    async def symlink(self, path: str, target: str) -> None:
        """Create ``path`` as a symlink to ``target`` (POSIX, relative to the link's folder)."""


@pytest.mark.asyncio
class SymlinkConformance:
    """Symlinks are followed only while they stay inside their skill's folder."""

    async def test_a_file_linked_out_of_its_skill_is_never_listed_or_read(
        self, harness: SymlinkHarness, backend: Backend
    ) -> None:
        await harness.symlink("alpha/references/escape.md", "../../beta/SKILL.md")
        await harness.symlink("alpha/shared", "../beta")
        await harness.symlink("alpha/references/alias.md", "guide.md")
        paths = [entry.path for entry in await backend.files("alpha")]
        assert paths == sorted([*ALPHA_FILES, "references/alias.md"])
        alias = await backend.read("alpha", "references/alias.md", max_bytes=1 << 20)
        assert alias == CANONICAL_TREE["alpha/references/guide.md"]
        for path in ("references/escape.md", "shared/SKILL.md"):
            with pytest.raises(UnsafePathError):
                await backend.read("alpha", path, max_bytes=1 << 20)

    async def test_a_skill_md_linked_out_of_its_skill_is_refused(
        self, harness: SymlinkHarness, backend: Backend
    ) -> None:
        await harness.write("delta/README.md", b"a folder whose SKILL.md is a link")
        await harness.symlink("delta/SKILL.md", "../beta/SKILL.md")
        refs = {ref.name: ref for ref in await backend.list()}
        assert isinstance(refs["delta"].error, UnsafePathError)
        with pytest.raises(UnsafePathError):
            await backend.get("delta")


@pytest.mark.asyncio
class DocumentListerConformance:
    """What a backend that reads its listing in one pass must agree on with list() and get()."""

    async def test_list_documents_reads_what_list_and_get_give(self, backend: Backend) -> None:
        assert isinstance(backend, DocumentLister)
        listed = await backend.list_documents(max_bytes=1 << 20)
        expected = [await backend.get(ref.name) for ref in await backend.list()]
        assert list(listed) == expected

    async def test_list_documents_refuses_oversize_files_unread(self, backend: Backend) -> None:
        assert isinstance(backend, DocumentLister)
        listed = await backend.list_documents(max_bytes=10)
        refs = await backend.list()
        assert [item.name for item in listed] == [ref.name for ref in refs]
        for item, ref in zip(listed, refs, strict=True):
            assert isinstance(item, SkillRef)
            assert isinstance(item.error, LimitExceededError)
            assert item.error.location == ref.location
            assert (item.fingerprint, item.size) == (ref.fingerprint, ref.size)
