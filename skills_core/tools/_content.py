"""What a model is shown: a skill's instructions, in parts, its files, its resources; errors.

Tools never raise: every failure is a value built by :func:`tool_error` with an ``error_code``
from :mod:`skills_core._codes`; :func:`never_raises` guards every tool. docs/adk.md tells the
whole story ("Long skills come in parts", "What the model receives for each file"); sizes are
measured as the JSON a model receives.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import logging
import mimetypes
import os
import pathlib
import posixpath
import re
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple, ParamSpec

from backends._base import FileEntry
from backends._errors import (
    LimitExceededError,
    ResourceNotFoundError,
    SkillfsError,
    SkillNotFoundError,
    UnsafePathError,
    echoed,
)
from backends._paths import SKILL_MD_NAMES
from skills_core._codes import (
    ENTRY_MISMATCH,
    INTERNAL_ERROR,
    INVALID_ARGUMENTS,
    INVALID_PATH,
    LOCK_MISMATCH,
    READ_FAILED,
    RESOURCE_NOT_FOUND,
    RESOURCE_TOO_LARGE,
    SECTION_NOT_FOUND,
    SKILL_NOT_FOUND,
)
from skills_core._errors import EntryMismatchError, LockMismatchError
from skills_core._format.models import Skill

logger = logging.getLogger("skillfs.tools")

ToolResult = dict[str, Any]
"""A JSON-ready mapping; it holds ``error`` and ``error_code`` when the call failed."""


def tool_error(code: str, message: str, **details: Any) -> ToolResult:
    """The one shape of every error a model sees: ``{"error", "error_code", **details}``."""
    return {"error": message, "error_code": code, **details}


def require_text(**arguments: Any) -> ToolResult | None:
    """An ``INVALID_ARGUMENTS`` error naming every argument that is not a non-empty string."""
    missing = [name for name, value in arguments.items() if not isinstance(value, str) or not value]
    if not missing:
        return None
    names = ", ".join(repr(name) for name in missing)
    return tool_error(INVALID_ARGUMENTS, f"argument {names} must be a non-empty string")


def is_error(result: ToolResult) -> bool:
    """True when ``result`` was built by :func:`tool_error`."""
    return "error_code" in result


_CODES: tuple[tuple[type[SkillfsError], str], ...] = (
    (SkillNotFoundError, SKILL_NOT_FOUND),
    (ResourceNotFoundError, RESOURCE_NOT_FOUND),
    (UnsafePathError, INVALID_PATH),
    (LimitExceededError, RESOURCE_TOO_LARGE),
    (LockMismatchError, LOCK_MISMATCH),
    (EntryMismatchError, ENTRY_MISMATCH),
)
"""The code of each skillfs exception, most specific first; any other is ``READ_FAILED``."""


P = ParamSpec("P")


def never_raises(
    tool: Callable[P, Awaitable[ToolResult]],
) -> Callable[P, Awaitable[ToolResult]]:
    """Turn any exception escaping ``tool`` into an error value (``INTERNAL_ERROR``, logged)."""

    @functools.wraps(tool)
    async def guarded(*args: P.args, **kwargs: P.kwargs) -> ToolResult:
        try:
            return await tool(*args, **kwargs)
        except SkillfsError as exc:
            code = next((code for kind, code in _CODES if isinstance(exc, kind)), READ_FAILED)
            return tool_error(code, exc.message)
        except Exception as exc:  # the model must get a value, whatever went wrong
            logger.exception("tool %s failed", getattr(tool, "__name__", tool))
            return tool_error(INTERNAL_ERROR, f"the tool failed unexpectedly: {exc}")

    return guarded


ContentBuilder = Callable[[Skill], str]
"""Builds the instructions ``load_skill`` returns for a skill (default: its body)."""

SkillPreparer = Callable[[Skill], Awaitable[Skill | ToolResult]]
"""Adapts a skill to one ``load_skill`` call; an error value it returns is the call's result."""

MAX_LISTED_FILES = 100
"""Most file paths ``load_skill`` lists, and most entries one folder listing shows."""

MAX_LISTED_CHARS = 8_000
"""Most characters of paths one listing holds (S3 keys may be 1,024 characters long)."""

