"""Only what must stay hidden is hidden: VCS folders, OS junk, caches and secrets.

K-Dense's ``perplexity-search`` documents an ``assets/.env.example``; google-adk serves it, and
so must skillfs, from every backend, while a real ``.env`` beside it stays out of reach.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from backends import BundleBackend, LocalBackend, MemoryBackend, UnsafePathError
from backends._base import Backend
from backends._paths import check_resource_path, is_hidden
from skills_core import SkillCatalog
from skills_core.tools._factory import SkillTools
from tests.collections.shapes import k_dense
from tests.remote.zips import zip_bytes

HIDDEN = (
    ".git/config",
    "scripts/.git",
    "vendor/.svn/entries",
    "assets/.hg/store",
    ".DS_Store",
    "assets/Thumbs.db",
    "assets/thumbs.DB",
    "assets/._logo.png",
    "__MACOSX/assets/logo.png",
    "scripts/__pycache__/run.cpython-311.pyc",
    "scripts/run.pyc",
    ".pytest_cache/v/cache/nodeids",
    "notebooks/.ipynb_checkpoints/a.ipynb",
    ".env",
    "config/.env",
    ".env.local",
    ".env.production",
    ".netrc",
    "scripts/.npmrc",
    ".pypirc",
)
SERVED = (
    "assets/.env.example",
    ".env.sample",
    ".env.template",
    ".env.dist",
    ".prettierrc",
    ".maintenance/pattern-card-maintenance.md",
    ".claude-plugin/plugin.json",
    "assets/.gitkeep",
    "env.py",
    "references/environment.md",
)


@pytest.mark.parametrize("path", HIDDEN)
def test_what_must_stay_hidden_is_hidden(path: str) -> None:
    assert is_hidden(path)
    with pytest.raises(UnsafePathError, match="never served"):
        check_resource_path(path, location="skill")


@pytest.mark.parametrize("path", SERVED)
def test_other_dotfiles_are_ordinary_files(path: str) -> None:
    assert not is_hidden(path)
    assert check_resource_path(path, location="skill") == path


PLANTED = {"perplexity-search/.env": b"OPENROUTER_API_KEY=sk-or-v1-real\n"}


@pytest.fixture
def backends(tmp_path: Path) -> dict[str, Backend]:
    """K-Dense's skills, with a real .env planted, on disk, in a zip bundle and in memory."""
    tree = {**k_dense().skills_tree(), **PLANTED}
    local = tmp_path / "local"
    for path, data in tree.items():
        (local / path).parent.mkdir(parents=True, exist_ok=True)
        (local / path).write_bytes(data)
    bundle = tmp_path / "skills.zip"
    bundle.write_bytes(zip_bytes(tree))
    folders: dict[str, dict[str, bytes]] = {}
    for path, data in tree.items():
        name, _, relative = path.partition("/")
        folders.setdefault(name, {})[relative] = data
    return {
        "local": LocalBackend(local),
        "zip": BundleBackend(str(bundle)),
        "memory": MemoryBackend(folders),
    }


@pytest.mark.parametrize("kind", ["local", "zip", "memory"])
async def test_k_dense_env_example_reaches_the_model(
    kind: str, backends: dict[str, Backend]
) -> None:
    tools = SkillTools(SkillCatalog(backends[kind]))
    await tools.catalog.refresh()

    loaded = await tools.load_skill("perplexity-search")
    assert "assets/.env.example" in loaded["files"]
    assert ".env" not in loaded["files"]
    served = await tools.load_skill_resource("perplexity-search", "assets/.env.example")
    assert served["content"] == "OPENROUTER_API_KEY=sk-or-v1-your-key-here\n"
    secret = await tools.load_skill_resource("perplexity-search", ".env")
    assert secret["error_code"] == "INVALID_PATH"
    assert "sk-or-v1-real" not in str(secret)
