"""An agent in a process of its own: runs one skill script and prints the tool's result as JSON.

``python -m tests.scripts.driver RUNNER SKILLS_ROOT SKILL SCRIPT [ARG...]``. The secrets-hunting
test starts it with secrets in its environment: ``/proc/PID/environ`` shows a process's
*initial* environment, so they must be there before the agent starts.
"""

from __future__ import annotations

import asyncio
import json
import sys

from backends import LocalBackend
from skills_core import SkillCatalog
from skills_core.tools import ProcessRunner, SandboxRunner, ScriptPolicy, SkillTools


async def main(runner: str, root: str, skill: str, script: str, *args: str) -> None:
    chosen = SandboxRunner() if runner == "sandbox" else ProcessRunner()
    catalog = SkillCatalog(LocalBackend(root))
    await catalog.refresh()
    tools = SkillTools(catalog, scripts=ScriptPolicy(runner=chosen, timeout=60))
    print(json.dumps(await tools.run_skill_script(skill, script, list(args))))
    await tools.close()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))
