"""The API of the "adk-skills" design (``adk_skills_agent``), served from any skillfs source.

For users who start from that design: ``SkillsRegistry`` with its ``use_skill``,
``read_reference`` and ``run_script`` tools, ``with_skills``, ``validate_skill`` and
``create_skill_template``, as a thin layer over :class:`~skills_core.SkillCatalog` and the
shared tool factory. Unlike the design, skills may live in S3, GCS, GitHub, zip bundles or
memory, and the catalog refreshes incrementally as agents run. Methods that touch storage are
async. skillfs's own :func:`skills_core.adk.with_skills` (google-adk's tool names) is a
different function: import this one from here.

>>> from skills_core.adk.adk_skills import SkillsRegistry
>>> registry = SkillsRegistry()
>>> await registry.discover(["./skills"])  # doctest: +SKIP
>>> agent = LlmAgent(..., tools=[registry.create_use_skill_tool()])  # doctest: +SKIP
"""

from skills_core.adk.adk_skills.helpers import (
    ValidationResult,
    create_skill_template,
    validate_skill,
    with_skills,
)
from skills_core.adk.adk_skills.registry import SkillsConfig, SkillsRegistry, Source
from skills_core.format.models import Skill, SkillMetadata
from skills_core.tools.policy import ScriptPolicy

__all__ = [
    "ScriptPolicy",
    "Skill",
    "SkillMetadata",
    "SkillsConfig",
    "SkillsRegistry",
    "Source",
    "ValidationResult",
    "create_skill_template",
    "validate_skill",
    "with_skills",
]