ROOT_FOLDERS = frozenset({".", "./"})
"""Paths that name the skill's own folder in a folder listing."""

MIN_PART_CHARS = 1_000
"""Fewest characters of instructions one reply carries, so reading on always progresses."""

_OUTLINE_SHARE = 4
"""The headings of the rest take at most this fraction (1/4) of the bound."""


def skill_body(skill: Skill) -> str:
    """The default :data:`ContentBuilder`: the markdown after the frontmatter."""
    return skill.body


def base_location(skill_md_location: str) -> str:
    """The skill folder's location, from the location of its SKILL.md (path or URL)."""
    for name in SKILL_MD_NAMES:
        if skill_md_location.endswith(name):
            return skill_md_location[: -len(name)].rstrip("/\\")
    return skill_md_location


def skill_uri(skill_md_location: str) -> str:
    """The skill folder as a URI, as google-adk's telemetry records it (``file://`` locally)."""
    folder = base_location(skill_md_location)
    if "://" not in folder and os.path.isabs(folder):
        return pathlib.Path(folder).as_uri()
    return folder


def loaded_skill(skill: Skill, build_content: ContentBuilder) -> ToolResult:
    """What ``load_skill`` returns, whole: instructions, where the skill lives, its files."""
    return {
        "skill_name": skill.name,
        "description": skill.description,
        "instructions": build_content(skill),
        "base_location": base_location(skill.location),
        **files_summary(skill.files),
        "frontmatter": skill.metadata.to_frontmatter(),
    }


def files_summary(files: Sequence[FileEntry]) -> dict[str, Any]:
    """The ``files`` part of ``load_skill``'s result: every path, or a bounded summary."""
    paths = [entry.path for entry in files if entry.path not in SKILL_MD_NAMES]
    listed = _within_budget(paths)
    if len(listed) == len(paths):
        return {"files": paths}
    counts = Counter(path.split("/", 1)[0] if "/" in path else "." for path in paths)
    folders = [{"path": folder, "files": count} for folder, count in sorted(counts.items())]
    example = next((folder["path"] for folder in folders if folder["path"] != "."), ".")
    return {
        "files": listed,
        "file_count": len(paths),
        "folders": folders[:MAX_LISTED_FILES],
        "folder_count": len(folders),
        "files_note": (
            f"Only the first {len(listed)} of {len(paths)} files are listed; 'folders' counts "
            "the files below each top-level folder. To list one folder, read its path as a "
            f"resource (file_path {example!r})."
        ),
    }


def folder_listing(files: Sequence[FileEntry], folder: str) -> dict[str, Any] | None:
    """What ``folder`` (normalised, ``"."`` for the root) holds, bounded; ``None`` if empty."""
    prefix = "" if folder == "." else f"{folder}/"
    direct: list[FileEntry] = []
    below: Counter[str] = Counter()
    for entry in files:
        if not entry.path.startswith(prefix):
            continue
        head, separator, _ = entry.path[len(prefix) :].partition("/")
        if separator:
            below[prefix + head] += 1
        else:
            direct.append(entry)
    if not direct and not below:
        return None
    entries: list[dict[str, Any]] = [
        {"path": path, "files": count} for path, count in sorted(below.items())
    ]
    entries += ({"path": entry.path, "size": entry.size} for entry in direct)
    shown = _within_budget(entries, key=lambda item: item["path"])
    result: dict[str, Any] = {
        "folder": folder,
        "folders": [item for item in shown if "files" in item],
        "files": [item for item in shown if "size" in item],
        "file_count": len(direct),
        "folder_count": len(below),
    }
    if len(shown) < len(entries):
        result["note"] = f"Only the first {len(shown)} of {len(entries)} entries are listed."
    return result


def _within_budget(items: Sequence[Any], key: Any = str) -> list[Any]:
    """The first items that fit :data:`MAX_LISTED_FILES` and :data:`MAX_LISTED_CHARS`."""
    kept: list[Any] = []
    chars = 0
    for item in items[:MAX_LISTED_FILES]:
        chars += len(key(item))
        if chars > MAX_LISTED_CHARS:
            break
        kept.append(item)
    return kept


