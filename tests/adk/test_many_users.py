"""A toolset serving a catalog per user keeps nothing of the users whose catalogs are dropped.

A thousand users of one runner each get their own catalog of a remote source (a memory
backend); every twentieth (the last one too) runs its skill's script, which is copied to a
private temporary folder to run. Once their catalogs are dropped, memory, open files and
temporary folders are back where they were (the toolset kept about 150 memory blocks a user,
and every copy, before).

Memory is counted in pymalloc's blocks in use (``sys.getallocatedblocks``): tracemalloc would
make each of the thousand turns about four times as costly to run.
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from google.adk.agents import LlmAgent
from google.adk.runners import InMemoryRunner

from backends import MemoryBackend
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core.adk import SkillsToolset
from skills_core.tools._policy import ScriptPolicy
from skills_core.tools._runners.process import ProcessRunner
from tests.adk.scripted import Conversation, ScriptedLlm, call, responses, say

USERS = 1_000
SCRIPT_EVERY = 20
HELLO = {"SKILL.md": skill_md("hello", "Says hello."), "scripts/hello.sh": "echo hello\n"}
KEPT_BLOCKS = 2 * USERS
"""What the thousand users may leave in all: fewer than 2 blocks each (first uses included)."""


async def settled(drop: Callable[[], None], copies: Path) -> tuple[int, int, int]:
    """Memory blocks in use, open files and script copies once ``drop()`` and a collection ran.

    Both run in a worker thread, so a dropped catalog's copies are deleted there and then.
    """

    def collect() -> tuple[int, int, int]:
        drop()
        gc.collect()
        return sys.getallocatedblocks(), len(os.listdir("/proc/self/fd")), len(os.listdir(copies))

    return await asyncio.to_thread(collect)


async def test_a_thousand_users_come_and_go_and_leave_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the copies are made
    catalogs: dict[str, SkillCatalog] = {}
    policy = ScriptPolicy(runner=ProcessRunner())
    toolset = SkillsToolset(lambda context: catalogs[context.user_id], scripts=policy)
    model = ScriptedLlm()
    agent = LlmAgent(name="assistant", model=model, tools=[toolset])
    runner = InMemoryRunner(agent=agent, app_name="skillfs-tests")
    sessions = runner.session_service

    async def visit(user: str, *, script: bool) -> None:
        catalogs[user] = SkillCatalog(MemoryBackend({"hello": HELLO}))
        tool = "run_skill_script" if script else "load_skill"
        args = {"file_path": "scripts/hello.sh"} if script else {}
        model.steps += [call(tool, skill_name="hello", **args), say("done")]
        chat = Conversation(agent, user_id=user, runner=runner)
        assert "error_code" not in dict(responses(await chat.send("say hello")))[tool]
        await sessions.delete_session(
            app_name="skillfs-tests", user_id=user, session_id=chat.session_id or ""
        )
        sessions.sessions["skillfs-tests"].pop(user)  # ADK keeps an empty dict per user id
        model.requests.clear()

    # ADK's toolset keeps the tools of its last turn: one user's catalog is held at each count.
    await visit("first", script=True)  # imports, the runner's and the model's first uses
    blocks, files, copies = await settled(catalogs.clear, tmp_path)
    for user in range(USERS):
        await visit(f"user-{user}", script=user % SCRIPT_EVERY == SCRIPT_EVERY - 1)
    assert len(os.listdir(tmp_path)) >= USERS // SCRIPT_EVERY  # a copy per script's user
    blocks_after, *after = await settled(catalogs.clear, tmp_path)
    await runner.close()
    assert copies == 1
    assert after == [files, copies]
    assert blocks_after - blocks < KEPT_BLOCKS


async def test_a_catalog_keeps_nothing_of_the_toolsets_dropped() -> None:
    catalog = SkillCatalog(MemoryBackend({"hello": HELLO}))
    await catalog.refresh()
    for _ in range(100):
        toolset = SkillsToolset(catalog)
        assert [tool.name for tool in await toolset.get_tools()][:1] == ["list_skills"]
    del toolset
    await asyncio.to_thread(gc.collect)
    assert not catalog.attached(SkillsToolset, dict)  # the tools of every toolset went with it
