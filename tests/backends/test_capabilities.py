"""Optional abilities: a composite of local folders runs scripts in place and is watched."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from backends import CompositeBackend, LocalBackend, MemoryBackend
from backends._composite import merged
from backends.capabilities import change_events, fetch_many, local_folder
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core.tools import ScriptPolicy, SkillTools
from tests.tools.skillset import HELLO_PY


def write_skill(root: Path, name: str, files: dict[str, str] | None = None) -> None:
    folder = root / name
    for path, text in {"SKILL.md": skill_md(name).decode(), **(files or {})}.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text)


@pytest.fixture
def two_folders(tmp_path: Path) -> tuple[Path, Path]:
    project, user = tmp_path / "project", tmp_path / "user"
    write_skill(project, "alpha")
    write_skill(user, "pdf", {"scripts/hello.py": HELLO_PY, "references/forms.md": "# Forms\n"})
    return project, user


async def test_a_composite_of_local_folders_runs_scripts_in_place(
    two_folders: tuple[Path, Path],
) -> None:
    project, user = two_folders
    backend = CompositeBackend([LocalBackend(project), LocalBackend(user)])
    catalog = SkillCatalog(backend)
    await catalog.refresh()
    tools = SkillTools(catalog, scripts=ScriptPolicy(timeout=30))
    result = await tools.run_skill_script("pdf", "scripts/hello.py")
    await tools.close()
    cwd = dict(line.partition(" ")[::2] for line in str(result["stdout"]).splitlines())["cwd"]
    assert cwd == await asyncio.to_thread(os.path.realpath, user / "pdf")
    assert await local_folder(backend, "alpha") == await asyncio.to_thread(
        os.path.realpath, project / "alpha"
    )


async def test_a_skill_in_memory_has_no_local_folder(two_folders: tuple[Path, Path]) -> None:
    memory = MemoryBackend({"beta": {"SKILL.md": skill_md("beta")}})
    backend = CompositeBackend([LocalBackend(two_folders[0]), memory])
    assert await local_folder(backend, "beta") is None
    assert await local_folder(memory, "beta") is None


async def test_a_composite_of_local_folders_is_watched_with_filesystem_events(
    two_folders: tuple[Path, Path],
) -> None:
    project, user = two_folders
    catalog = SkillCatalog(CompositeBackend([LocalBackend(project), LocalBackend(user)]))
    reports = catalog.watch(interval=3600)  # events, not polling, must wake it
    assert set((await anext(reports)).added) == {"alpha", "pdf"}
    await asyncio.to_thread(write_skill, user, "gamma")
    report = await asyncio.wait_for(anext(reports), timeout=20)
    assert report.added == ("gamma",)
    await reports.aclose()


async def test_a_composite_with_a_member_without_events_is_polled(tmp_path: Path) -> None:
    backend = CompositeBackend([LocalBackend(tmp_path), MemoryBackend()])
    assert await change_events(backend) is None
    assert await change_events(MemoryBackend()) is None


async def test_merged_signals_start_when_every_stream_has_started_and_pass_on_errors() -> None:
    def stream(queue: asyncio.Queue[str]) -> AsyncIterator[None]:
        async def signals() -> AsyncIterator[None]:
            while await queue.get() != "boom":
                yield None
            raise OSError("watch lost")

        return signals()

    first: asyncio.Queue[str] = asyncio.Queue()
    second: asyncio.Queue[str] = asyncio.Queue()
    # The first stream starts and then fails while the second never started: the merged
    # stream must pass on the error without having signalled for the first stream alone.
    alone = merged([stream(first), stream(second)])
    first.put_nowait("start")
    first.put_nowait("boom")
    with pytest.raises(OSError, match="watch lost"):
        await asyncio.wait_for(anext(alone), timeout=5)

    first, second = asyncio.Queue(), asyncio.Queue()
    signals = merged([stream(first), stream(second)])
    first.put_nowait("start")
    second.put_nowait("start")
    assert await asyncio.wait_for(anext(signals), timeout=5) is None
    first.put_nowait("change")
    assert await asyncio.wait_for(anext(signals), timeout=5) is None
    second.put_nowait("boom")
    with pytest.raises(OSError, match="watch lost"):
        await asyncio.wait_for(anext(signals), timeout=5)


async def test_batch_fetch_falls_back_to_get_for_a_minimal_backend() -> None:
    memory = MemoryBackend({"a": {"SKILL.md": skill_md("a")}})
    assert not hasattr(memory, "get_many")
    (found, missing) = await fetch_many(memory, ["a", "zzz"])
    assert getattr(found, "name", None) == "a"
    assert isinstance(missing, Exception)
