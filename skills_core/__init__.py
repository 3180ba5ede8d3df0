"""skills_core: parse, validate and serve Agent Skills from any backend.

>>> from backends import open_backend
>>> from skills_core import SkillCatalog
>>> catalog = SkillCatalog(open_backend("./skills"))
>>> report = await catalog.refresh()  # doctest: +SKIP

The public names are imported on first use (with :mod:`backends.lazy`, which loads no
backend), so importing a submodule (the ``skillfs`` CLI starts with ``skills_core.cli``) does
not load the catalog and its backends. docs/api.md lists them. The whole exception tree
(:mod:`skills_core.errors`) is importable from here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from backends.lazy import lazy_exports
from skills_core import errors

if TYPE_CHECKING:
    from skills_core.bundle.publish import Publication, build_publication, publish
    from skills_core.bundle.writer import Bundle, build_bundle, write_bundle
    from skills_core.catalog.cache import CatalogCache
    from skills_core.catalog.catalog import SkillCatalog
    from skills_core.catalog.snapshot import ReloadReport
    from skills_core.errors import *  # noqa: F403 - the exception tree
    from skills_core.format.models import FormatLimits, Skill, SkillMetadata, SkillProblem
    from skills_core.format.parsing import parse_skill_md
    from skills_core.format.validation import ValidationReport, validate_skill
    from skills_core.trust.approvals import ApprovalStore
    from skills_core.trust.lock import SkillLock, lock_of
    from skills_core.trust.policy import TrustPolicy

_EXPORTS = {
    "ApprovalStore": "skills_core.trust.approvals",
    "Bundle": "skills_core.bundle.writer",
    "CatalogCache": "skills_core.catalog.cache",
    "FormatLimits": "skills_core.format.models",
    "Publication": "skills_core.bundle.publish",
    "ReloadReport": "skills_core.catalog.snapshot",
    "Skill": "skills_core.format.models",
    "SkillCatalog": "skills_core.catalog.catalog",
    "SkillLock": "skills_core.trust.lock",
    "SkillMetadata": "skills_core.format.models",
    "SkillProblem": "skills_core.format.models",
    "TrustPolicy": "skills_core.trust.policy",
    "ValidationReport": "skills_core.format.validation",
    "build_bundle": "skills_core.bundle.writer",
    "build_publication": "skills_core.bundle.publish",
    "lock_of": "skills_core.trust.lock",
    "parse_skill_md": "skills_core.format.parsing",
    "publish": "skills_core.bundle.publish",
    "validate_skill": "skills_core.format.validation",
    "write_bundle": "skills_core.bundle.writer",
    **dict.fromkeys(errors.__all__, "skills_core.errors"),
}

__all__ = [
    "ApprovalStore",
    "Bundle",
    "CatalogCache",
    "FormatLimits",
    "Publication",
    "ReloadReport",
    "Skill",
    "SkillCatalog",
    "SkillLock",
    "SkillMetadata",
    "SkillProblem",
    "TrustPolicy",
    "ValidationReport",
    "build_bundle",
    "build_publication",
    "lock_of",
    "parse_skill_md",
    "publish",
    "validate_skill",
    "write_bundle",
]
__all__ += errors.__all__


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
