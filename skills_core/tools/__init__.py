"""Framework-neutral skill tools, built once from a catalog and shared by every adapter.

>>> from skills_core.tools import SkillTools, ScriptPolicy, ProcessRunner
>>> tools = SkillTools(catalog, scripts=ScriptPolicy(timeout=10))  # doctest: +SKIP
>>> unsandboxed = ScriptPolicy(runner=ProcessRunner())  # the sandbox is the default
>>> await tools.load_skill("pdf")  # doctest: +SKIP
"""

from skills_core.tools.content import ContentBuilder, SkillPreparer, skill_body
from skills_core.tools.factory import (
    DEFAULT_MAX_LOAD_CHARS,
    DEFAULT_MAX_RESOURCE_BYTES,
    SkillTools,
)
from skills_core.tools.policy import (
    DEFAULT_ENV_ALLOW,
    DEFAULT_INTERPRETERS,
    DEFAULT_SHEBANGS,
    ScriptPolicy,
)
from skills_core.tools.results import ToolResult, is_error, tool_error
from skills_core.tools.runners.base import ScriptRun, ScriptRunner
from skills_core.tools.runners.process import ProcessRunner
from skills_core.tools.runners.sandbox import SandboxRunner

__all__ = [
    "DEFAULT_ENV_ALLOW",
    "DEFAULT_INTERPRETERS",
    "DEFAULT_MAX_LOAD_CHARS",
    "DEFAULT_MAX_RESOURCE_BYTES",
    "DEFAULT_SHEBANGS",
    "ContentBuilder",
    "ProcessRunner",
    "SandboxRunner",
    "ScriptPolicy",
    "ScriptRun",
    "ScriptRunner",
    "SkillPreparer",
    "SkillTools",
    "ToolResult",
    "is_error",
    "skill_body",
    "tool_error",
]
