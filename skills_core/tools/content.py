"""How skills and resources are shown to a model: loaded content, text versus binary files."""

from __future__ import annotations

import base64
import hashlib
import os
import pathlib
from collections.abc import Awaitable, Callable

from backends.paths import SKILL_MD_NAMES
from skills_core.format.models import Skill
from skills_core.tools.filetypes import Delivery, as_text, binary_kind, guess_mime_type
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


def skill_uri(skill_md_location: str) -> str:
    """The skill folder as a URI, as google-adk's telemetry records it (``file://`` locally)."""
    folder = base_location(skill_md_location)
    if "://" not in folder and os.path.isabs(folder):
        return pathlib.Path(folder).as_uri()
    return folder


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


def resource_result(
    skill_name: str, path: str, data: bytes, *, as_bytes: bool = False, inline: bool = False
) -> ToolResult:
    """What ``load_skill_resource`` returns for a file, as :mod:`.filetypes` decides.

    Text comes as ``content``. A binary file is described (type, size, sha256, how to get it)
    unless ``as_bytes`` asks for its bytes, or ``inline`` says the adapter sends the files a
    model reads (images, audio, video, PDF) as inline data: either puts its base64 in
    ``content_base64``, which the adapter takes out (ADK as inline data, MCP as a blob).
    """
    result: ToolResult = {"skill_name": skill_name, "file_path": path, "size": len(data)}
    text = as_text(data)
    if text is not None:
        result["content"] = text  # text results keep their shape: no "delivery" key
        return result
    mime_type = guess_mime_type(path)
    kind = binary_kind(mime_type)
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
