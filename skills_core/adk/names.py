"""What one toolset calls the skill tools: :mod:`skills_core.tool_table`'s names, renamable."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from skills_core.tool_table import (
    LIST_SKILLS,
    LOAD_SKILL,
    LOAD_SKILL_RESOURCE,
    RUN_SKILL_SCRIPT,
    SEARCH_SKILLS,
)


@dataclass(frozen=True, slots=True)
class ToolNames:
    """What each skill tool is called; rename any (``ToolNames(load_skill="skill")``).

    ``SkillsToolset(tool_name_prefix=...)`` prefixes all of them, as for any ADK toolset.
    """

    list_skills: str = LIST_SKILLS
    load_skill: str = LOAD_SKILL
    load_skill_resource: str = LOAD_SKILL_RESOURCE
    run_skill_script: str = RUN_SKILL_SCRIPT
    search_skills: str = SEARCH_SKILLS

    def prefixed(self, prefix: str | None) -> ToolNames:
        """The names as the model sees them under an ADK ``tool_name_prefix``."""
        if not prefix:
            return self
        return ToolNames(*(f"{prefix}_{name}" for name in dataclasses.astuple(self)))
