"""One pass for the common case: a clean SKILL.md read straight into typed metadata.

Most skills are plain: UTF-8, ``---`` fences alone on their lines, frontmatter in the simple
YAML subset (:mod:`skills_core.format.simple_yaml`), only known fields with the right types, a
kebab-case name equal to the folder, a description within its limit, a body. For such a file
:func:`read_clean_skill` builds the metadata and finds the body in one pass, skipping the
mapping, validation report and split record the full path builds (half the cost of a cold
load). For anything else it returns ``None`` and the full path gives the verdict; differential
tests hold the two equal on every file this one accepts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from skills_core.format.fields import DESCRIPTION_MAX_LENGTH, FIELDS, FieldProblem, is_plain_name
from skills_core.format.format_limits import FormatLimits
from skills_core.format.models import SkillMetadata
from skills_core.format.parsing import is_blank_from
from skills_core.format.simple_yaml import NotSimpleYaml, iter_simple_entries

_OPENING = b"---\n"
_CLOSING = b"\n---\n"
_FIELD_NAMES = SkillMetadata._fields
_DEFAULT_ROW = tuple(SkillMetadata._field_defaults.get(field) for field in _FIELD_NAMES)


class _Slot(NamedTuple):
    position: int
    coerce: Callable[[Any], Any]
    max_length: int | None
    advise: Callable[[Any], tuple[tuple[str, str], ...]] | None


_SLOTS = {
    key: _Slot(_FIELD_NAMES.index(spec.attr), spec.coerce, spec.max_length, spec.advise)
    for key, spec in FIELDS.items()
}
_NAME, _DESCRIPTION = _FIELD_NAMES.index("name"), _FIELD_NAMES.index("description")


class CleanSkill(NamedTuple):
    """A SKILL.md with nothing to report: its metadata and where its body starts."""

    metadata: SkillMetadata
    body_start: int


def read_clean_skill(
    raw: bytes, *, folder_name: str, limits: FormatLimits, max_skill_md_bytes: int
) -> CleanSkill | None:
    """The metadata of a clean SKILL.md, or ``None`` when the full path must judge it."""
    if not raw.startswith(_OPENING) or len(raw) > max_skill_md_bytes:
        return None
    fence = raw.find(_CLOSING, len(_OPENING) - 1)
    body_start = fence + len(_CLOSING)
    if fence < 0 or fence - len(_OPENING) > limits.max_frontmatter_bytes:
        return None
    if is_blank_from(raw, body_start):
        return None
    try:
        if not raw.isascii():
            raw.decode("utf-8")  # the whole file must be UTF-8, not only the frontmatter
        row = _typed_row(raw[len(_OPENING) : fence].decode("utf-8"), folder_name)
    except (UnicodeDecodeError, NotSimpleYaml, FieldProblem):
        return None
    if row is None:
        return None
    return CleanSkill(SkillMetadata._make(row), body_start)


def _typed_row(frontmatter: str, folder_name: str) -> list[Any] | None:
    """The metadata fields in order, or ``None`` at the first thing worth a report."""
    row = list(_DEFAULT_ROW)
    for key, value in iter_simple_entries(frontmatter):
        if key == "name":
            if value != folder_name or not is_plain_name(value):
                return None
            row[_NAME] = value
        elif key == "description":
            if type(value) is not str or len(value) > DESCRIPTION_MAX_LENGTH:
                return None
            row[_DESCRIPTION] = value.strip() or None
        else:
            slot = _SLOTS.get(key)
            if slot is None:
                return None
            typed = slot.coerce(value)
            too_long = slot.max_length is not None and len(value) > slot.max_length
            if too_long or (slot.advise is not None and slot.advise(typed)):
                return None
            row[slot.position] = typed
    if row[_NAME] is None or row[_DESCRIPTION] is None:
        return None
    return row
