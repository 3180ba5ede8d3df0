"""One agent, one runner, two users: each sees and loads only the skills of their own catalog."""

from __future__ import annotations

from google.adk.agents import LlmAgent
from google.adk.agents.readonly_context import ReadonlyContext
from google.adk.runners import InMemoryRunner

from backends import MemoryBackend
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core.adk import Listing, SkillsToolset
from tests.adk.scripted import Conversation, ScriptedLlm, call, responses, say, system_text


def catalog_of(*names: str) -> SkillCatalog:
    return SkillCatalog(
        MemoryBackend({name: {"SKILL.md": skill_md(name, f"The {name} skill.")} for name in names})
    )


async def test_two_users_in_one_runner_get_their_own_skills() -> None:
    catalogs = {"ada": catalog_of("billing", "shared"), "bob": catalog_of("payroll", "shared")}
    picked: list[str] = []

    async def pick(context: ReadonlyContext) -> SkillCatalog:  # async selectors work too
        picked.append(context.user_id)
        return catalogs[context.user_id]

    toolset = SkillsToolset(pick)
    model = ScriptedLlm(
        steps=[
            call("list_skills"),
            call("load_skill", skill_name="payroll"),  # bob's, not ada's
            say("ada done"),
            call("list_skills"),
            call("load_skill", skill_name="payroll"),
            say("bob done"),
        ]
    )
    agent = LlmAgent(name="assistant", model=model, tools=[toolset])
    runner = InMemoryRunner(agent=agent, app_name="skillfs-tests")
    ada = Conversation(agent, user_id="ada", runner=runner)
    bob = Conversation(agent, user_id="bob", runner=runner)

    ada_results = dict(responses(await ada.send("what can you do?")))
    bob_results = dict(responses(await bob.send("what can you do?")))
    await runner.close()

    listed = [skill["name"] for skill in ada_results["list_skills"]["skills"]]
    assert listed == ["billing", "shared"]
    assert ada_results["load_skill"]["error_code"] == "SKILL_NOT_FOUND"
    listed = [skill["name"] for skill in bob_results["list_skills"]["skills"]]
    assert listed == ["payroll", "shared"]
    assert bob_results["load_skill"]["instructions"].startswith("# payroll")
    assert set(picked) == {"ada", "bob"}
    assert len(catalogs["ada"]) == len(catalogs["bob"]) == 2  # each refreshed on its user's turn


async def test_eager_discovery_shows_each_user_their_catalog() -> None:
    catalogs = {"ada": catalog_of("billing"), "bob": catalog_of("payroll")}
    model = ScriptedLlm(steps=[say("hi ada"), say("hi bob")])
    agent = LlmAgent(
        name="assistant",
        model=model,
        tools=[
            SkillsToolset(
                lambda context: catalogs[context.user_id], listing=Listing(discovery="eager")
            )
        ],
    )
    runner = InMemoryRunner(agent=agent, app_name="skillfs-tests")
    await Conversation(agent, user_id="ada", runner=runner).send("hello")
    await Conversation(agent, user_id="bob", runner=runner).send("hello")
    await runner.close()
    shown_to_ada, shown_to_bob = (system_text(request) for request in model.requests)
    assert "<name>\nbilling\n</name>" in shown_to_ada
    assert "payroll" not in shown_to_ada
    assert "<name>\npayroll\n</name>" in shown_to_bob
    assert "billing" not in shown_to_bob


async def test_a_fixed_catalog_still_has_its_tools_outside_a_run() -> None:
    fixed = SkillsToolset(catalog_of("notes"))
    assert [tool.name for tool in await fixed.get_tools()] == [
        "list_skills",
        "load_skill",
        "load_skill_resource",
    ]
    per_user = SkillsToolset(lambda context: catalog_of("notes"))
    assert await per_user.get_tools() == []
