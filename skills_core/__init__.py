"""skills_core: parse, validate and serve Agent Skills from any backend.

>>> from backends import open_backend
>>> from skills_core import SkillCatalog
>>> catalog = SkillCatalog(open_backend("./skills"))
>>> report = await catalog.refresh()  # doctest: +SKIP

The public names are imported on first use, so importing a submodule (the ``skillfs`` CLI
starts with ``skills_core.cli``) does not load the catalog and its backends.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from backends.limits import DEFAULT_LIMITS, Limits
    from skills_core.bundle import Bundle, build_bundle, write_bundle
    from skills_core.catalog import SkillCatalog
    from skills_core.errors import (
        InvalidSkillsError,
        SkillfsError,
        SkillParseError,
        SkillValidationError,
        YamlLimitError,
    )
    from skills_core.models import FileEntry, Skill, SkillMetadata, SkillRef
    from skills_core.parsing import ParsedSkillMd, parse_skill_md
    from skills_core.report import ReloadReport, SkillProblem
    from skills_core.validation import Issue, ValidationReport, validate_skill

_EXPORTS = {
    "DEFAULT_LIMITS": "backends.limits",
    "Bundle": "skills_core.bundle",
    "FileEntry": "skills_core.models",
    "InvalidSkillsError": "skills_core.errors",
    "Issue": "skills_core.validation",
    "Limits": "backends.limits",
    "ParsedSkillMd": "skills_core.parsing",
    "ReloadReport": "skills_core.report",
    "Skill": "skills_core.models",
    "SkillCatalog": "skills_core.catalog",
    "SkillMetadata": "skills_core.models",
    "SkillParseError": "skills_core.errors",
    "SkillProblem": "skills_core.report",
    "SkillRef": "skills_core.models",
    "SkillValidationError": "skills_core.errors",
    "SkillfsError": "skills_core.errors",
    "ValidationReport": "skills_core.validation",
    "YamlLimitError": "skills_core.errors",
    "build_bundle": "skills_core.bundle",
    "parse_skill_md": "skills_core.parsing",
    "validate_skill": "skills_core.validation",
    "write_bundle": "skills_core.bundle",
}

__all__ = [
    "DEFAULT_LIMITS",
    "Bundle",
    "FileEntry",
    "InvalidSkillsError",
    "Issue",
    "Limits",
    "ParsedSkillMd",
    "ReloadReport",
    "Skill",
    "SkillCatalog",
    "SkillMetadata",
    "SkillParseError",
    "SkillProblem",
    "SkillRef",
    "SkillValidationError",
    "SkillfsError",
    "ValidationReport",
    "YamlLimitError",
    "build_bundle",
    "parse_skill_md",
    "validate_skill",
    "write_bundle",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'skills_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
