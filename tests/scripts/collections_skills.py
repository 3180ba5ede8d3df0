"""Scripts as public collections write them: extensionless by shebang, package-style Python."""

from __future__ import annotations

TASK_BRIEF = """\
#!/usr/bin/env bash
# an extensionless script that runs a sibling by path: the sibling must be executable
set -euo pipefail
here="$(dirname "$0")"
echo "brief: $("$here/summarise" "$@")"
"""

SUMMARISE = """\
#!/bin/sh
echo "$# words, first $1"
"""

PACKAGE_SKILL = """\
#!/usr/bin/env python3
\"\"\"Run as `python -m scripts.package_skill` in the skill's docs.\"\"\"
import sys

from scripts.quick_validate import validate

print(validate(sys.argv[1]))
"""

QUICK_VALIDATE = """\
def validate(name):
    return f"{name}: valid"
"""

NODE_TOOL = "#!/usr/bin/env node\nconsole.log('hi')\n"
NO_SHEBANG = "echo no interpreter named\n"

COLLECTION = {
    "scripts/task-brief": TASK_BRIEF,
    "scripts/summarise": SUMMARISE,
    "scripts/package_skill.py": PACKAGE_SKILL,
    "scripts/quick_validate.py": QUICK_VALIDATE,
    "scripts/node-tool": NODE_TOOL,
    "scripts/plain": NO_SHEBANG,
}
