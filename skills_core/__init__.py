"""skills_core: parse, validate and serve Agent Skills from any backend.

>>> from backends import open_backend
>>> from skills_core import SkillCatalog
>>> catalog = SkillCatalog(open_backend("./skills"))
>>> report = await catalog.refresh()  # doctest: +SKIP
"""

from backends.limits import DEFAULT_LIMITS, Limits
from skills_core.catalog import SkillCatalog
from skills_core.errors import (
    SkillfsError,
    SkillParseError,
    SkillValidationError,
    YamlLimitError,
)
from skills_core.models import FileEntry, Skill, SkillMetadata, SkillRef
from skills_core.parsing import ParsedSkillMd, parse_skill_md
from skills_core.report import ReloadReport, SkillProblem
from skills_core.validation import Issue, ValidationReport, validate_skill

__all__ = [
    "DEFAULT_LIMITS",
    "FileEntry",
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
    "parse_skill_md",
    "validate_skill",
]
