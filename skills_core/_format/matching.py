"""What a skill's ``allowed-tools``, ``paths`` and ``hooks`` match at run time.

The syntax of each: docs/choosing-skills.md; a broken rule or pattern never matches.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any, NamedTuple

# allowed-tools: tool rules

_COMPOUND = re.compile(r"&&|\|\||[;|&\n]")
_SUBSTITUTION = ("$(", "`", "<(", ">(")
_GLOB_CHARS = frozenset("*?[")


class ToolRule(NamedTuple):
    """One ``allowed-tools`` entry: a tool name or glob, and the text inside its parentheses."""

    tool: str
    specifier: str | None = None


def parse_tool_rule(text: str) -> ToolRule:
    """``Bash(git:*)`` -> ``ToolRule("Bash", "git:*")``.

    Raises:
        ValueError: The rule is malformed; the message says how.
    """
    tool, opening, rest = text.partition("(")
    if not tool or not tool.strip() or tool != tool.strip():
        raise ValueError("has no tool name")
    if ")" in tool:
        raise ValueError("has a ')' without '('")
    if not opening:
        return ToolRule(tool)
    if not rest.endswith(")"):
        raise ValueError("is missing its closing ')'")
    specifier = rest[:-1]
    if specifier.count("(") != specifier.count(")"):
        raise ValueError("has unbalanced parentheses")
    if not specifier.strip():
        raise ValueError("has nothing between its parentheses")
    return ToolRule(tool, specifier)


def rule_problem(text: str) -> str | None:
    """Why an ``allowed-tools`` entry can never match, or ``None``."""
    try:
        parse_tool_rule(text)
    except ValueError as exc:
        return str(exc)
    return None


def split_call(tool_name: str) -> tuple[str, str | None]:
    """``Bash(git status)`` -> ``("Bash", "git status")``; a plain name has no detail."""
    rule = _parsed(tool_name)
    return (tool_name, None) if rule is None else (rule.tool, rule.specifier)


def permits_tool(allowed_tools: Sequence[str], tool_name: str, detail: str | None = None) -> bool:
    """True when ``allowed_tools`` (empty permits everything) permits the call.

    Compound commands and command substitutions: docs/choosing-skills.md, ``allowed-tools``.
    """
    if not allowed_tools:
        return True
    if detail is None:
        tool_name, detail = split_call(tool_name)
    rules = [rule for rule in map(_parsed, allowed_tools) if rule and _about(rule.tool, tool_name)]
    if any(rule.specifier in (None, "*") for rule in rules):
        return True  # a rule for the whole tool
    if detail is None or any(marker in detail for marker in _SUBSTITUTION):
        return False
    parts = [part.strip() for part in _COMPOUND.split(detail) if part.strip()]
    regexes = [_specifier_regex(rule.specifier or "") for rule in rules]
    return bool(parts) and all(any(regex.fullmatch(part) for regex in regexes) for part in parts)


def _about(rule_tool: str, tool_name: str) -> bool:
    """True when a rule's tool name or glob names ``tool_name``."""
    if rule_tool in ("*", tool_name):
        return True
    return bool(_GLOB_CHARS & set(rule_tool)) and fnmatch.fnmatchcase(tool_name, rule_tool)


@functools.lru_cache(maxsize=4096)
def _parsed(text: str) -> ToolRule | None:
    try:
        return parse_tool_rule(text)
    except ValueError:
        return None  # a malformed rule permits nothing; validation reports it


@functools.lru_cache(maxsize=4096)
def _specifier_regex(specifier: str) -> re.Pattern[str]:
    if specifier.endswith(":*"):  # the older prefix form: "git:*" is "git *"
        specifier = specifier[:-2] + " *"
    if specifier.endswith(" *") and specifier.count("*") == 1:
        return re.compile(re.escape(specifier[:-2]) + r"(?: .*)?", re.DOTALL)
    return re.compile(".*".join(map(re.escape, specifier.split("*"))), re.DOTALL)


# paths: glob patterns

MAX_ALTERNATIVES = 64  # most patterns one {a,b} expansion may produce

_BROAD_PROBES = ("file", "dir/file.txt", "a/b/c/.hidden", "README")


