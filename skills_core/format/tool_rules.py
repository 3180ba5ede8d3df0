"""Rules of a skill's ``allowed-tools``: which tool calls the skill permits.

The syntax is Claude Code's permission rules, as echo-execution's ``permits_tool`` reads them:

- ``Read``: every call of the tool ``Read``; ``*``: every call of every tool;
- ``mcp__github__*``: a glob over tool names (``*``, ``?``, ``[abc]``);
- ``Bash(npm run build)``: the call whose detail (for a shell tool, its command) is exactly
  ``npm run build``;
- ``Bash(git *)``: ``*`` matches any text; a single trailing `` *`` also matches nothing, so
  this permits ``git`` and ``git status`` but not ``gitk``; ``Bash(git:*)`` is the older
  spelling of the same rule.

A command joined with ``&&``, ``||``, ``;``, ``|`` or ``&`` is permitted only when every part
is; one holding a command substitution (``$(…)``, backticks, ``<(…)``) only by a rule for the
whole tool. A call may be written ``Bash(git status)`` in one string, as echo-execution does.
An empty ``allowed-tools`` permits everything.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Sequence
from typing import NamedTuple

_COMPOUND = re.compile(r"&&|\|\||[;|&\n]")
_SUBSTITUTION = ("$(", "`", "<(", ">(")
_GLOB_CHARS = frozenset("*?[")


class ToolRule(NamedTuple):
    """One ``allowed-tools`` entry: a tool (name or glob) and what its calls may do.

    Attributes:
        tool: The tool's name, or a glob over names.
        specifier: The text inside the parentheses; ``None`` for every call of the tool.
    """

    tool: str
    specifier: str | None = None

    def allows_tool(self, tool_name: str) -> bool:
        """True when this rule is about ``tool_name``."""
        if self.tool in ("*", tool_name):
            return True
        return bool(_GLOB_CHARS & set(self.tool)) and fnmatch.fnmatchcase(tool_name, self.tool)

    @property
    def whole_tool(self) -> bool:
        """True when the rule permits every call of its tools."""
        return self.specifier is None or self.specifier == "*"

    def allows_detail(self, detail: str) -> bool:
        """True when the specifier admits one simple command (or other call detail)."""
        return (
            self.whole_tool or _specifier_regex(self.specifier or "").fullmatch(detail) is not None
        )


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
    try:
        rule = parse_tool_rule(tool_name)
    except ValueError:
        return tool_name, None
    return rule.tool, rule.specifier


def permits_tool(allowed_tools: Sequence[str], tool_name: str, detail: str | None = None) -> bool:
    """True when ``allowed_tools`` permits calling ``tool_name`` with ``detail``.

    Args:
        allowed_tools: A skill's ``allowed-tools``; empty permits everything.
        tool_name: The tool called, or ``Tool(detail)`` in one string.
        detail: What the call does, when the tool has one: a shell tool's command.
    """
    if not allowed_tools:
        return True
    if detail is None:
        tool_name, detail = split_call(tool_name)
    rules = [rule for rule in map(_parsed, allowed_tools) if rule and rule.allows_tool(tool_name)]
    if any(rule.whole_tool for rule in rules):
        return True
    if detail is None or any(marker in detail for marker in _SUBSTITUTION):
        return False
    parts = [part.strip() for part in _COMPOUND.split(detail) if part.strip()]
    return bool(parts) and all(any(rule.allows_detail(part) for rule in rules) for part in parts)


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
