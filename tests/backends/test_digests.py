"""A content digest names one set of files: no file name can make two sets share it."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backends._digests import digest_of, files_digest
from tests.support.examples import examples

SKILL_MD, NOTES, EVIL = digest_of(b"---\n..."), digest_of(b"notes"), digest_of(b"rm -rf ~")


def test_a_file_name_cannot_spell_another_files_entry() -> None:
    """The forgery ``sha256sum``-style lines allowed: approve A, a later commit makes it B.

    A holds one odd folder whose name spells B's script line; B holds that script.
    """
    approved = {"SKILL.md": SKILL_MD, f"notes.md\n{EVIL}  scripts/run.py": NOTES}
    forged = {"SKILL.md": SKILL_MD, "notes.md": NOTES, "scripts/run.py": EVIL}
    assert files_digest(approved) != files_digest(forged)


_TOKENS = ["a", "/", ".", " ", "  ", "\n", "\r", "\x00", '"', "\\", ",", "[", "]", ":", "é", NOTES]
_NAMES = st.lists(st.sampled_from(_TOKENS), max_size=6).map("".join) | st.text(max_size=8)
_SEPARATORS = ["\n", "  ", " ", "\x00", ",", '","', '"],["', ""]
_FILES = st.dictionaries(_NAMES, st.sampled_from([SKILL_MD, NOTES, EVIL]), max_size=4)


@st.composite
def _spliced(draw: st.DrawFn) -> tuple[dict[str, str], dict[str, str]]:
    """A set of files, and another whose first name holds the second entry's text.

    With any separators: the way a name forges an entry in an encoding by delimiters.
    """
    files = draw(_FILES.filter(lambda found: len(found) >= 2))
    (first, first_digest), (second, second_digest), *rest = sorted(files.items())
    between, after = draw(st.sampled_from(_SEPARATORS)), draw(st.sampled_from(_SEPARATORS))
    spliced = {f"{first}{between}{second_digest}{after}{second}": first_digest, **dict(rest)}
    return files, spliced


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_spliced(), _FILES)
def test_two_different_sets_of_files_never_share_a_digest(
    spliced: tuple[dict[str, str], dict[str, str]], other: dict[str, str]
) -> None:
    files, forged = spliced
    for one, two in ((files, forged), (files, other), (forged, other)):
        assert (files_digest(one) == files_digest(two)) == (one == two)
