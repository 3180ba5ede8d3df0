"""Framework-neutral skill tools, built once from a catalog and shared by every adapter.

>>> from skills_core.tools import LoadPolicy, ProcessRunner, ScriptPolicy, SkillTools
>>> tools = SkillTools(catalog, scripts=ScriptPolicy(timeout=10))  # doctest: +SKIP
>>> bounded = SkillTools(catalog, loading=LoadPolicy(max_load_chars=8_000))  # doctest: +SKIP
>>> unsandboxed = ScriptPolicy(runner=ProcessRunner())  # the sandbox is the default
>>> await tools.load_skill("pdf")  # doctest: +SKIP
"""

from skills_core.tools._factory import LoadPolicy, SkillTools
from skills_core.tools._policy import ScriptPolicy
from skills_core.tools._runners.process import ProcessRunner
from skills_core.tools._runners.sandbox import SandboxRunner

__all__ = [
    "LoadPolicy",
    "ProcessRunner",
    "SandboxRunner",
    "ScriptPolicy",
    "SkillTools",
]
