"""A folder of skills to serve: text and binary files, one skill with allowed-tools; served by
the official SDK's server over HTTP (``served``), its requests counted (``log``), and read by
``McpSkillsBackend`` labelled ``team`` (``backend``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from backends._mcp.backend import McpSkillsBackend
from tests.mcp.harness import ServedFolder
from tests.mcp.recording import RequestLog

ROOT = Path(__file__).resolve().parents[2]

PNG = bytes(range(256)) * 3
SKILLS = {
    "pdf/SKILL.md": "---\nname: pdf\ndescription: Fill PDF forms. Use for PDFs.\n---\n"
    "# PDF\n\nRead references/forms.md first.\n",
    "pdf/references/forms.md": "# Forms\n\nField names are case-sensitive.\n",
    "pdf/assets/logo.png": PNG,
    "pdf/scripts/fill.py": "print('filled')\n",
    "deploy/SKILL.md": "---\nname: deploy\ndescription: Deploys the app. Use to ship.\n"
    "allowed-tools: Bash Read\n---\n# Deploy\n\nRun scripts/ship.sh.\n",
    "deploy/scripts/ship.sh": "echo shipped\n",
}


def _bytes(data: str | bytes) -> bytes:
    return data.encode() if isinstance(data, str) else data


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for path, data in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            target.write_bytes(data)
        else:
            target.write_text(data)
    return root


@pytest.fixture
def skills_root(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "skills", SKILLS)


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[ServedFolder]:
    harness = ServedFolder(tmp_path / "skills")
    tree = {
        path: data if isinstance(data, bytes) else data.encode() for path, data in SKILLS.items()
    }
    await harness.start(tree)
    yield harness
    await harness.close()


@pytest.fixture
def log(served: ServedFolder) -> RequestLog:
    log = RequestLog()
    served.server.lowlevel.middleware.append(log)
    return log


@pytest.fixture
async def backend(served: ServedFolder) -> AsyncIterator[McpSkillsBackend]:
    async with McpSkillsBackend(served.url, label="team") as backend:
        yield backend
