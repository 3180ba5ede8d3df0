"""Convention files (``AGENTS.md``, ``CLAUDE.md``, …) as SKILL.md documents.

A convention file may carry a frontmatter; most are plain markdown. As adk-rust does, a file
whose frontmatter names the skill and describes it is used as it is; any other becomes a skill
named from its file, tagged ``convention`` and ``agents-md`` / ``claude-md`` / …, described by
its first heading (else its first line, else "Instructions loaded from AGENTS.md"), with the
whole file as its instructions.

This is format work (reading a frontmatter, writing YAML), so it lives here rather than in the
storage backend (:mod:`backends.instruction_files`), which only hands over bytes.
"""

from __future__ import annotations

import json

from backends.errors import LimitExceededError
from skills_core.errors import SkillParseError
from skills_core.format.fields import DESCRIPTION_MAX_LENGTH
from skills_core.format.parsing import parse_frontmatter, split_skill_md

_TAGS = {
    "agents.md": "agents-md",
    "agent.md": "agents-md",
    "claude.md": "claude-md",
    "gemini.md": "gemini-md",
    "copilot.md": "copilot-md",
    "skills.md": "skills-md",
    "soul.md": "soul-md",
}
_FIRST_LINE_CHARACTERS = 120


def convention_skill_md(data: bytes, *, name: str, file_name: str) -> bytes:
    """The SKILL.md a convention file stands for.

    Args:
        data: The file's bytes.
        name: The skill's name when the file has no usable frontmatter.
        file_name: The file's name (``AGENTS.md``), for its tag and fallback description.
    """
    if _has_identity(data, file_name):
        return data
    text = data.decode("utf-8", errors="replace")
    tags = ["convention", _TAGS.get(file_name.lower(), "instructions-md")]
    description = _description(text) or f"Instructions loaded from {file_name}"
    header = (
        f"---\nname: {name}\n"
        f"description: {json.dumps(description[:DESCRIPTION_MAX_LENGTH], ensure_ascii=False)}\n"
        f"tags: [{', '.join(tags)}]\n---\n"
    )
    return header.encode() + data


def _has_identity(data: bytes, location: str) -> bool:
    """True when the file opens with a frontmatter giving a name and a description."""
    if not data.lstrip(b"\xef\xbb\xbf").startswith(b"---"):
        return False
    try:
        source = split_skill_md(data, location=location)
        frontmatter = parse_frontmatter(source.frontmatter, location=location)
    except (SkillParseError, LimitExceededError):
        return False
    return all(isinstance(frontmatter.get(key), str) for key in ("name", "description"))


def _description(text: str) -> str | None:
    """The first heading's text, or the start of the first line that has any text."""
    for line in text.splitlines():
        stripped = "".join(char for char in line.strip() if char.isprintable())
        if not stripped:
            continue
        heading = stripped.lstrip("#").strip()
        if stripped.startswith("#") and heading:
            return heading
        return stripped[:_FIRST_LINE_CHARACTERS]
    return None
