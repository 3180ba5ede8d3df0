"""What a loaded skill is: its frontmatter as typed metadata, its body, where it lives.

Metadata is a named tuple: immutable, shared by readers without copying, and light enough that
a catalog of 10,000 skills costs less memory than google-adk's pydantic models of the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, NamedTuple

from backends.base import FileEntry
from skills_core.format.fields import FIELDS
from skills_core.format.hooks import Hooks
from skills_core.format.path_patterns import matches_context_path
from skills_core.format.tool_rules import permits_tool

EMPTY_MAPPING: Mapping[str, Any] = MappingProxyType({})


class SkillMetadata(NamedTuple):
    """A skill's frontmatter, typed.

    Fields that are missing, or whose value had the wrong type, hold their default; a
    wrong-typed value is kept verbatim in ``extra`` with unknown fields, so nothing is lost.
    """

    name: str
    description: str
    license: str | None = None
    compatibility: str | None = None
    allowed_tools: tuple[str, ...] = ()
    metadata: Mapping[str, str] = EMPTY_MAPPING
    context: str | None = None
    agent: str | None = None
    model: str | None = None
    tags: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    shell: str | None = None
    hooks: Hooks | None = None
    argument_hint: str | None = None
    user_invocable: bool | None = None
    disable_model_invocation: bool | None = None
    extra: Mapping[str, Any] = EMPTY_MAPPING

    def to_frontmatter(self) -> dict[str, Any]:
        """The fields that are set, under their frontmatter keys, ready to dump as YAML."""
        result: dict[str, Any] = {"name": self.name, "description": self.description}
        for spec in FIELDS.values():
            value = getattr(self, spec.attr)
            if value is None or value in ((), {}):
                continue
            if spec.key == "allowed-tools":
                value = " ".join(value)
            elif isinstance(value, Hooks):
                value = dict(value.raw)
            elif isinstance(value, tuple):
                value = list(value)
            elif isinstance(value, Mapping):
                value = dict(value)
            result[spec.key] = value
        result.update(self.extra)
        return result

    @property
    def model_invocable(self) -> bool:
        """False when ``disable-model-invocation: true``: only a user may invoke the skill.

        Such a skill is left out of everything a model reads to choose skills (catalog,
        listing, search, automatic injection) but still loads by name.
        """
        return not self.disable_model_invocation

    def catalog_line(self) -> str:
        """``- name: description``, then ``[activates for: …]`` when the skill has ``paths``."""
        line = f"- {self.name}: {self.description}"
        return f"{line} [activates for: {', '.join(self.paths)}]" if self.paths else line

    def matches_context_path(self, context_path: str) -> bool:
        """True when the skill applies to ``context_path`` (always, without ``paths``).

        See :mod:`skills_core.format.path_patterns` for the pattern syntax.
        """
        return matches_context_path(self.paths, context_path)

    def permits_tool(self, tool_name: str, detail: str | None = None) -> bool:
        """True when ``allowed-tools`` permits the call (always, when it is empty).

        Args:
            tool_name: The tool called, or ``Tool(detail)`` in one string.
            detail: What the call does, for tools that have one: a shell tool's command.

        See :mod:`skills_core.format.tool_rules` for the rule syntax (Claude Code's).
        """
        return permits_tool(self.allowed_tools, tool_name, detail)


@dataclass(frozen=True, slots=True)
class Skill:
    """A loaded skill: metadata, instructions and the files it holds.

    Attributes:
        metadata: The typed frontmatter.
        body: The markdown instructions after the frontmatter.
        location: Where SKILL.md lives.
        files: Every file of the skill folder (SKILL.md included), at the time of ``get``.
    """

    metadata: SkillMetadata
    body: str
    location: str
    files: tuple[FileEntry, ...] = ()

    @property
    def name(self) -> str:
        """The skill's name."""
        return self.metadata.name

    @property
    def description(self) -> str:
        """What the skill does and when to use it."""
        return self.metadata.description


__all__ = ["Skill", "SkillMetadata"]
