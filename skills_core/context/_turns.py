"""A skill chosen for a turn without the model: injected before a message, or coordinated.

Injection is adk-rust's ``SkillInjector``, the coordinator its ``ContextCoordinator`` (a skill
reaches the model only with the tools it names); docs/choosing-skills.md tells both formats.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Generic, Protocol, TypeVar

from skills_core._catalog.catalog import SkillCatalog
from skills_core._format.matching import split_call
from skills_core.context._derived import skill_body
from skills_core.context._search import rank_skills
from skills_core.context._selection import (
    SelectionPolicy,
    Selector,
    SkillMatch,
    model_choices,
    skill_tags,
)

DEFAULT_MAX_INJECTED_CHARS = 2_000
"""adk-rust's default cut of an injected body."""


class TextPart(Protocol):
    """A message part that may hold text."""

    text: str | None


class Message(Protocol):
    """A chat message: google-genai's ``types.Content`` fits."""

    @property
    def role(self) -> str | None:
        """Who sent it: ``"user"``, ``"model"``..."""

    @property
    def parts(self) -> Sequence[TextPart] | None:
        """Its parts, text or not."""


_DELIMITER = re.compile(r"\[(?=\s*/?\s*skill\b)", re.IGNORECASE)


def escape_block_delimiters(text: str) -> str:
    r"""``text`` with every ``[skill`` or ``[/skill`` (any case, spaces allowed) made ``[\...``.

    So a skill's text can neither close its block nor open another.
    """
    return _DELIMITER.sub(r"[\\", text)  # a template's two backslashes write one


def select_skill_prompt_block(
    catalog: SkillCatalog,
    query: str,
    policy: SelectionPolicy | None = None,
    max_chars: int = DEFAULT_MAX_INJECTED_CHARS,
    *,
    selector: Selector = rank_skills,
) -> tuple[SkillMatch, str] | None:
    """The top match for ``query`` and its block (docs/choosing-skills.md), or ``None``."""
    for match in model_choices(selector, catalog, query, policy)[:1]:
        body = skill_body(catalog, match.name)
        if body is not None:  # None: removed by a refresh since it was selected
            name = escape_block_delimiters(match.name)
            return match, f"[skill:{name}]\n{escape_block_delimiters(body[:max_chars])}\n[/skill]"
    return None


def message_text(message: Message) -> str:
    """The text parts of a message joined by newlines."""
    return "\n".join(part.text for part in message.parts or () if part.text is not None)


def apply_skill_injection(
    message: Message,
    catalog: SkillCatalog,
    policy: SelectionPolicy | None = None,
    max_chars: int = DEFAULT_MAX_INJECTED_CHARS,
    *,
    selector: Selector = rank_skills,
) -> SkillMatch | None:
    """Put the best skill's block before a user message's first text part, in place.

    Returns:
        The match injected, or ``None`` (message left as it was).
    """
    if message.role != "user":
        return None
    query = message_text(message)
    if not query.strip():
        return None
    selected = select_skill_prompt_block(catalog, query, policy, max_chars, selector=selector)
    if selected is None:
        return None
    match, block = selected
    first = next(part for part in message.parts or () if part.text is not None)
    first.text = f"{block}\n\n{first.text}"
    return match


DEFAULT_MAX_INSTRUCTION_CHARS = 8_000
"""adk-rust's default cap on the body in a system instruction."""

TRUNCATED = "\n[... truncated]"


class NamedTool(Protocol):
    """Anything with a name a model calls it by (an ADK ``BaseTool`` fits)."""

    @property
    def name(self) -> str:
        """The tool's name."""


ToolT = TypeVar("ToolT", bound=NamedTool)
ToolT_co = TypeVar("ToolT_co", bound=NamedTool, covariant=True)


class ToolRegistry(Protocol[ToolT_co]):
    """Maps tool names (from ``allowed-tools``) to the tools a host can bind."""

    def resolve(self, tool_name: str) -> ToolT_co | None:
        """The tool called ``tool_name``, or ``None`` when the host has none."""


class ToolMap(Generic[ToolT]):
    """A :class:`ToolRegistry` of given tools, by name (the first of a name wins)."""

    def __init__(self, tools: Iterable[ToolT]) -> None:
        self._tools: dict[str, ToolT] = {}
        for tool in tools:
            self._tools.setdefault(tool.name, tool)

    def __repr__(self) -> str:
        return f"ToolMap({', '.join(self._tools)})"

    @property
    def tools(self) -> Mapping[str, ToolT]:
        """The tools by name."""
        return self._tools

    def resolve(self, tool_name: str) -> ToolT | None:
        """The tool called ``tool_name``."""
        return self._tools.get(tool_name)


class ValidationMode(enum.Enum):
    """What to do with a skill whose ``allowed-tools`` do not all resolve."""

    STRICT = "strict"
    """Refuse the skill; the next candidate is tried."""
    PERMISSIVE = "permissive"
    """Bind the tools that resolve and leave the others out."""


@dataclass(frozen=True, slots=True)
class CoordinatorConfig:
    """How a :class:`ContextCoordinator` chooses and frames skills.

    A ranked candidate of ``policy`` must also be strong, unless ``min_score`` is set.
    """

    policy: SelectionPolicy = field(default_factory=SelectionPolicy)
    max_instruction_chars: int = DEFAULT_MAX_INSTRUCTION_CHARS
    validation_mode: ValidationMode = ValidationMode.STRICT
    selector: Selector = rank_skills


