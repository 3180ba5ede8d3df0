"""Every door that picks a skill without the model, in a real runner, never shows a user-only one.

Injection (``AutoSkillsPlugin``) and the coordinator (``SkillContextProvider``) take any
selector: ranked search, adk-rust's ``select_skills`` or one of the user's own. Whichever picks,
the body of a skill with ``disable-model-invocation: true`` never reaches the model's request.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from google.adk.agents import LlmAgent
from google.adk.models import LlmRequest

from backends import MemoryBackend
from skills_core import SkillCatalog
from skills_core.adk import AutoSkillsPlugin
from skills_core.adk._modes import SkillContextProvider
from skills_core.context._search import rank_skills
from skills_core.context._selection import SelectionPolicy, Selector, select_skills
from skills_core.context._turns import (
    ByQuery,
    ByTag,
    ContextCoordinator,
    CoordinatorConfig,
    ToolMap,
)
from tests.adk.scripted import Conversation, ScriptedLlm, say
from tests.context.test_user_only import DEPLOY, SKILLS, every_skill

BODY = "Run the release pipeline."
TAGGED = {
    **SKILLS,
    "deploy-prod": {"SKILL.md": DEPLOY.replace(b"disable", b"tags: [ops]\ndisable")},
}
REQUEST = "Deploy the release to production"
LOOSE = SelectionPolicy(min_score=0.0001)


SELECTORS = pytest.mark.parametrize("selector", [rank_skills, select_skills, every_skill])


def unseen(request: LlmRequest) -> object:
    """The model's step: the user-only body is nowhere in what it was sent."""
    assert BODY not in str(request.model_dump())
    return say("ok")


async def refreshed() -> SkillCatalog:
    catalog = SkillCatalog(MemoryBackend(TAGGED))
    await catalog.refresh()
    return catalog


@SELECTORS
async def test_auto_skills_never_injects_a_user_only_skill(selector: Selector) -> None:
    model = ScriptedLlm(steps=[unseen])
    plugin = AutoSkillsPlugin(await refreshed(), policy=LOOSE, selector=selector)
    chat = Conversation(LlmAgent(name="assistant", model=model), [plugin])
    await chat.send(REQUEST)
    await chat.close()
    assert not model.steps
    if selector is every_skill:  # the gate drops the user-only skill, not the selection
        assert "[skill:release-notes]" in str(model.requests[0].model_dump())


@SELECTORS
@pytest.mark.parametrize("strategy", [ByQuery, lambda _: ByTag("ops")])
async def test_the_coordinator_never_frames_a_user_only_skill(
    selector: Selector, strategy: Callable[[str], ByQuery | ByTag]
) -> None:
    coordinator = ContextCoordinator(
        await refreshed(), ToolMap([]), CoordinatorConfig(policy=LOOSE, selector=selector)
    )
    provider = SkillContextProvider(coordinator, strategies=lambda message: [strategy(message)])
    model = ScriptedLlm(steps=[unseen])
    agent = LlmAgent(
        name="assistant", model=model, instruction=provider.instruction, tools=[provider.toolset]
    )
    chat = Conversation(agent)
    await chat.send(REQUEST)
    await chat.close()
    assert not model.steps
