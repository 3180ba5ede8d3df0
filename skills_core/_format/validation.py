"""The frontmatter's fields and the agentskills.io rules, reporting every problem at once.

One table of the optional fields (:data:`FIELDS`) serves both validation and the typed
metadata. Differences from skills-ref: ``tests/core/test_skills_ref_parity.py``.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

from skills_core import _codes as codes
from skills_core._format.matching import (
    Hooks,
    is_broad,
    parse_hooks,
    pattern_problem,
    rule_problem,
    split_outside,
)
from skills_core._format.models import METADATA_DEFAULTS, SkillMetadata, SkillProblem


class FieldProblem(Exception):
    """A field's value is unusable as given (``WRONG_TYPE`` or ``INVALID_VALUE``).

    ``repaired`` is a faithful repair to use, or ``None`` to keep the raw value in ``extra``.
    """

    def __init__(self, code: str, message: str, repaired: Any = None) -> None:
        super().__init__(message)
        self.code = code
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
    """The rules of one ``allowed-tools`` string (cached: skills repeat a few texts)."""
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
    odd = sorted(str(k) for k, v in mapping.items() if type(k) is not str or type(v) is not str)
    if not odd:
        return mapping
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
    """How one optional frontmatter key is checked, and where it lands in the metadata.

    ``advise`` gives ``(code, message)`` advice (never an error) on a well-typed value.
    """

    key: str
    coerce: Callable[[Any], Any]
    max_length: int | None = None
    advise: Callable[[Any], tuple[tuple[str, str], ...]] | None = None
    attr: str = field(init=False)
    position: int = field(init=False)

    def __post_init__(self) -> None:
        attr = self.key.replace("-", "_")
        object.__setattr__(self, "attr", attr)
        object.__setattr__(self, "position", SkillMetadata._fields.index(attr))


FIELDS: Mapping[str, FieldSpec] = {
    spec.key: spec
    for spec in (
        # The agentskills.io specification.
        FieldSpec("license", _string),
        FieldSpec("compatibility", _string, max_length=500),
        FieldSpec("allowed-tools", _tool_rules),
        FieldSpec("metadata", _string_map),
        # Extensions used by the systems skillfs serves (Eino, adk-rust, echo-execution,
        # Claude-style skills): valid and type-checked, never "unknown".
        FieldSpec("context", _one_of("fork", "fork_with_context")),
        FieldSpec("agent", _string),
        FieldSpec("model", _string),
        FieldSpec("tags", _string_list),
        FieldSpec("paths", _path_patterns, advise=_broad_paths),
        FieldSpec("shell", _one_of("bash", "powershell")),
        FieldSpec("hooks", _hooks),
        FieldSpec("argument-hint", _string),
        FieldSpec("user-invocable", _boolean),
        FieldSpec("disable-model-invocation", _boolean),
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

    Only emptiness, a path separator or a control character disqualifies a name; the spec's
    other rules are warnings for lenient catalogs.
    """
    if not name:
        return "it is empty"
    for char in name:
        if char in _PATH_SEPARATORS:
            return f"it holds the path separator {char!r}"
        if char in _LINE_SEPARATORS or unicodedata.category(char)[0] == "C":
            return f"it holds the control character {char!r}"
    return None


_LONG_BODY_LINES = 500


class ValidationReport(NamedTuple):
    """Every problem found: ``errors`` break the spec, ``warnings`` are advice."""

    errors: tuple[SkillProblem, ...] = ()
    warnings: tuple[SkillProblem, ...] = ()

    @property
    def valid(self) -> bool:
        """True when the skill follows the spec."""
        return not self.errors


_CLEAN = ValidationReport()


class Analysis(NamedTuple):
    """The outcome of checking a frontmatter.

    ``metadata`` is ``None`` only when the skill has no usable name or description; whether
    other errors refuse it is the caller's choice.
    """

    metadata: SkillMetadata | None
    report: ValidationReport


def validate_skill(
    frontmatter: Mapping[str, Any], *, folder_name: str | None = None, body: str | None = None
) -> ValidationReport:
    """Check a parsed frontmatter against the spec (``name`` must equal ``folder_name``).

    A ``body`` gets advice on its length.
    """
    return analyze(frontmatter, folder_name=folder_name, body=body).report


