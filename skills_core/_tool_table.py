"""The skill tools, declared once: names (google-adk's), descriptions and JSON-schema arguments.

Every adapter declares its tools from :data:`TOOLS`; :class:`ToolNames` is the one place a tool
is renamed. This module imports nothing of skillfs, so every layer may read it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

LIST_SKILLS = "list_skills"
SEARCH_SKILLS = "search_skills"
LOAD_SKILL = "load_skill"
LOAD_SKILL_RESOURCE = "load_skill_resource"
RUN_SKILL_SCRIPT = "run_skill_script"

Schema = Mapping[str, Any]

SKILL_NAME: Schema = {"type": "string", "description": "The name of the skill."}

MAX_ENUM_SKILLS = 200
"""Most skills whose names the skill-name argument lists as an ``enum`` (else any string)."""
FILE_PATH: Schema = {
    "type": "string",
    "description": "A file's path inside the skill, e.g. 'references/guide.md' or "
    "'scripts/build.py'.",
}
AS_BYTES: Schema = {
    "type": "boolean",
    "description": "Set true to receive a binary file that is only described (a font, an "
    "archive...) as base64 bytes.",
}
SCRIPT_ARGS: Schema = {
    "anyOf": [
        {"type": "array", "items": {"type": "string"}},
        {"type": "object"},
    ],
    "description": "Arguments: a list of strings, or an object of long options "
    "({'pages': 3, 'verbose': true} gives --pages 3 --verbose).",
}
SECTION: Schema = {
    "type": "string",
    "description": "Read only this section of a long skill: a heading from 'sections', "
    "e.g. '## Forms' (a repeated heading is numbered there, e.g. '## Usage#2').",
}
OFFSET: Schema = {
    "type": "integer",
    "description": "Read a long skill's instructions from this character on: the "
    "'next_offset' of the previous reply.",
}
QUERY: Schema = {
    "type": "string",
    "description": "What the skill should do, in a few words.",
}
LIMIT: Schema = {
    "type": "integer",
    "description": "How many skills at most (1-20, default 5).",
}
REQUEST: Schema = {
    "type": "string",
    "description": "For skills that run in a sub-agent: what it should do (defaults to the "
    "user's latest message).",
}
"""``load_skill``'s extra argument where an adapter runs fork-mode skills (ADK)."""


@dataclass(frozen=True, slots=True)
class ToolDeclaration:
    """One skill tool as a model sees it: its default name, description and arguments."""

    name: str
    description: str
    parameters: Mapping[str, Schema]
    required: tuple[str, ...] = ()

    def input_schema(self, skill_names: Sequence[str] | None = None) -> dict[str, Any]:
        """The arguments as one JSON-schema object, ``skill_names`` as :func:`with_skill_names`."""
        parameters = self.parameters
        if skill_names is not None:
            parameters = with_skill_names(parameters, skill_names)
        return {"type": "object", "properties": dict(parameters), "required": list(self.required)}

    def with_parameters(self, **parameters: Schema) -> ToolDeclaration:
        """This tool with optional arguments only one adapter understands added."""
        return replace(self, parameters={**self.parameters, **parameters})

    def arguments(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """A call's declared arguments: required ones (``None`` if missing), others if given."""
        return {
            key: given.get(key) for key in self.parameters if key in self.required or key in given
        }


def skill_name_enum(names: Sequence[str]) -> list[str] | None:
    """The skill-name ``enum``: ``names`` if 1 to :data:`MAX_ENUM_SKILLS`, else ``None``."""
    return list(names) if 0 < len(names) <= MAX_ENUM_SKILLS else None


def with_skill_names(parameters: Mapping[str, Schema], names: Sequence[str]) -> dict[str, Schema]:
    """``parameters`` with the skill-name argument limited by :func:`skill_name_enum`."""
    shown = dict(parameters)
    enum = skill_name_enum(names)
    if "skill_name" in shown and enum is not None:
        shown["skill_name"] = {**shown["skill_name"], "enum": enum}
    return shown


TOOLS: Mapping[str, ToolDeclaration] = {
    declaration.name: declaration
    for declaration in (
        ToolDeclaration(LIST_SKILLS, "Lists the skills you can load, with what each is for.", {}),
        ToolDeclaration(
            SEARCH_SKILLS,
            "Finds the skills that fit a request, best first: give the request's key words "
            "as `query`. Each result has a `strength`: `strong` fits the request well; `weak` "
            "only shares some words with it, so read its description and load it only if it "
            "really fits. An empty result means no skill shares a word with the request.",
            {"query": QUERY, "limit": LIMIT},
            ("query",),
        ),
        ToolDeclaration(
            LOAD_SKILL,
            "Loads a skill's instructions (its SKILL.md body), where it lives and its files. "
            "A long skill comes in parts: the reply then lists the headings left out "
            "('sections') and where to read on ('next_offset').",
            {"skill_name": SKILL_NAME, "section": SECTION, "offset": OFFSET},
            ("skill_name",),
        ),
        ToolDeclaration(
            LOAD_SKILL_RESOURCE,
            "Reads one file of a skill: text as text; images, audio, video and PDF as data "
            "the model can see; other binary files (fonts, archives...) are described unless "
            "as_bytes is true. A folder's path lists that folder.",
            {"skill_name": SKILL_NAME, "file_path": FILE_PATH, "as_bytes": AS_BYTES},
            ("skill_name", "file_path"),
        ),
        ToolDeclaration(
            RUN_SKILL_SCRIPT,
            "Runs one of a skill's scripts and returns its exit code and output.",
            {"skill_name": SKILL_NAME, "file_path": FILE_PATH, "args": SCRIPT_ARGS},
            ("skill_name", "file_path"),
        ),
    )
}
"""Every skill tool, by default name, in the order adapters offer them."""


@dataclass(frozen=True, slots=True)
class ToolNames:
    """What each skill tool is called; rename any (``ToolNames(load_skill="skill")``)."""

    list_skills: str = LIST_SKILLS
    load_skill: str = LOAD_SKILL
    load_skill_resource: str = LOAD_SKILL_RESOURCE
    run_skill_script: str = RUN_SKILL_SCRIPT
    search_skills: str = SEARCH_SKILLS

    def prefixed(self, prefix: str | None) -> ToolNames:
        """The names as the model sees them under an ADK ``tool_name_prefix``."""
        if not prefix:
            return self
        return ToolNames(*(f"{prefix}_{name}" for name in dataclasses.astuple(self)))


DEFAULT_NAMES = ToolNames()
"""google-adk's names, which the MCP server always uses."""
