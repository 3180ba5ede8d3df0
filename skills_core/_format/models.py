"""The skill format's records: a skill, its typed metadata, a problem found, the format's limits."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from types import MappingProxyType
from typing import Any, NamedTuple

from backends._base import FileEntry
from backends._limits import KIB
from skills_core._format.matching import Hooks, matches_context_path, permits_tool

EMPTY_MAPPING: Mapping[str, Any] = MappingProxyType({})


class SkillMetadata(NamedTuple):
    """A skill's frontmatter, typed; each optional field's key is its name with ``-`` for ``_``.

    Missing or wrong-typed fields hold their default; a wrong-typed value is kept verbatim in
    ``extra`` with the unknown fields.
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
        for attr in OPTIONAL_FIELDS:
            value = getattr(self, attr)
            if value is None or value in ((), {}):
                continue
            if attr == "allowed_tools":
                value = " ".join(value)
            elif isinstance(value, Hooks):
                value = dict(value.raw)
            elif isinstance(value, tuple):
                value = list(value)
            elif isinstance(value, Mapping):
                value = dict(value)
            result[attr.replace("_", "-")] = value
        result.update(self.extra)
        return result

    @property
    def model_invocable(self) -> bool:
        """False when ``disable-model-invocation: true``: only a user may invoke the skill."""
        return not self.disable_model_invocation

    def catalog_line(self) -> str:
        """``- name: description``, then ``[activates for: …]`` when the skill has ``paths``."""
        line = f"- {self.name}: {self.description}"
        return f"{line} [activates for: {', '.join(self.paths)}]" if self.paths else line

    def matches_context_path(self, context_path: str) -> bool:
        """True when the skill applies to ``context_path`` (always, without ``paths``)."""
        return matches_context_path(self.paths, context_path)

    def permits_tool(self, tool_name: str, detail: str | None = None) -> bool:
        """True when ``allowed-tools`` (empty: always) permits ``tool_name`` or ``Tool(detail)``.

        ``detail`` is what the call does, for tools that have one: a shell tool's command.
        """
        return permits_tool(self.allowed_tools, tool_name, detail)


OPTIONAL_FIELDS = SkillMetadata._fields[2:-1]
"""The attributes of the optional frontmatter fields, in order."""
METADATA_DEFAULTS = tuple(SkillMetadata._field_defaults.get(attr) for attr in SkillMetadata._fields)
"""A row of :class:`SkillMetadata`'s defaults (``None`` for name and description) to fill."""


@dataclass(frozen=True, slots=True)
class Skill:
    """A loaded skill: metadata, body, where SKILL.md lives, and every file (at ``get``)."""

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


@dataclass(frozen=True, slots=True)
class SkillProblem:
    """One problem with one skill (or with the whole source, when ``name`` is ``None``).

    Validation :meth:`found` it without a name or location; a catalog files it with :meth:`at`
    under the name the skill is served under (else its folder's) and its SKILL.md's location.
    ``code`` is a constant from :mod:`skills_core._codes`; ``field`` the frontmatter key, if any.
    """

    name: str | None
    location: str | None
    code: str
    message: str
    field: str | None = None

    @classmethod
    def found(cls, code: str, message: str, field: str | None = None) -> SkillProblem:
        """A problem found in a frontmatter, before it is known whose it is."""
        return cls(None, None, code, message, field)

    def at(self, name: str | None, location: str) -> SkillProblem:
        """This problem, filed under a skill and its location."""
        return replace(self, name=name, location=location)

    @property
    def subject(self) -> str:
        """What the problem is about, for grouping: the skill's name, else its location."""
        return self.name or self.location or ""

    def __str__(self) -> str:
        return f"{self.location}: {self.message}" if self.location else self.message

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping of the five attributes."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class FormatLimits:
    """The limits of parsing a SKILL.md's frontmatter (docs/limits-and-errors.md)."""

    max_frontmatter_bytes: int = 64 * KIB
    max_yaml_aliases: int = 16
    max_yaml_depth: int = 64


DEFAULT_FORMAT_LIMITS = FormatLimits()
