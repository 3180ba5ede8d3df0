"""Skills the tool tests serve, and a memory backend that counts what it is asked."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from backends import FileEntry, MemoryBackend, SkillRef
from backends._limits import DEFAULT_LIMITS
from backends.testing import LOGO, skill_md

GUIDE = "# Forms\n\nFill every field.\n"

HELLO_PY = """\
import os, sys
print("hello", *sys.argv[1:])
print("cwd", os.getcwd())
print("guide", open("references/forms.md").read().splitlines()[0])
"""

PDF_SKILL: Mapping[str, bytes | str] = {
    "SKILL.md": skill_md("pdf", "Fill PDF forms.", "# PDF\n\nUse the forms guide.\n"),
    "references/forms.md": GUIDE,
    "assets/logo.png": LOGO,
    "scripts/hello.py": HELLO_PY,
    "scripts/fail.py": "import sys\nprint('bad input', file=sys.stderr)\nsys.exit(3)\n",
    "scripts/hello.sh": 'echo "bash says $1"\n',
    "scripts/env.py": "import json, os\nprint(json.dumps(dict(os.environ)))\n",
    "scripts/loud.py": "import sys\nsys.stdout.write('x' * 1_000_000)\n",
    "scripts/tool.js": "console.log('no node here')\n",
    "scripts/tool.run": "print('custom interpreter')\n",
}


class CountingMemoryBackend(MemoryBackend):
    """A MemoryBackend that counts calls by method name."""

    def __init__(self, skills: Mapping[str, Mapping[str, bytes | str]] | None = None) -> None:
        super().__init__(skills)
        self.calls: Counter[str] = Counter()

    async def list(self) -> Sequence[SkillRef]:
        self.calls["list"] += 1
        return await super().list()

    async def files(self, name: str) -> Sequence[FileEntry]:
        self.calls["files"] += 1
        return await super().files(name)

    async def read(
        self, name: str, path: str, *, max_bytes: int = DEFAULT_LIMITS.max_read_bytes
    ) -> bytes:
        self.calls["read"] += 1
        return await super().read(name, path, max_bytes=max_bytes)