class _Compiled(NamedTuple):
    regex: re.Pattern[str] | None  # None: the pattern is broken and never matches
    problem: str | None
    basename: bool  # also try the file name alone


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` can never work, or ``None`` when it is usable."""
    return _compile(pattern).problem


def is_broad(pattern: str) -> bool:
    """True when a usable pattern matches every file (``*``, ``**``, ``**/*``)."""
    return all(_matches(pattern, probe) for probe in _BROAD_PROBES)


def validate_paths(patterns: Iterable[str]) -> list[str]:
    """Every warning about ``patterns``: broken ones and ones that match every file."""
    return [
        f"path pattern {pattern!r} {pattern_problem(pattern) or 'matches every file'}"
        for pattern in patterns
        if pattern_problem(pattern) or is_broad(pattern)
    ]


def matches_context_path(patterns: Sequence[str], context_path: str) -> bool:
    """True when ``context_path`` (relative to the project root) matches one of ``patterns``.

    Always true without patterns; backslashes and a leading ``./`` are accepted.
    """
    if not patterns:
        return True
    return any(_matches(pattern, context_path) for pattern in patterns)


def _matches(pattern: str, context_path: str) -> bool:
    compiled = _compile(pattern)
    if compiled.regex is None:
        return False
    parts = context_path.replace("\\", "/").split("/")  # ./src//a.py -> src/a.py
    path = "/".join(part for part in parts if part not in ("", "."))
    if compiled.regex.fullmatch(path):
        return True
    return compiled.basename and bool(compiled.regex.fullmatch(path.rpartition("/")[2]))


@functools.lru_cache(maxsize=4096)
def _compile(pattern: str) -> _Compiled:
    problem = _syntax_problem(pattern)
    if problem is not None:
        return _Compiled(None, problem, False)
    text = pattern[2:] if pattern.startswith("./") else pattern
    anchored = text.startswith("/")
    text = text.strip("/") + ("/**" if text.endswith("/") else "")
    try:
        alternatives = _expand_braces(text)
        regex = "|".join(_translate(alternative) for alternative in alternatives)
    except ValueError as exc:
        return _Compiled(None, str(exc), False)
    basename = not anchored and all("/" not in alternative for alternative in alternatives)
    return _Compiled(re.compile(regex, re.DOTALL), None, basename)


def _syntax_problem(pattern: str) -> str | None:
    if not pattern.strip():
        return "is empty"
    if ".." in pattern.replace("\\", "/").split("/"):
        return "contains '..', which is not allowed"
    if pattern.count("{") != pattern.count("}"):
        return "has unbalanced braces"
    if pattern.count("[") != pattern.count("]"):
        return "has unbalanced brackets"
    return None


def _expand_braces(pattern: str) -> list[str]:
    """``a.{ts,tsx}`` -> ``["a.ts", "a.tsx"]``, nested braces included."""
    results = [pattern]
    done: list[str] = []
    while results:
        text = results.pop()
        span = _first_group(text)
        if span is None:
            done.append(text)
            continue
        start, end = span
        for option in split_outside(text[start + 1 : end], ",".__eq__, "{", "}"):
            results.append(text[:start] + option + text[end + 1 :])
        if len(results) + len(done) > MAX_ALTERNATIVES:
            raise ValueError(f"expands to more than {MAX_ALTERNATIVES} alternatives")
    return sorted(done)


def _first_group(text: str) -> tuple[int, int] | None:
    depth, start = 0, -1
    for index, char in enumerate(text):
        if char == "{":
            if depth == 0:
                start = index
            depth += 1
        elif char == "}":
            depth -= 1
            if depth < 0:
                raise ValueError("has unbalanced braces")
            if depth == 0:
                return start, index
    return None


def split_outside(
    text: str, is_separator: Callable[[str], bool], opening: str, closing: str
) -> list[str]:
    """Split ``text`` at the separators that stand outside ``opening``/``closing`` pairs."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char == opening:
            depth += 1
        elif char == closing and depth:
            depth -= 1
        if depth == 0 and is_separator(char):
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return parts


def _translate(pattern: str) -> str:
    """One brace-free pattern as a regular expression over a normalised path."""
    segments = pattern.split("/")
    out = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            out.append(".*" if last else "(?:[^/]*/)*")
            continue
        if "**" in segment:
            raise ValueError("has '**' inside a segment; use it as a whole segment ('a/**/b')")
        out.append(_translate_segment(segment) + ("" if last else "/"))
    return "".join(out)


def _translate_segment(segment: str) -> str:
    out, index = [], 0
    while index < len(segment):
        char = segment[index]
        index += 1
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            negated = segment[index : index + 1] in ("!", "^")
            start = index + negated
            end = segment.find("]", start + 1)  # a "]" right after "[" or "[!" is literal
            if end < 0:
                raise ValueError("has an unclosed '['")
            members = re.sub(r"([\\\[\]])", r"\\\1", segment[start:end])
            out.append(f"[^/{members}]" if negated else f"[{members}]")
            index = end + 1
        elif char == "\\" and index < len(segment):
            out.append(re.escape(segment[index]))
            index += 1
        else:
            out.append(re.escape(char))
    return "".join(out)


# hooks

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
MAX_TIMEOUT = 300  # seconds
MAX_COMMAND_LENGTH = 32 * 1024
_DECISIONS = ("allow", "deny", "ask")


class HookAction(NamedTuple):
    """One thing a hook does: its type (a key of :data:`HOOK_TYPES`) and its keys as written."""

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
