"""A confirmed script run is remembered by content: the next run of it does not ask again."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from google.adk.agents import LlmAgent
from google.adk.events import Event

from backends._digests import skill_digest
from backends._local import LocalBackend
from backends._scopes import project_backend
from backends.capabilities import PROJECT, Provenance
from backends.testing import BackendHarness
from skills_core import SkillCatalog, TrustPolicy
from skills_core import _codes as codes
from skills_core._trust.approvals import ApprovalStore
from skills_core.adk import SkillsToolset
from skills_core.tools import ScriptPolicy
from tests.adk.scripted import Conversation, ScriptedLlm, call, calls, responses, say
from tests.adk.skills import FILL_PY, TREE
from tests.adk.test_scripts_agent import CONFIRMATION, confirmation_reply
from tests.tools.skillset import CountingMemoryBackend

RUN = call("run_skill_script", skill_name="pdf", file_path="scripts/fill.py", args=["Ada"])


@pytest.fixture
async def store(tmp_path: Path) -> ApprovalStore:
    return await asyncio.to_thread(ApprovalStore, tmp_path / "cache")


@pytest.fixture
async def asking(harness: BackendHarness, store: ApprovalStore) -> AsyncIterator[SkillsToolset]:
    """The harness's skills, each run confirmed by the user and the confirmation kept."""
    catalog = SkillCatalog(await harness.make_backend(TREE), trust=TrustPolicy(approvals=store))
    toolset = SkillsToolset(catalog, scripts=ScriptPolicy(confirm=True))
    yield toolset
    await toolset.close()


def questions(events: list[Event]) -> list[str | None]:
    """The ids of the confirmations the turn asked for."""
    return [c.id for e in events for c in e.get_function_calls() if c.name == CONFIRMATION]


def asked(events: list[Event]) -> str | None:
    """The id of the confirmation the turn asked for, if it asked."""
    ids = questions(events)
    return ids[0] if ids else None


def ran(events: list[Event]) -> object:
    return dict(responses(events))["run_skill_script"].get("stdout")


async def questions_kept(chat: Conversation) -> dict[str, object]:
    """The stored session state's ``skillfs:asked:`` keys that hold a value."""
    assert chat.session_id is not None
    session = await chat.runner.session_service.get_session(
        app_name="skillfs-tests", user_id=chat.user_id, session_id=chat.session_id
    )
    assert session is not None
    kept = session.state.items()
    return {key: value for key, value in kept if key.startswith("skillfs:asked:") and value}


async def test_a_confirmation_is_remembered_until_the_script_changes(
    harness: BackendHarness, store: ApprovalStore
) -> None:
    backend = await harness.make_backend(TREE)
    catalog = SkillCatalog(backend, trust=TrustPolicy(approvals=store))
    toolset = SkillsToolset(catalog, scripts=ScriptPolicy(confirm=True))
    model = ScriptedLlm(steps=[RUN, say("filled"), RUN, say("again"), RUN, say("changed")])
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[toolset]))

    first = await chat.send("fill it")
    request_id = asked(first)
    assert request_id is not None
    answered = await chat.send(confirmation_reply(request_id, True))
    assert ran(answered) == "filled form for Ada\n"
    [approval] = store.approvals()
    assert (approval.name, approval.scripts, approval.tools) == ("pdf", True, False)

    second = await chat.send("fill it again")  # the same content: no question
    assert asked(second) is None
    assert ran(second) == "filled form for Ada\n"

    await harness.write("pdf/scripts/fill.py", FILL_PY.encode() + b"# edited\n")
    await catalog.refresh()  # what the catalog serves changes at a refresh (S3: its listing)
    third = await chat.send("and once more")  # another content: asked again
    assert asked(third) is not None
    assert CONFIRMATION in [name for name, _ in calls(third)]
    await chat.close()
    await toolset.close()


def project_skills(tmp_path: Path) -> Path:
    """The pdf skill in a cloned repository's ``.agents/skills``; that folder."""
    root = tmp_path / "repo" / ".agents" / "skills"
    for path, data in TREE.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
    return root


async def test_a_project_skill_runs_once_the_user_confirms_it(
    tmp_path: Path, store: ApprovalStore
) -> None:
    project_skills(tmp_path)
    backend = await project_backend(tmp_path / "repo", home=tmp_path / "home")
    catalog = SkillCatalog(backend, trust=TrustPolicy(approvals=store))

    plain = SkillsToolset(catalog, scripts=ScriptPolicy())
    refused = await Conversation(
        LlmAgent(name="assistant", model=ScriptedLlm(steps=[RUN, say("no")]), tools=[plain])
    ).send("fill it")
    result = dict(responses(refused))["run_skill_script"]
    assert result["error_code"] == codes.SCRIPT_NOT_APPROVED

    toolset = SkillsToolset(catalog, scripts=ScriptPolicy(confirm=True))
    model = ScriptedLlm(steps=[RUN, say("filled"), RUN, say("again")])
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[toolset]))
    request_id = asked(await chat.send("fill it"))
    assert request_id is not None
    assert ran(await chat.send(confirmation_reply(request_id, True))) == "filled form for Ada\n"
    second = await chat.send("fill it again")
    assert asked(second) is None
    assert ran(second) == "filled form for Ada\n"
    await chat.close()
    await toolset.close()
    await plain.close()


