"""The agentskills.io rules, reporting every problem at once.

Verdicts match skills-ref 0.1.1 (the reference implementation) except where skillfs refuses
more on purpose (wrong YAML types, limits) and where it knows extension fields; the
differential test in ``tests/core/test_skills_ref_parity.py`` lists each difference.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from skills_core import codes
from skills_core.format.fields import (
    DESCRIPTION_MAX_LENGTH,
    FIELDS,
    IDENTITY_KEYS,
    NAME_MAX_LENGTH,
    FieldProblem,
    is_plain_name,
    unservable_name_reason,
)
from skills_core.format.models import SkillMetadata
from skills_core.format.problems import SkillProblem

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

    Attributes:
        metadata: The typed metadata, or ``None`` when the skill has no usable name or
            description. Other errors leave it built: whether they refuse the skill is the
            caller's choice (a strict catalog refuses, a lenient one warns).
        report: Every problem found.
    """

    metadata: SkillMetadata | None
    report: ValidationReport


def validate_skill(
    frontmatter: Mapping[str, Any], *, folder_name: str | None = None, body: str | None = None
) -> ValidationReport:
    """Check a parsed frontmatter (and optionally its body) against the spec.

    Args:
        frontmatter: The YAML mapping from SKILL.md.
        folder_name: The skill's folder name, which ``name`` must equal.
        body: The markdown body, for advice on its length.
    """
    return analyze(frontmatter, folder_name=folder_name, body=body).report


def analyze(
    frontmatter: Mapping[str, Any], *, folder_name: str | None = None, body: str | None = None
) -> Analysis:
    """Validate and build the typed metadata in one pass."""
    errors: list[SkillProblem] = []
    name = _check_name(frontmatter, folder_name, errors)
    description = _check_description(frontmatter, errors)
    values: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    advice: list[SkillProblem] = []
    for key, value in frontmatter.items():
        if key in IDENTITY_KEYS:
            continue
        spec = FIELDS.get(key)
        if spec is None:
            errors.append(
                SkillProblem.found(codes.UNKNOWN_FIELD, f"unknown field {key!r}", str(key))
            )
            extra[str(key)] = value
            continue
        try:
            typed = spec.coerce(value)
        except FieldProblem as problem:
            errors.append(SkillProblem.found(problem.code, f"{key!r} {problem.message}", key))
            if problem.repaired is None:
                extra[key] = value
                continue
            typed = problem.repaired
        else:
            if spec.max_length is not None and len(value) > spec.max_length:
                errors.append(_too_long(key, len(value), spec.max_length))
        values[spec.attr] = typed
        if spec.advise is not None:
            advice += (
                SkillProblem.found(code, f"{key!r} {text}", key)
                for code, text in spec.advise(typed)
            )
    warnings = (*advice, *_advise(body))
    report = ValidationReport(tuple(errors), warnings) if errors or warnings else _CLEAN
    if name is None or description is None:
        return Analysis(None, report)
    if extra:
        values["extra"] = MappingProxyType(extra)
    metadata = SkillMetadata(name=name, description=description, **values)
    return Analysis(metadata, report)


def _check_name(
    frontmatter: Mapping[str, Any], folder_name: str | None, errors: list[SkillProblem]
) -> str | None:
    """Record every problem with ``name``; return the skill's identity, or ``None``.

    The identity survives every spec violation a lenient catalog tolerates: a missing name
    falls back to the folder, and a name that breaks the spec's pattern or differs from its
    folder is still the name. Only a name that is not a string, or that no catalog can serve
    (see :func:`~skills_core.format.fields.unservable_name_reason`), leaves none.
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


def _advise(body: str | None) -> tuple[SkillProblem, ...]:
    if body is None:
        return ()
    if not body.strip():
        return (EMPTY_BODY,)
    lines = body.count("\n") + 1
    if lines > _LONG_BODY_LINES:
        message = f"body is {lines} lines; the spec advises under {_LONG_BODY_LINES}"
        return (SkillProblem.found(codes.LONG_BODY, message),)
    return ()
