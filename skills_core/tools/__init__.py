"""Framework-neutral skill tools, built once from a catalog and shared by every adapter.

>>> from skills_core.tools import SkillTools, ScriptPolicy, ProcessRunner
>>> tools = SkillTools(catalog, scripts=ScriptPolicy(timeout=10))  # doctest: +SKIP
>>> unsandboxed = ScriptPolicy(runner=ProcessRunner())  # the sandbox is the default
>>> await tools.load_skill("pdf")  # doctest: +SKIP
"""

from skills_core.tools.factory import SkillTools
from skills_core.tools.policy import DEFAULT_INTERPRETERS, DEFAULT_SHEBANGS, ScriptPolicy
from skills_core.tools.runners.process import ProcessRunner
from skills_core.tools.runners.sandbox import SandboxRunner

__all__ = [
    "DEFAULT_INTERPRETERS",
    "DEFAULT_SHEBANGS",
    "ProcessRunner",
    "SandboxRunner",
    "ScriptPolicy",
    "SkillTools",
]
