"""The API of the "adk-skills" design (``adk_skills_agent``), served from any skillfs source.

A compatibility module for users who start from that design: ``SkillsRegistry`` with its
``use_skill``, ``read_reference`` and ``run_script`` tools, ``with_registry`` (the design's
``with_skills``), ``validate_skill_folder`` (its ``validate_skill``) and
``create_skill_template``, as a thin layer over :class:`~skills_core.SkillCatalog` and the
shared tool factory. Unlike the design, skills may live in S3, GCS, GitHub, zip bundles or
memory, and the catalog refreshes incrementally as agents run. Methods that touch storage are
async. No name here shadows a primary one: the primary way to give an agent skills is
:class:`skills_core.adk.SkillsToolset` / :func:`skills_core.adk.with_skills`.

>>> from skills_core.adk.adk_skills import SkillsRegistry
>>> registry = SkillsRegistry()
>>> await registry.discover(["./skills"])  # doctest: +SKIP
>>> agent = LlmAgent(..., tools=[registry.create_use_skill_tool()])  # doctest: +SKIP
"""

from skills_core.adk.adk_skills.helpers import (
    ValidationResult,
    create_skill_template,
    validate_skill_folder,
    with_registry,
)
from skills_core.adk.adk_skills.registry import SkillsConfig, SkillsRegistry
from skills_core.tools.policy import ScriptPolicy

__all__ = [
    "ScriptPolicy",
    "SkillsConfig",
    "SkillsRegistry",
    "ValidationResult",
    "create_skill_template",
    "validate_skill_folder",
    "with_registry",
]
