"""The optional frontmatter fields skillfs knows: their types, limits and model attributes.

One table serves both validation (what is wrong) and model building (what the skill gets), so
the two can never disagree. ``name`` and ``description`` are the skill's identity and are
checked in :mod:`skills_core.format.validation`.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from skills_core import codes
from skills_core.format.hooks import Hooks, parse_hooks
from skills_core.format.path_patterns import is_broad, pattern_problem, split_outside
from skills_core.format.tool_rules import rule_problem


class FieldProblem(Exception):
    """A field's value is unusable as given.

    Attributes:
        code: WRONG_TYPE or INVALID_VALUE.
        repaired: A faithful repair the model can use, or ``None`` to keep the raw value
            in ``SkillMetadata.extra`` instead.
    """

    def __init__(self, code: str, message: str, repaired: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.repaired = repaired


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "mapping", list: "list", str: "string", bool: "boolean"}.get(
        type(value), type(value).__name__
    )


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise FieldProblem(codes.WRONG_TYPE, f"must be a string, not {_kind(value)}")
    return value


def _boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise FieldProblem(codes.WRONG_TYPE, f"must be true or false, not {_kind(value)}")
    return value


def _space_delimited(value: Any) -> tuple[str, ...]:
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        raise FieldProblem(
            codes.WRONG_TYPE, "must be a space-delimited string, not a list", tuple(value)
        )
    parts = split_outside(_string(value), str.isspace, "(", ")")
    return tuple(part for part in parts if part)


def _tool_rules(value: Any) -> tuple[str, ...]:
    """``allowed-tools``: Claude-style rules, whose parentheses may hold spaces."""
    if not isinstance(value, str):
        _space_delimited(value)  # raises: only a string holds rules
    return _rules_in(value)


@functools.lru_cache(maxsize=1024)
def _rules_in(text: str) -> tuple[str, ...]:
    """The rules of one ``allowed-tools`` string, checked once per distinct text.

    A catalog's skills repeat a few of them (``Read Grep``, ``Bash(git:*)``): each is split and
    parsed once per process, and its skills share one tuple. A problem raises every time.
    """
    rules = tuple(rule.rstrip(",") for rule in _space_delimited(text) if rule.rstrip(","))
    _report_each(rules, rule_problem, "rule")
    return rules


def _report_each(
    items: tuple[str, ...], problem_of: Callable[[str], str | None], noun: str
) -> None:
    """Raise one problem naming every bad item; the items are kept as they are."""
    problems = [f"{noun} {item!r} {problem}" for item in items if (problem := problem_of(item))]
    if problems:
        raise FieldProblem(codes.INVALID_VALUE, "; ".join(problems), items)


def _string_list(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(value)
    raise FieldProblem(
        codes.WRONG_TYPE, f"must be a list of strings or a string, not {_kind(value)}"
    )


def _path_patterns(value: Any) -> tuple[str, ...]:
    """``paths``: a list, or one string of comma-separated globs (commas in braces kept)."""
    if isinstance(value, str):
        parts = split_outside(value, ",".__eq__, "{", "}")
        patterns = tuple(part.strip() for part in parts if part.strip())
    else:
        patterns = _string_list(value)
    _report_each(patterns, pattern_problem, "pattern")
    return patterns


def _broad_paths(patterns: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    return tuple(
        (
            codes.BROAD_PATHS,
            f"pattern {pattern!r} matches every file: the skill applies everywhere, as "
            "without 'paths'",
        )
        for pattern in patterns
        if is_broad(pattern)
    )


def _hooks(value: Any) -> Hooks:
    hooks, problems = parse_hooks(_mapping(value))
    if problems:
        raise FieldProblem(codes.INVALID_VALUE, "is invalid: " + "; ".join(problems), hooks)
    return hooks


def _mapping(value: Any) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise FieldProblem(codes.WRONG_TYPE, f"must be a mapping, not {_kind(value)}")
    return MappingProxyType(value)


def _string_map(value: Any) -> Mapping[str, str]:
    mapping = _mapping(value)
    for key, item in mapping.items():
        if type(key) is not str or type(item) is not str:
            break
    else:
        return mapping
    odd = sorted(
        str(k) for k, v in mapping.items() if not (isinstance(k, str) and isinstance(v, str))
    )
    repaired = MappingProxyType({str(k): str(v) for k, v in mapping.items()})
    raise FieldProblem(
        codes.INVALID_VALUE,
        f"must map strings to strings; converted {', '.join(odd)} to strings",
        repaired,
    )


def _one_of(*choices: str) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        text = _string(value)
        if text not in choices:
            allowed = " or ".join(repr(choice) for choice in choices)
            raise FieldProblem(codes.INVALID_VALUE, f"must be {allowed}, not {text!r}")
        return text

    return check


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """How one optional frontmatter key is checked and where it lands in the model."""

    key: str
    attr: str
    coerce: Callable[[Any], Any]
    max_length: int | None = None
    advise: Callable[[Any], tuple[tuple[str, str], ...]] | None = None
    """Advice on a well-typed value (never an error): ``(code, message)`` pairs."""


FIELDS: Mapping[str, FieldSpec] = {
    spec.key: spec
    for spec in (
        # The agentskills.io specification.
        FieldSpec("license", "license", _string),
        FieldSpec("compatibility", "compatibility", _string, max_length=500),
        FieldSpec("allowed-tools", "allowed_tools", _tool_rules),
        FieldSpec("metadata", "metadata", _string_map),
        # Extensions used by the systems skillfs serves (Eino, adk-rust, echo-execution,
        # Claude-style skills): valid and type-checked, never "unknown".
        FieldSpec("context", "context", _one_of("fork", "fork_with_context")),
        FieldSpec("agent", "agent", _string),
        FieldSpec("model", "model", _string),
        FieldSpec("tags", "tags", _string_list),
        FieldSpec("paths", "paths", _path_patterns, advise=_broad_paths),
        FieldSpec("shell", "shell", _one_of("bash", "powershell")),
        FieldSpec("hooks", "hooks", _hooks),
        FieldSpec("argument-hint", "argument_hint", _string),
        FieldSpec("user-invocable", "user_invocable", _boolean),
        FieldSpec("disable-model-invocation", "disable_model_invocation", _boolean),
    )
}

IDENTITY_KEYS = frozenset({"name", "description"})
DESCRIPTION_MAX_LENGTH = 1024
NAME_MAX_LENGTH = 64
_PLAIN_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")


def is_plain_name(value: Any) -> bool:
    """True for the name almost every skill has: kebab-case ASCII within the length limit."""
    return type(value) is str and len(value) <= NAME_MAX_LENGTH and bool(_PLAIN_NAME.match(value))


_PATH_SEPARATORS = frozenset("/\\")
_LINE_SEPARATORS = frozenset("\u2028\u2029")


def unservable_name_reason(name: str) -> str | None:
    """Why ``name`` (stripped, NFKC) cannot name a skill anywhere, or ``None`` when it can.

    Only what would break a catalog, a prompt or a terminal disqualifies a name: emptiness,
    a path separator, or a control, format or line-separator character. Anything else the
    spec forbids (capitals, underscores, a length over 64) is a warning for lenient catalogs.
    """
    if not name:
        return "it is empty"
    for char in name:
        if char in _PATH_SEPARATORS:
            return f"it holds the path separator {char!r}"
        if char in _LINE_SEPARATORS or unicodedata.category(char)[0] == "C":
            return f"it holds the control character {char!r}"
    return None
