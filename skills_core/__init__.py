"""skills_core: parse, validate and serve Agent Skills from any backend.

>>> from backends import open_backend
>>> from skills_core import SkillCatalog
>>> catalog = SkillCatalog(open_backend("./skills"))
>>> report = await catalog.refresh()  # doctest: +SKIP

The public names are imported on first use (with :mod:`backends._lazy`, which loads no
backend), so importing a submodule (the ``skillfs`` CLI starts with ``skills_core.cli``) does
not load the catalog and its backends. docs/api.md lists them. The whole exception tree
(:mod:`skills_core._errors`) is importable from here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from backends._lazy import lazy_exports
from skills_core import _codes as codes
from skills_core import _errors as errors

if TYPE_CHECKING:
    from skills_core._bundle.publish import Publication, build_publication, publish
    from skills_core._bundle.writer import Bundle, build_bundle, write_bundle
    from skills_core._catalog.cache import CatalogCache
    from skills_core._catalog.catalog import SkillCatalog, lock_of
    from skills_core._catalog.snapshot import ReloadReport
    from skills_core._errors import *  # noqa: F403 - the exception tree
    from skills_core._format.models import FormatLimits, Skill, SkillMetadata, SkillProblem
    from skills_core._format.parsing import parse_skill_md
    from skills_core._format.validation import ValidationReport, validate_skill
    from skills_core._trust.approvals import ApprovalStore
    from skills_core._trust.lock import SkillLock
    from skills_core._trust.policy import TrustPolicy
    from skills_core._trust.signing import new_key_pair, private_key

_EXPORTS = {
    "ApprovalStore": "skills_core._trust.approvals",
    "Bundle": "skills_core._bundle.writer",
    "CatalogCache": "skills_core._catalog.cache",
    "FormatLimits": "skills_core._format.models",
    "Publication": "skills_core._bundle.publish",
    "ReloadReport": "skills_core._catalog.snapshot",
    "Skill": "skills_core._format.models",
    "SkillCatalog": "skills_core._catalog.catalog",
    "SkillLock": "skills_core._trust.lock",
    "SkillMetadata": "skills_core._format.models",
    "SkillProblem": "skills_core._format.models",
    "TrustPolicy": "skills_core._trust.policy",
    "ValidationReport": "skills_core._format.validation",
    "build_bundle": "skills_core._bundle.writer",
    "build_publication": "skills_core._bundle.publish",
    "lock_of": "skills_core._catalog.catalog",
    "new_key_pair": "skills_core._trust.signing",
    "private_key": "skills_core._trust.signing",
    "parse_skill_md": "skills_core._format.parsing",
    "publish": "skills_core._bundle.publish",
    "validate_skill": "skills_core._format.validation",
    "write_bundle": "skills_core._bundle.writer",
    **dict.fromkeys(errors.__all__, "skills_core._errors"),
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
    "codes",
    "lock_of",
    "new_key_pair",
    "parse_skill_md",
    "private_key",
    "publish",
    "validate_skill",
    "write_bundle",
]
__all__ += errors.__all__


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