async def test_a_confirmation_approves_the_content_the_user_was_asked_about(
    tmp_path: Path, store: ApprovalStore
) -> None:
    """A script swapped while the question waits is neither approved nor run by the yes."""
    root = project_skills(tmp_path)
    asked_about = await skill_digest(LocalBackend(root), "pdf")
    backend = await project_backend(tmp_path / "repo", home=tmp_path / "home")
    catalog = SkillCatalog(backend, trust=TrustPolicy(approvals=store))
    toolset = SkillsToolset(catalog, scripts=ScriptPolicy(confirm=True))
    model = ScriptedLlm(steps=[RUN, say("done")])
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[toolset]))
    request_id = asked(await chat.send("fill it"))
    assert request_id is not None
    swapped = b"print('not what the user was asked about')\n"
    await asyncio.to_thread((root / "pdf" / "scripts" / "fill.py").write_bytes, swapped)
    answered = await chat.send(confirmation_reply(request_id, True))
    result = dict(responses(answered))["run_skill_script"]
    assert result.get("error_code") == codes.SCRIPT_NOT_APPROVED
    assert [approval.digest for approval in store.approvals()] == [asked_about]
    await chat.close()
    await toolset.close()


async def test_an_answered_question_leaves_nothing_in_the_session_state(
    asking: SkillsToolset,
) -> None:
    """Declined or confirmed, the digest kept for the question is dropped from the state."""
    model = ScriptedLlm(steps=[RUN, say("declined"), RUN, say("filled")])
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[asking]))
    for confirmed in (False, True):  # the second question is another call, asked anew
        request_id = asked(await chat.send("fill it"))
        assert request_id is not None
        assert len(await questions_kept(chat)) == 1  # the content the question is about
        answered = await chat.send(confirmation_reply(request_id, confirmed))
        assert await questions_kept(chat) == {}
    assert ran(answered) == "filled form for Ada\n"
    await chat.close()


async def test_a_question_answered_after_its_content_was_approved_leaves_nothing(
    asking: SkillsToolset,
) -> None:
    """Two runs of one skill asked at once: the second yes finds the content approved."""
    other = call("run_skill_script", skill_name="pdf", file_path="scripts/fill.py", args=["Bo"])
    model = ScriptedLlm(steps=[[RUN, other], say("one"), say("both")])
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[asking]))
    request_ids = questions(await chat.send("fill both"))
    assert len(request_ids) == 2
    assert len(await questions_kept(chat)) == 2
    for request_id in request_ids:
        assert request_id is not None
        answered = await chat.send(confirmation_reply(request_id, True))
    assert ran(answered) == "filled form for Bo\n"
    assert await questions_kept(chat) == {}
    await chat.close()


class ProjectMemory(CountingMemoryBackend):
    """Counts reads; grants no skill its scripts until the user approves (as a project).

    It knows each skill's content digest without a read (as an MCP entry lists it).
    """

    def provenance(self, name: str) -> Provenance:
        return Provenance(PROJECT, "sha256:" + "0" * 64)


async def test_a_confirmed_run_reads_the_skill_once_for_the_question_and_once_to_run(
    store: ApprovalStore,
) -> None:
    """The question is about the content the check copied: no third read to digest it."""
    pdf = {path.removeprefix("pdf/"): data for path, data in TREE.items() if path[:4] == "pdf/"}
    backend = ProjectMemory({"pdf": pdf})
    toolset = SkillsToolset(
        SkillCatalog(backend, trust=TrustPolicy(approvals=store)),
        scripts=ScriptPolicy(confirm=True),
    )
    chat = Conversation(
        LlmAgent(name="assistant", model=ScriptedLlm(steps=[RUN, say("done")]), tools=[toolset])
    )
    copied = len(pdf) - 1  # a copy takes SKILL.md from the catalog and reads the other files
    request_id = asked(await chat.send("fill it"))
    assert request_id is not None
    assert backend.calls["read"] == copied  # the check's copy
    backend.calls.clear()
    answered = await chat.send(confirmation_reply(request_id, True))
    assert ran(answered) == "filled form for Ada\n"
    assert backend.calls["read"] == 2 * copied  # the check's copy, then the run's own
    await chat.close()
    await toolset.close()