class Delivery(StrEnum):
    """How a file reaches the model: inline data, described (type, size, sha256), or bytes."""

    TEXT = "text"
    INLINE = "inline"
    DESCRIBED = "described"
    BYTES = "bytes"


class FileKind(NamedTuple):
    """One row of :data:`FILE_KINDS`: binary files whose MIME type starts with a prefix."""

    name: str
    delivery: Delivery
    mime_prefixes: tuple[str, ...]


FILE_KINDS = (
    FileKind("image", Delivery.INLINE, ("image/",)),
    FileKind("audio", Delivery.INLINE, ("audio/",)),
    FileKind("video", Delivery.INLINE, ("video/",)),
    FileKind("pdf", Delivery.INLINE, ("application/pdf",)),
    FileKind("font", Delivery.DESCRIBED, ("font/", "application/vnd.ms-fontobject")),
    FileKind(
        "archive",
        Delivery.DESCRIBED,
        (
            "application/zip",
            "application/gzip",
            "application/x-tar",
            "application/x-bzip2",
            "application/x-xz",
            "application/x-7z-compressed",
            "application/vnd.rar",
            "application/java-archive",
        ),
    ),
    FileKind(
        "executable",
        Delivery.DESCRIBED,
        (
            "application/vnd.microsoft.portable-executable",
            "application/x-sharedlib",
            "application/x-mach-binary",
            "application/x-executable",
            "application/wasm",
            "application/java-vm",
            "application/x-python-code",
        ),
    ),
)
"""Binary files by MIME type, first match wins; any other binary file is ``binary``."""

OTHER_BINARY = FileKind("binary", Delivery.DESCRIBED, ())

EXTRA_MIME_TYPES = {
    ".ttf": "font/ttf",
    ".otf": "font/otf",
    ".woff": "font/woff",
    ".woff2": "font/woff2",
    ".eot": "application/vnd.ms-fontobject",
    ".gz": "application/gzip",
    ".tgz": "application/gzip",
    ".bz2": "application/x-bzip2",
    ".xz": "application/x-xz",
    ".7z": "application/x-7z-compressed",
    ".rar": "application/vnd.rar",
    ".jar": "application/java-archive",
    ".whl": "application/zip",
    ".exe": "application/vnd.microsoft.portable-executable",
    ".dll": "application/vnd.microsoft.portable-executable",
    ".so": "application/x-sharedlib",
    ".dylib": "application/x-mach-binary",
    ".class": "application/java-vm",
    ".webp": "image/webp",
}
"""Types Python's built-in table lacks or calls ``application/octet-stream``."""


def guess_mime_type(path: str) -> str:
    """The MIME type for a file name (built-in tables only: no system files are read)."""
    extension = posixpath.splitext(path)[1].lower()
    known = EXTRA_MIME_TYPES.get(extension) or mimetypes.types_map.get(extension)
    return known or "application/octet-stream"


def as_text(data: bytes) -> str | None:
    """``data`` as text when it is UTF-8 without NUL bytes, else ``None`` (binary)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return None if "\x00" in text else text


def resource_result(
    skill_name: str, path: str, data: bytes, *, as_bytes: bool = False, inline: bool = False
) -> ToolResult:
    """What ``load_skill_resource`` returns for a file: text, or a binary's description.

    ``as_bytes``, or ``inline`` for kinds a model reads, puts base64 in ``content_base64``.
    """
    result: ToolResult = {"skill_name": skill_name, "file_path": path, "size": len(data)}
    text = as_text(data)
    if text is not None:
        result["content"] = text  # text results keep their shape: no "delivery" key
        return result
    mime_type = guess_mime_type(path)
    kind = next((k for k in FILE_KINDS if mime_type.startswith(k.mime_prefixes)), OTHER_BINARY)
    result.update(binary=True, mime_type=mime_type, kind=kind.name)
    if as_bytes:
        delivery = Delivery.BYTES
    elif inline:
        delivery = kind.delivery
    else:
        delivery = Delivery.DESCRIBED
    result["delivery"] = delivery.value
    if delivery is Delivery.DESCRIBED:
        result["sha256"] = hashlib.sha256(data).hexdigest()
        encoded = 4 * ((len(data) + 2) // 3)
        result["note"] = (
            f"This {kind.name} file is described, not sent: as base64 it would be "
            f"{encoded:,} characters of text. Scripts of this skill run in the skill's folder "
            f"and open it as {path!r}; read it again with as_bytes=true to receive it "
            "base64-encoded."
        )
    else:
        result["content_base64"] = base64.b64encode(data).decode("ascii")
    return result


_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_NUMBERED = re.compile(r"(.*?)#(\d+)")


@dataclass(frozen=True, slots=True)
class Heading:
    """One heading: its line as written (``"## Forms"``), title, level, offset, occurrence."""

    line: str
    title: str
    level: int
    offset: int
    occurrence: int = 1

    @property
    def label(self) -> str:
        """How replies name it: its line, or ``## Usage#2`` for the second ``Usage``."""
        if self.occurrence == 1:
            return self.line
        return f"{'#' * self.level} {self.title}#{self.occurrence}"


