"""How skills and resources are shown to a model: loaded content, text versus binary files."""

from __future__ import annotations

import base64
import mimetypes
import posixpath
from collections.abc import Awaitable, Callable

from backends.paths import SKILL_MD_NAMES
from skills_core.format.models import Skill
from skills_core.tools.listing import files_summary
from skills_core.tools.results import ToolResult

ContentBuilder = Callable[[Skill], str]
"""Builds the instructions ``load_skill`` returns for a skill (default: its body)."""

SkillPreparer = Callable[[Skill], Awaitable[Skill | ToolResult]]
"""Adapts a skill to one ``load_skill`` call before its content is built (an adapter fills in
session state there); an error value it returns becomes the call's result."""


def skill_body(skill: Skill) -> str:
    """The default :data:`ContentBuilder`: the markdown after the frontmatter."""
    return skill.body


def base_location(skill_md_location: str) -> str:
    """The skill folder's location, from the location of its SKILL.md (path or URL)."""
    for name in SKILL_MD_NAMES:
        if skill_md_location.endswith(name):
            return skill_md_location[: -len(name)].rstrip("/\\")
    return skill_md_location


def loaded_skill(skill: Skill, build_content: ContentBuilder) -> ToolResult:
    """What ``load_skill`` returns: instructions, where the skill lives, and its files.

    A skill with very many files gets a bounded summary of them (see
    :mod:`skills_core.tools.listing`).
    """
    return {
        "skill_name": skill.name,
        "description": skill.description,
        "instructions": build_content(skill),
        "base_location": base_location(skill.location),
        **files_summary(skill.files),
        "frontmatter": skill.metadata.to_frontmatter(),
    }


def resource_result(skill_name: str, path: str, data: bytes) -> ToolResult:
    """A resource as text when it is UTF-8 without NUL bytes, else base64 flagged binary."""
    result: ToolResult = {"skill_name": skill_name, "file_path": path, "size": len(data)}
    text = as_text(data)
    if text is not None:
        result["content"] = text
        return result
    result["binary"] = True
    result["mime_type"] = guess_mime_type(path)
    result["content_base64"] = base64.b64encode(data).decode("ascii")
    return result


def as_text(data: bytes) -> str | None:
    """``data`` as text when it is UTF-8 without NUL bytes, else ``None`` (binary)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return None if "\x00" in text else text


def guess_mime_type(path: str) -> str:
    """The MIME type for a file name, from Python's built-in table (no system files read)."""
    extension = posixpath.splitext(path)[1].lower()
    return mimetypes.types_map.get(extension, "application/octet-stream")
