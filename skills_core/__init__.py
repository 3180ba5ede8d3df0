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
    from skills_core.bundle.writer import Bundle, build_bundle, write_bundle
    from skills_core.catalog.catalog import SkillCatalog
    from skills_core.catalog.report import ReloadReport, SkillProblem
    from skills_core.errors import (
        InvalidSkillsError,
        SkillfsError,
        SkillParseError,
        SkillValidationError,
        YamlLimitError,
    )
    from skills_core.format.models import FileEntry, Skill, SkillMetadata, SkillRef
    from skills_core.format.parsing import ParsedSkillMd, parse_skill_md
    from skills_core.format.validation import Issue, ValidationReport, validate_skill

_EXPORTS = {
    "DEFAULT_LIMITS": "backends.limits",
    "Bundle": "skills_core.bundle.writer",
    "FileEntry": "skills_core.format.models",
    "InvalidSkillsError": "skills_core.errors",
    "Issue": "skills_core.format.validation",
    "Limits": "backends.limits",
    "ParsedSkillMd": "skills_core.format.parsing",
    "ReloadReport": "skills_core.catalog.report",
    "Skill": "skills_core.format.models",
    "SkillCatalog": "skills_core.catalog.catalog",
    "SkillMetadata": "skills_core.format.models",
    "SkillParseError": "skills_core.errors",
    "SkillProblem": "skills_core.catalog.report",
    "SkillRef": "skills_core.format.models",
    "SkillValidationError": "skills_core.errors",
    "SkillfsError": "skills_core.errors",
    "ValidationReport": "skills_core.format.validation",
    "YamlLimitError": "skills_core.errors",
    "build_bundle": "skills_core.bundle.writer",
    "parse_skill_md": "skills_core.format.parsing",
    "validate_skill": "skills_core.format.validation",
    "write_bundle": "skills_core.bundle.writer",
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
