"""The names of the skill tools, the same as google-adk's SkillToolset uses by default."""

from __future__ import annotations

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

    def prefixed(self, prefix: str | None) -> ToolNames:
        """The names as the model sees them under an ADK ``tool_name_prefix``."""
        if not prefix:
            return self
        return ToolNames(
            f"{prefix}_{self.list_skills}",
            f"{prefix}_{self.load_skill}",
            f"{prefix}_{self.load_skill_resource}",
            f"{prefix}_{self.run_skill_script}",
        )