def analyze(
    frontmatter: Mapping[str, Any], *, folder_name: str | None = None, body: str | None = None
) -> Analysis:
    """Validate and build the typed metadata in one pass."""
    errors: list[SkillProblem] = []
    name = _check_name(frontmatter, folder_name, errors)
    description = _check_description(frontmatter, errors)
    row = list(METADATA_DEFAULTS)
    extra: dict[str, Any] = {}
    advice: list[SkillProblem] = []
    for key, value in frontmatter.items():
        spec = FIELDS.get(key)
        if spec is None:
            if key not in IDENTITY_KEYS:
                message = f"unknown field {key!r}"
                errors.append(SkillProblem.found(codes.UNKNOWN_FIELD, message, str(key)))
                extra[str(key)] = value
            continue
        try:
            typed = spec.coerce(value)
        except FieldProblem as problem:
            errors.append(SkillProblem.found(problem.code, f"{key!r} {problem}", key))
            if problem.repaired is None:
                extra[key] = value
                continue
            typed = problem.repaired
        else:
            if spec.max_length is not None and len(value) > spec.max_length:
                errors.append(_too_long(key, len(value), spec.max_length))
        row[spec.position] = typed
        if spec.advise is not None:
            advice += (
                SkillProblem.found(code, f"{key!r} {text}", key)
                for code, text in spec.advise(typed)
            )
    if body is not None:
        advice += _advise(body)
    report = ValidationReport(tuple(errors), tuple(advice)) if errors or advice else _CLEAN
    if name is None or description is None:
        return Analysis(None, report)
    row[0], row[1] = name, description
    if extra:
        row[-1] = MappingProxyType(extra)
    return Analysis(SkillMetadata._make(row), report)


def _check_name(
    frontmatter: Mapping[str, Any], folder_name: str | None, errors: list[SkillProblem]
) -> str | None:
    """Record every problem with ``name``; return the skill's identity, or ``None``.

    A missing name falls back to the folder; only a name that is not a string or that no
    catalog can serve (:func:`unservable_name_reason`) leaves none.
    """
    value = frontmatter.get("name")
    if is_plain_name(value) and folder_name in (None, value):
        return value  # the common case: kebab-case, as its folder
    if value is None:
        errors.append(
            SkillProblem.found(codes.NAME_MISSING, "missing required field 'name'", "name")
        )
        return folder_name
    if not isinstance(value, str):
        message = f"'name' must be a string, not {type(value).__name__}"
        errors.append(SkillProblem.found(codes.NAME_INVALID, message, "name"))
        return None
    name = unicodedata.normalize("NFKC", value.strip())
    unservable = unservable_name_reason(name)
    if unservable is not None:
        message = f"'name' {name!r} cannot name a skill: {unservable}"
        errors.append(SkillProblem.found(codes.NAME_INVALID, message, "name"))
        return None
    problems = []
    if len(name) > NAME_MAX_LENGTH:
        problems.append(f"'name' is {len(name)} characters, over the {NAME_MAX_LENGTH} limit")
    if name != name.lower():
        problems.append(f"'name' {name!r} must be lowercase")
    if name.startswith("-") or name.endswith("-"):
        problems.append(f"'name' {name!r} must not start or end with a hyphen")
    if "--" in name:
        problems.append(f"'name' {name!r} must not contain consecutive hyphens")
    if not all(char.isalnum() or char == "-" for char in name):
        problems.append(f"'name' {name!r} may hold only letters, digits and hyphens")
    errors.extend(SkillProblem.found(codes.NAME_INVALID, message, "name") for message in problems)
    if folder_name is not None and unicodedata.normalize("NFKC", folder_name) != name:
        message = f"'name' {name!r} must equal its folder name {folder_name!r}"
        errors.append(SkillProblem.found(codes.NAME_MISMATCH, message, "name"))
    return name


def _check_description(frontmatter: Mapping[str, Any], errors: list[SkillProblem]) -> str | None:
    value = frontmatter.get("description")
    if value is not None and not isinstance(value, str):
        message = f"'description' must be a string, not {type(value).__name__}"
        errors.append(SkillProblem.found(codes.DESCRIPTION_INVALID, message, "description"))
        return None
    if value is None or not value.strip():
        message = "missing required field 'description'"
        errors.append(SkillProblem.found(codes.DESCRIPTION_MISSING, message, "description"))
        return None
    if len(value) > DESCRIPTION_MAX_LENGTH:
        errors.append(_too_long("description", len(value), DESCRIPTION_MAX_LENGTH))
    return value.strip()


def _too_long(key: str, length: int, limit: int) -> SkillProblem:
    return SkillProblem.found(
        codes.TOO_LONG, f"{key!r} is {length} characters, over the {limit} limit", key
    )


EMPTY_BODY = SkillProblem.found(
    codes.EMPTY_BODY, "SKILL.md has no instructions after the frontmatter"
)


def _advise(body: str) -> tuple[SkillProblem, ...]:
    if not body.strip():
        return (EMPTY_BODY,)
    lines = body.count("\n") + 1
    if lines > _LONG_BODY_LINES:
        message = f"body is {lines} lines; the spec advises under {_LONG_BODY_LINES}"
        return (SkillProblem.found(codes.LONG_BODY, message),)
    return ()