def headings(text: str) -> list[Heading]:
    """Every heading of ``text`` outside fenced code blocks, in order."""
    found: list[Heading] = []
    seen: Counter[str] = Counter()
    fence = ""
    offset = 0
    for line in text.splitlines(keepends=True):
        bare = line.rstrip("\r\n")
        if opening := _FENCE.match(bare):
            marks = opening.group(1)
            if not fence:
                fence = marks
            elif marks[0] == fence[0] and len(marks) >= len(fence):
                fence = ""
        elif not fence and (match := _HEADING.match(bare)):
            level, title = len(match.group(1)), match.group(2)
            key = _key(title)
            seen[key] += 1
            found.append(Heading(bare.strip(), title, level, offset, seen[key]))
        offset += len(line)
    return found


def find_section(found: list[Heading], wanted: str, length: int) -> tuple[Heading, int] | None:
    """The heading ``wanted`` names and where its section ends; ``None`` when none does.

    ``wanted`` is a title or a whole line, without case or repeated spaces; a repeated title's
    later headings by their :attr:`Heading.label` (a heading titled ``wanted`` comes first).
    """
    index = _index(found, _key(wanted), 1)
    if index is None and (numbered := _NUMBERED.fullmatch(wanted.strip())):
        index = _index(found, _key(numbered.group(1)), int(numbered.group(2)))
    if index is None:
        return None
    heading = found[index]
    later = (other for other in found[index + 1 :] if other.level <= heading.level)
    return heading, next((other.offset for other in later), length)


def _index(found: list[Heading], key: str, occurrence: int) -> int | None:
    matches = (
        i for i, h in enumerate(found) if h.occurrence == occurrence and _key(h.title) == key
    )
    return next(matches, None)


def _key(title: str) -> str:
    return " ".join(title.strip().lstrip("#").split()).casefold()


