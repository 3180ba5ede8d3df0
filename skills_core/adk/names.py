"""The names of the skill tools, the same as google-adk's SkillToolset uses by default."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ToolNames:
    """What each skill tool is called; rename any (``ToolNames(load_skill="skill")``).

    ``SkillsToolset(tool_name_prefix=...)`` prefixes all of them, as for any ADK toolset.
    """

    list_skills: str = "list_skills"
    load_skill: str = "load_skill"
    load_skill_resource: str = "load_skill_resource"
    run_skill_script: str = "run_skill_script"
    search_skills: str = "search_skills"

    def prefixed(self, prefix: str | None) -> ToolNames:
        """The names as the model sees them under an ADK ``tool_name_prefix``."""
        if not prefix:
            return self
        return ToolNames(*(f"{prefix}_{name}" for name in dataclasses.astuple(self)))
