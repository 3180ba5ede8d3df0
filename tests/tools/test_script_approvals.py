"""A cloned project's skills run no script until the user approves their content."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from backends._scopes import project_backend
from backends.testing import skill_md
from skills_core import SkillCatalog, TrustPolicy
from skills_core import _codes as codes
from skills_core._trust.approvals import ApprovalStore
from skills_core.tools import ScriptPolicy, SkillTools

HELLO = "print('hello')\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    skill = tmp_path / "repo" / ".agents" / "skills" / "build"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_bytes(skill_md("build", "Builds."))
    (skill / "scripts" / "hello.py").write_text(HELLO)
    return tmp_path / "repo"


@pytest.fixture
async def store(tmp_path: Path) -> ApprovalStore:
    return await asyncio.to_thread(ApprovalStore, tmp_path / "cache")


async def tools_for(
    project: Path, policy: ScriptPolicy, trust: TrustPolicy | None = None, **options: object
) -> SkillTools:
    backend = await project_backend(project, home=project / "no-home", **options)  # type: ignore[arg-type]
    catalog = SkillCatalog(backend, trust=trust)
    await catalog.refresh()
    return SkillTools(catalog, scripts=policy)


@pytest.fixture
async def tools(project: Path, store: ApprovalStore) -> AsyncIterator[SkillTools]:
    tools = await tools_for(project, ScriptPolicy(timeout=10), TrustPolicy(approvals=store))
    yield tools
    await tools.close()


async def test_an_unapproved_project_script_does_not_run(tools: SkillTools, project: Path) -> None:
    refused = {
        "error": "skill 'build' may not run its scripts: project skills grant nothing until "
        "the user approves them (skillfs approve); the user can approve this content with: "
        f"skillfs approve {project / '.agents' / 'skills'} build --scripts",
        "error_code": codes.SCRIPT_NOT_APPROVED,
    }
    assert await tools.run_skill_script("build", "scripts/hello.py") == refused
    checked = await tools.check_script("build", "scripts/hello.py")
    assert checked.problem == refused
    assert checked.digest == await tools.script_approvals.digest("build")  # the content checked


async def test_an_approval_lets_the_same_content_run_and_a_change_needs_another(
    tools: SkillTools, store: ApprovalStore, project: Path
) -> None:
    await tools.script_approvals.approve("build")
    result = await tools.run_skill_script("build", "scripts/hello.py")
    assert (result.get("exit_code"), result.get("stdout")) == (0, "hello\n")

    script = project / ".agents" / "skills" / "build" / "scripts" / "hello.py"
    await asyncio.to_thread(script.write_text, "print('swapped')\n")
    changed = await tools.run_skill_script("build", "scripts/hello.py")
    assert changed["error_code"] == codes.SCRIPT_NOT_APPROVED


async def test_an_approval_from_another_process_counts(
    tools: SkillTools, store: ApprovalStore
) -> None:
    other = await asyncio.to_thread(ApprovalStore, store.folder)  # as `skillfs approve` would
    catalog = SkillCatalog(tools.catalog.backend, trust=TrustPolicy(approvals=other))
    await catalog.refresh()
    await SkillTools(catalog, scripts=ScriptPolicy()).script_approvals.approve("build")
    result = await tools.run_skill_script("build", "scripts/hello.py")
    assert result.get("exit_code") == 0, result


async def test_a_trusted_project_or_no_store(project: Path) -> None:
    trusted = await tools_for(project, ScriptPolicy(timeout=10), trusted=True)
    assert (await trusted.run_skill_script("build", "scripts/hello.py")).get("exit_code") == 0
    untrusted = await tools_for(project, ScriptPolicy(timeout=10))
    result = await untrusted.run_skill_script("build", "scripts/hello.py")
    assert result["error_code"] == codes.SCRIPT_NOT_APPROVED
    await untrusted.script_approvals.approve("build")  # nowhere to keep it
    result = await untrusted.run_skill_script("build", "scripts/hello.py")
    assert result["error_code"] == codes.SCRIPT_NOT_APPROVED


async def test_the_suggested_command_is_one_a_shell_reads_back(tmp_path: Path) -> None:
    project = tmp_path / "my 'repo'\x1b]0;pwned\x07\u202e"
    skill = project / ".agents" / "skills" / "build"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_bytes(skill_md("build", "Builds."))
    (skill / "scripts" / "hello.py").write_text(HELLO)
    tools = await tools_for(project, ScriptPolicy(timeout=10))
    refused = await tools.run_skill_script("build", "scripts/hello.py")
    command = refused["error"].split("approve this content with: ", 1)[1]
    assert command.isprintable(), command
    shell = await asyncio.create_subprocess_exec(
        "bash",
        "-c",
        "skillfs() { printf '%s\\0' \"$@\"; }; " + command,
        stdout=asyncio.subprocess.PIPE,
    )
    words = (await shell.communicate())[0].decode().split("\0")[:-1]
    assert words == ["approve", str(project / ".agents" / "skills"), "build", "--scripts"]
