"""A skill's ``hooks``: parsed and checked so hosts can read them; skillfs never runs them.

The shape is Claude Code's and echo-execution's::

    hooks:
      PreToolUse:
        - matcher: "Bash"            # optional: tool names, '|'-separated, globs allowed
          hooks:
            - type: command
              command: "./scripts/check.sh"
              timeout: 30            # seconds, at most 300

A hook runs code or calls out: whether it may is the host's decision, so skillfs only
exposes the definitions (:class:`Hooks`) with every problem reported at load time.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from skills_core.format.tool_rules import permits_tool

HOOK_EVENTS = frozenset(
    {
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "PostToolBatch",
        "PermissionRequest",
        "PermissionDenied",
        "UserPromptSubmit",
        "Notification",
        "Stop",
        "StopFailure",
        "SubagentStart",
        "SubagentStop",
        "SessionStart",
        "SessionEnd",
        "PreCompact",
        "PostCompact",
        "ConfigChange",
        "InstructionsLoaded",
        "TaskCreated",
        "TaskStarted",
        "TaskCompleted",
    }
)
"""The events hooks may name (echo-execution's list, a superset of Claude Code's)."""

HOOK_TYPES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "command": ("command",),
        "prompt": ("prompt",),
        "http": ("url",),
        "mcp_tool": ("server", "tool"),
        "agent": (),  # a ``name`` or a ``prompt``: checked below
        "permission": ("decision",),
    }
)
"""Each action type and the non-empty strings it requires."""

MAX_TIMEOUT = 300
"""Longest timeout, in seconds, a hook may ask for."""
MAX_COMMAND_LENGTH = 32 * 1024
_DECISIONS = ("allow", "deny", "ask")


class HookAction(NamedTuple):
    """One thing a hook does.

    Attributes:
        type: ``command``, ``prompt``, ``http``, ``mcp_tool``, ``agent`` or ``permission``.
        settings: The action's keys as written (``command``, ``timeout``, …).
    """

    type: str
    settings: Mapping[str, Any]


class HookRule(NamedTuple):
    """Actions run when an event's subject matches ``matcher`` (empty or ``*``: always)."""

    matcher: str
    actions: tuple[HookAction, ...]

    def matches(self, subject: str) -> bool:
        """True when the rule applies to ``subject`` (a tool name for tool events)."""
        if self.matcher in ("", "*"):
            return True
        alternatives = [part.strip() for part in self.matcher.split("|")]
        return permits_tool([part for part in alternatives if part], subject)


class Hooks(Mapping[str, tuple[HookRule, ...]]):
    """A skill's hook definitions by event, as validated; :attr:`raw` is what was written."""

    __slots__ = ("_raw", "_rules")

    def __init__(self, rules: Mapping[str, tuple[HookRule, ...]], raw: Mapping[str, Any]) -> None:
        self._rules = dict(rules)
        self._raw = MappingProxyType(dict(raw))

    def __getitem__(self, event: str) -> tuple[HookRule, ...]:
        return self._rules[event]

    def __iter__(self) -> Iterator[str]:
        return iter(self._rules)

    def __len__(self) -> int:
        return len(self._rules)

    def __repr__(self) -> str:
        return f"Hooks({self._rules!r})"

    @property
    def raw(self) -> Mapping[str, Any]:
        """The ``hooks`` mapping as the frontmatter holds it."""
        return self._raw

    def actions_for(self, event: str, subject: str = "") -> tuple[HookAction, ...]:
        """The actions of every rule of ``event`` that matches ``subject``, in order."""
        rules = self._rules.get(event, ())
        return tuple(action for rule in rules if rule.matches(subject) for action in rule.actions)


def parse_hooks(value: Mapping[Any, Any]) -> tuple[Hooks, list[str]]:
    """The usable hooks of a ``hooks`` mapping, and what is wrong with the rest."""
    problems: list[str] = []
    rules: dict[str, tuple[HookRule, ...]] = {}
    for event, entries in value.items():
        if event not in HOOK_EVENTS:
            problems.append(f"unknown hook event {event!r}")
            continue
        if not isinstance(entries, list):
            problems.append(f"{event} must be a list of rules")
            continue
        parsed = (
            _rule(f"{event}[{index}]", entry, problems) for index, entry in enumerate(entries)
        )
        kept = tuple(rule for rule in parsed if rule is not None)
        if kept:
            rules[event] = kept
    return Hooks(rules, value), problems


def _rule(where: str, entry: Any, problems: list[str]) -> HookRule | None:
    if not isinstance(entry, dict):
        problems.append(f"{where} must be a mapping with 'hooks'")
        return None
    matcher = entry.get("matcher", "")
    if not isinstance(matcher, str):
        problems.append(f"{where}.matcher must be a string")
        return None
    actions = entry.get("hooks")
    if not isinstance(actions, list) or not actions:
        problems.append(f"{where}.hooks must be a non-empty list of actions")
        return None
    checked = [_action(f"{where}.hooks[{i}]", action, problems) for i, action in enumerate(actions)]
    kept = tuple(action for action in checked if action is not None)
    return HookRule(matcher, kept) if kept else None


def _action(where: str, action: Any, problems: list[str]) -> HookAction | None:
    if not isinstance(action, dict):
        problems.append(f"{where} must be a mapping with a 'type'")
        return None
    kind = action.get("type")
    required = HOOK_TYPES.get(kind) if isinstance(kind, str) else None
    if required is None:
        allowed = ", ".join(HOOK_TYPES)
        problems.append(f"{where}.type must be one of {allowed}, not {kind!r}")
        return None
    if kind == "agent":
        required = ("prompt",) if "prompt" in action else ("name",)
    problem = _action_problem(action, required)
    if problem is not None:
        problems.append(f"{where} ({kind}) {problem}")
        return None
    return HookAction(str(kind), MappingProxyType(dict(action)))


def _action_problem(action: Mapping[str, Any], required: tuple[str, ...]) -> str | None:
    for key in required:
        value = action.get(key)
        if not isinstance(value, str) or not value.strip():
            return f"needs a non-empty string {key!r}"
    command = action.get("command")
    if isinstance(command, str) and len(command) > MAX_COMMAND_LENGTH:
        return f"has a command over {MAX_COMMAND_LENGTH} characters"
    if "decision" in required and action["decision"] not in _DECISIONS:
        return f"has decision {action['decision']!r}; it must be allow, deny or ask"
    timeout = action.get("timeout")
    if timeout is not None and (
        type(timeout) not in (int, float) or not 0 < timeout <= MAX_TIMEOUT
    ):
        return f"has timeout {timeout!r}; it must be over 0 and at most {MAX_TIMEOUT} seconds"
    return None
