"""Framework-neutral skill tools, built once from a catalog and shared by every adapter.

>>> from skills_core.tools import SkillTools, ScriptPolicy
>>> tools = SkillTools(catalog, scripts=ScriptPolicy(timeout=10))  # doctest: +SKIP
>>> await tools.load_skill("pdf")  # doctest: +SKIP
"""

from skills_core.tools import results as codes
from skills_core.tools.content import ContentBuilder, SkillPreparer, skill_body
from skills_core.tools.factory import DEFAULT_MAX_RESOURCE_BYTES, SkillTools
from skills_core.tools.policy import DEFAULT_ENV_ALLOW, DEFAULT_INTERPRETERS, ScriptPolicy
from skills_core.tools.results import ToolResult, is_error, tool_error

__all__ = [
    "DEFAULT_ENV_ALLOW",
    "DEFAULT_INTERPRETERS",
    "DEFAULT_MAX_RESOURCE_BYTES",
    "ContentBuilder",
    "ScriptPolicy",
    "SkillPreparer",
    "SkillTools",
    "ToolResult",
    "codes",
    "is_error",
    "skill_body",
    "tool_error",
]