@dataclass(frozen=True, slots=True)
class ByName:
    """Resolve the skill of this name, unscored (a user-only one too: a name is a choice made)."""

    name: str


@dataclass(frozen=True, slots=True)
class ByQuery:
    """Resolve the best-scored skill for this query."""

    query: str


@dataclass(frozen=True, slots=True)
class ByTag:
    """Resolve a skill carrying this tag (in name order)."""

    tag: str


Strategy = ByName | ByQuery | ByTag


@dataclass(frozen=True, slots=True)
class SkillContext(Generic[ToolT]):
    """One skill, ready for a model: what to tell it and which tools to bind.

    ``active_tools`` are exactly those the instruction names; ``provenance`` is the match that
    chose the skill (``inf`` score by name); ``missing_tools`` were left unbound (permissive).
    """

    system_instruction: str
    active_tools: tuple[ToolT, ...]
    provenance: SkillMatch
    missing_tools: tuple[str, ...] = ()

    @property
    def skill_name(self) -> str:
        """The chosen skill's name."""
        return self.provenance.name


def engineer_instruction(
    match: SkillMatch, body: str, tool_names: Sequence[str], max_chars: int
) -> str:
    """The crate's system instruction for a skill (body cut, marked :data:`TRUNCATED`)."""
    name = escape_block_delimiters(match.name)
    description = escape_block_delimiters(match.description)
    cut = TRUNCATED if len(body) > max_chars else ""
    body = escape_block_delimiters(body[:max_chars]) + cut
    parts = [f"[skill:{name}]", f"# {name}\n{description}"]
    if tool_names:
        parts.append(f"You have access to the following tools: {', '.join(tool_names)}.")
    parts += [f"## Instructions\n{body}", "[/skill]"]
    return "\n\n".join(parts)


class ContextCoordinator(Generic[ToolT]):
    """Turns a query, a name or a tag into a :class:`SkillContext` whose tools are all bound.

    An ``allowed-tools`` rule such as ``Bash(git:*)`` binds ``Bash`` when no tool has its name.
    """

    def __init__(
        self,
        catalog: SkillCatalog,
        tool_registry: ToolRegistry[ToolT],
        config: CoordinatorConfig | None = None,
    ) -> None:
        self.catalog = catalog
        self.config = config or CoordinatorConfig()
        self._registry = tool_registry

    def build_context(self, query: str) -> SkillContext[ToolT] | None:
        """The best candidate for ``query`` whose tools can be bound, or ``None``."""
        config = self.config
        return self._first(model_choices(config.selector, self.catalog, query, config.policy))

    def build_context_by_name(self, name: str) -> SkillContext[ToolT] | None:
        """The skill called ``name``, unscored; ``None`` when absent or its tools are not."""
        entry = self.catalog.snapshot.loaded.get(name)
        if entry is None or entry.metadata is None:
            return None
        metadata = entry.metadata
        match = SkillMatch(name, math.inf, entry.location, metadata, skill_tags(metadata))
        return self._first([match])

    def build_context_by_tag(self, tag: str) -> SkillContext[ToolT] | None:
        """A skill carrying ``tag`` (by name among the first ``top_k``) whose tools resolve."""
        config = self.config
        policy = replace(config.policy, include_tags=(tag,), exclude_tags=(), min_score=0.0)
        return self._first(model_choices(config.selector, self.catalog, "", policy))

    def resolve(self, strategies: Iterable[Strategy]) -> SkillContext[ToolT] | None:
        """The first strategy that yields a context: ``[ByName(...), ByQuery(...), ByTag(...)]``."""
        for strategy in strategies:
            if isinstance(strategy, ByName):
                context = self.build_context_by_name(strategy.name)
            elif isinstance(strategy, ByQuery):
                context = self.build_context(strategy.query)
            else:
                context = self.build_context_by_tag(strategy.tag)
            if context is not None:
                return context
        return None

    def _first(self, candidates: Iterable[SkillMatch]) -> SkillContext[ToolT] | None:
        return next((c for c in map(self._try, candidates) if c is not None), None)

    def _try(self, match: SkillMatch) -> SkillContext[ToolT] | None:
        """``match`` with its tools bound, or ``None`` (strict and a tool is missing)."""
        bound: dict[str, ToolT] = {}
        missing: list[str] = []
        for entry in dict.fromkeys(match.metadata.allowed_tools):
            tool = self._registry.resolve(entry)
            name, detail = split_call(entry)
            if tool is None and detail is not None:
                tool = self._registry.resolve(name)
            if tool is None:
                missing.append(entry)
            else:
                bound.setdefault(tool.name, tool)
        if missing and self.config.validation_mode is ValidationMode.STRICT:
            return None
        body = skill_body(self.catalog, match.name)
        if body is None:  # removed by a refresh since it was selected
            return None
        instruction = engineer_instruction(
            match, body, list(bound), self.config.max_instruction_chars
        )
        return SkillContext(instruction, tuple(bound.values()), match, tuple(missing))