def fit_loaded(
    loaded: ToolResult, max_chars: int, *, section: Any = None, offset: Any = None
) -> ToolResult:
    """A whole ``load_skill`` result as one part of at most ``max_chars`` JSON characters.

    ``section`` (a heading) or ``offset`` (into the instructions) picks where the part starts.
    """
    name, text = loaded["skill_name"], loaded["instructions"]
    if section is None and offset is None and _size(loaded) <= max_chars:
        return loaded  # it fits: nothing to cut, no headings to find
    found = headings(text)
    base: ToolResult = {"skill_name": name}
    if section is not None and offset is not None:
        return tool_error(INVALID_ARGUMENTS, "give 'section' or 'offset', not both")
    if section is not None:
        if not isinstance(section, str) or not section.strip():
            return tool_error(INVALID_ARGUMENTS, "argument 'section' must be a heading")
        match = find_section(found, section, len(text))
        if match is None:
            outline, _ = _outline(found, max_chars // _OUTLINE_SHARE)
            message = f"skill {name!r} has no section {echoed(section)!r}"
            return tool_error(SECTION_NOT_FOUND, message, sections=outline)
        heading, end = match
        start = heading.offset
        base["section"] = heading.label
    elif offset is not None:
        asked = whole_number(offset)
        if asked is None or not 0 <= asked < max(len(text), 1):
            message = f"argument 'offset' must be a whole number from 0 to {len(text) - 1}"
            return tool_error(INVALID_ARGUMENTS, message)
        start, end = asked, len(text)
    else:
        start, end = 0, len(text)
        base = {key: value for key, value in loaded.items() if key != "instructions"}
    return _part(base, text, found, (start, end), max_chars)


def _part(
    base: ToolResult, text: str, found: list[Heading], span: tuple[int, int], max_chars: int
) -> ToolResult:
    """The reply holding as much of ``text[start:end]`` as ``max_chars`` allows."""
    start, end = span
    fixed = _size(_reply(base, text, found, (start, start, end), max_chars))
    budget = max_chars - fixed
    while True:
        cut = _cut(text, found, start, end, budget)
        reply = _reply(base, text, found, (start, cut, end), max_chars)
        excess = _size(reply) - max_chars
        if excess <= 0 or cut - start <= MIN_PART_CHARS:
            return reply
        budget -= excess


def _reply(
    base: ToolResult,
    text: str,
    found: list[Heading],
    span: tuple[int, int, int],
    max_chars: int,
) -> ToolResult:
    """The reply showing ``text[start:cut]`` of a part that runs to ``end``."""
    start, cut, end = span
    total, shown = len(text), cut - start
    reply: ToolResult = {
        **base,
        "instructions": text[start:cut],
        "offset": start,
        "total_chars": total,
        "left_out_chars": total - shown,
    }
    if cut >= end:
        return reply
    rest = [heading for heading in found if cut <= heading.offset < end]
    outline, omitted = _outline(rest, max_chars // _OUTLINE_SHARE)
    reply.update(next_offset=cut, sections=outline)
    note = (
        f"Showing characters {start:,}-{cut:,} of {total:,}; {total - shown:,} are left out. "
        f"Call this tool again with offset={cut} to read on, or with section set to a heading "
        "of 'sections' to read that section."
    )
    if omitted:
        reply["sections_left_out"] = omitted
        note += (
            f" {omitted} headings are not listed (the deepest first); a section's reply "
            "lists its own."
        )
    reply["note"] = note
    return reply


def _cut(text: str, found: list[Heading], start: int, end: int, budget: int) -> int:
    """Where a part from ``start`` ends: within ``budget`` JSON characters, at a boundary.

    The longest piece that fits, cut back to a heading, blank line or line break in its second
    half; never fewer than :data:`MIN_PART_CHARS` characters (or all that is left).
    """
    low, high = 0, end - start  # the longest piece that fits has a length in [low, high]
    while low < high:
        middle = (low + high + 1) // 2
        if _size(text[start : start + middle]) - 2 <= budget:
            low = middle
        else:
            high = middle - 1
    limit = start + max(low, min(MIN_PART_CHARS, end - start))
    if limit >= end:
        return end
    half = start + (limit - start) // 2
    boundaries = [heading.offset for heading in found if half < heading.offset <= limit]
    if boundaries:
        return boundaries[-1]
    for mark in ("\n\n", "\n"):
        at = text.rfind(mark, half, limit)
        if at >= 0:
            return at + len(mark)
    return limit


def _outline(found: list[Heading], limit: int) -> tuple[list[str], int]:
    """The heading labels of ``found`` within ``limit`` JSON characters, and how many are not.

    Deeper levels go first; if even the top level does not fit, its first headings do.
    """
    for depth in range(6, 0, -1):
        lines = [heading.label for heading in found if heading.level <= depth]
        if lines and _size(lines) <= limit:
            return lines, len(found) - len(lines)
    top = min((heading.level for heading in found), default=1)
    lines, used = [], 2  # the brackets
    for heading in found:
        cost = _size(heading.label) + 2  # the label and its ", "
        if heading.level == top and used + cost <= limit:
            lines.append(heading.label)
            used += cost
    return lines, len(found) - len(lines)


def whole_number(value: Any) -> int | None:
    """``value`` as an int when it is one (JSON numbers may arrive as ``5.0``)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value if type(value) is int else None


def _size(value: Any) -> int:
    """How many characters ``value`` takes as the JSON a model receives."""
    return len(json.dumps(value, ensure_ascii=False))
