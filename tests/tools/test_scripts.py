"""Running skill scripts: off by default, confined, no shell, scrubbed, time-limited, capped."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from backends import Backend, LocalBackend
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core import _codes as codes
from skills_core.tools import ScriptPolicy, SkillTools
from skills_core.tools._policy import shebang
from tests.tools.skillset import PDF_SKILL, CountingMemoryBackend


async def make_tools(backend: Backend, policy: ScriptPolicy | None) -> SkillTools:
    catalog = SkillCatalog(backend)
    await catalog.refresh()
    return SkillTools(catalog, scripts=policy)


@pytest.fixture
def backend() -> CountingMemoryBackend:
    return CountingMemoryBackend({"pdf": PDF_SKILL})


@pytest.fixture
async def tools(backend: CountingMemoryBackend) -> AsyncIterator[SkillTools]:
    tools = await make_tools(backend, ScriptPolicy(timeout=10))
    yield tools
    await tools.close()


def lines(result: dict[str, object]) -> dict[str, str]:
    stdout = result["stdout"]
    assert isinstance(stdout, str)
    return {key: value for key, _, value in (line.partition(" ") for line in stdout.splitlines())}


async def test_scripts_are_off_unless_enabled(backend: CountingMemoryBackend) -> None:
    tools = await make_tools(backend, None)
    result = await tools.run_skill_script("pdf", "scripts/hello.py")
    assert result["error_code"] == codes.SCRIPTS_DISABLED
    assert backend.calls["files"] == 0


async def test_python_script_runs_in_a_copy_of_the_skill(tools: SkillTools) -> None:
    result = await tools.run_skill_script("pdf", "scripts/hello.py", ["a b", "$HOME", ";ls"])
    assert result["exit_code"] == 0, result
    out = lines(result)
    assert out["hello"] == "a b $HOME ;ls"  # an argument list: no shell ever sees them
    assert out["guide"] == "# Forms"  # the working directory is the skill folder
    assert Path(out["cwd"]).name.startswith("skillfs-pdf-")
    assert stat.S_IMODE(os.stat(out["cwd"]).st_mode) == 0o700


async def test_options_mapping_becomes_long_options(tools: SkillTools) -> None:
    result = await tools.run_skill_script(
        "pdf", "scripts/hello.py", {"pages": 3, "verbose": True, "dry-run": False}
    )
    assert lines(result)["hello"] == "--pages 3 --verbose"


async def test_bash_script_and_failing_exit_code(tools: SkillTools) -> None:
    bash = await tools.run_skill_script("pdf", "scripts/hello.sh", ["hi"])
    assert bash["stdout"] == "bash says hi\n"
    failed = await tools.run_skill_script("pdf", "scripts/fail.py")
    assert failed["exit_code"] == 3
    assert failed["stderr"] == "bad input\n"
    assert "error_code" not in failed


async def test_environment_is_scrubbed(
    backend: CountingMemoryBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "do-not-leak")
    monkeypatch.setenv("LANG", "C.UTF-8")
    tools = await make_tools(backend, ScriptPolicy(env={"REPORT_MODE": "brief"}))
    result = await tools.run_skill_script("pdf", "scripts/env.py")
    await tools.close()
    seen = json.loads(str(result["stdout"]))
    assert "AWS_SECRET_ACCESS_KEY" not in seen
    assert seen["LANG"] == "C.UTF-8"
    assert seen["REPORT_MODE"] == "brief"
    runner_set = {"PYTHONPATH", "HOME", "TMPDIR", "TMP", "TEMP", "PWD"}  # bubblewrap sets PWD
    assert set(seen) <= {*ScriptPolicy().env_allow, "REPORT_MODE", "PYTHONIOENCODING", *runner_set}


async def test_other_file_types_need_a_configured_interpreter(
    backend: CountingMemoryBackend,
) -> None:
    tools = await make_tools(backend, ScriptPolicy())
    refused = await tools.run_skill_script("pdf", "scripts/tool.js")
    assert refused["error_code"] == codes.UNSUPPORTED_SCRIPT
    assert ".py" in refused["error"]
    interpreters = {**ScriptPolicy.DEFAULT_INTERPRETERS, ".run": (sys.executable,)}
    configured = await make_tools(backend, ScriptPolicy(interpreters=interpreters))
    result = await configured.run_skill_script("pdf", "scripts/tool.run")
    assert result["stdout"] == "custom interpreter\n"
    await configured.close()


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("../beta/scripts/x.py", codes.INVALID_PATH),
        ("scripts/../../beta/x.py", codes.INVALID_PATH),
        ("/usr/bin/env.py", codes.INVALID_PATH),
        ("C:/tools/x.py", codes.INVALID_PATH),
        ("scripts\\hello.py", codes.INVALID_PATH),
        ("scripts/.git/hooks/pre-commit.py", codes.INVALID_PATH),
        ("scripts/.env", codes.INVALID_PATH),
        ("scripts/missing.py", codes.SCRIPT_NOT_FOUND),
        ("", codes.INVALID_ARGUMENTS),
    ],
)
async def test_hostile_script_paths_are_refused(tools: SkillTools, path: str, code: str) -> None:
    result = await tools.run_skill_script("pdf", path)
    assert result["error_code"] == code


@pytest.mark.parametrize("args", ["--all", [["nested"]], {"x": {"y": 1}}, {"-x": 1}, 5])
async def test_malformed_arguments_are_refused(tools: SkillTools, args: object) -> None:
    result = await tools.run_skill_script("pdf", "scripts/hello.py", args)
    assert result["error_code"] == codes.INVALID_ARGUMENTS


async def test_output_is_capped(backend: CountingMemoryBackend) -> None:
    tools = await make_tools(backend, ScriptPolicy(max_output_bytes=1000))
    result = await tools.run_skill_script("pdf", "scripts/loud.py")
    await tools.close()
    assert result["stdout"] == "x" * 1000
    assert result["stdout_truncated"] is True
    assert result["exit_code"] == 0


async def test_copy_is_made_once_per_version(
    backend: CountingMemoryBackend, tools: SkillTools
) -> None:
    first = lines(await tools.run_skill_script("pdf", "scripts/hello.py"))["cwd"]
    reads = backend.calls["read"]
    assert reads == len(PDF_SKILL) - 1  # SKILL.md comes from the catalog, not storage
    again = lines(await tools.run_skill_script("pdf", "scripts/hello.py"))["cwd"]
    assert again == first
    assert backend.calls["read"] == reads  # the copy is reused: nothing read again
    backend.put("pdf", {**PDF_SKILL, "references/forms.md": "# Forms v2\n"})
    await tools.catalog.refresh()
    changed = lines(await tools.run_skill_script("pdf", "scripts/hello.py"))
    assert changed["guide"] == "# Forms v2"
    assert changed["cwd"] != first
    assert not await asyncio.to_thread(os.path.exists, first)  # the old copy is gone
    await tools.close()
    assert not await asyncio.to_thread(os.path.exists, changed["cwd"])


async def test_oversize_skill_is_not_copied(backend: CountingMemoryBackend) -> None:
    tools = await make_tools(backend, ScriptPolicy(max_workspace_bytes=100))
    result = await tools.run_skill_script("pdf", "scripts/hello.py")
    assert result["error_code"] == codes.RESOURCE_TOO_LARGE
    assert backend.calls["read"] == 0


@pytest.fixture
def local_skills(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    for path, data in PDF_SKILL.items():
        target = root / "pdf" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data if isinstance(data, bytes) else data.encode())
    outside = tmp_path / "outside.py"
    outside.write_text("print('escaped')\n")
    (root / "pdf" / "scripts" / "escape.py").symlink_to(outside)
    (root / "pdf" / "scripts" / "inner.py").symlink_to(root / "pdf" / "scripts" / "hello.py")
    (root / "beta").mkdir()
    (root / "beta" / "SKILL.md").write_bytes(skill_md("beta"))
    return root


async def test_local_skills_run_in_place(local_skills: Path) -> None:
    tools = await make_tools(LocalBackend(local_skills), ScriptPolicy())
    result = await tools.run_skill_script("pdf", "scripts/inner.py")
    assert lines(result)["cwd"] == await asyncio.to_thread(os.path.realpath, local_skills / "pdf")


async def test_symlinks_out_of_the_skill_are_refused(local_skills: Path) -> None:
    tools = await make_tools(LocalBackend(local_skills), ScriptPolicy())
    result = await tools.run_skill_script("pdf", "scripts/escape.py")
    assert result["error_code"] == codes.SCRIPT_NOT_FOUND
    assert "escaped" not in str(result)


def test_policy_refuses_nonsense() -> None:
    with pytest.raises(ValueError, match="timeout"):
        ScriptPolicy(timeout=0)
    with pytest.raises(ValueError, match="interpreters"):
        ScriptPolicy(interpreters={"py": ("python",)})


async def test_missing_interpreter_is_a_value(backend: CountingMemoryBackend) -> None:
    policy = ScriptPolicy(interpreters={".py": ("/nonexistent/python3",)})
    tools = await make_tools(backend, policy)
    result = await tools.run_skill_script("pdf", "scripts/hello.py")
    await tools.close()
    assert result["error_code"] == codes.SCRIPT_FAILED
    assert "/nonexistent/python3" in result["error"]


async def test_check_script_runs_nothing(tools: SkillTools, backend: CountingMemoryBackend) -> None:
    assert await tools.check_script("pdf", "scripts/hello.py", ["x"]) == ({}, None)
    missing, _ = await tools.check_script("pdf", "scripts/nope.py")
    assert missing["error_code"] == codes.SCRIPT_NOT_FOUND
    assert backend.calls["read"] == 0  # nothing was copied, so nothing ran


async def test_copies_are_read_only_and_scripts_executable(tools: SkillTools) -> None:
    copy = Path(lines(await tools.run_skill_script("pdf", "scripts/hello.py"))["cwd"])
    modes = {
        path: stat.S_IMODE((copy / path).stat().st_mode)
        for path in ("SKILL.md", "references/forms.md", "scripts/hello.sh", "scripts/tool.js")
    }
    assert modes == {
        "SKILL.md": 0o444,
        "references/forms.md": 0o444,
        "scripts/hello.sh": 0o555,  # memory storage records no modes: scripts/ is executable
        "scripts/tool.js": 0o555,
    }


@pytest.mark.parametrize(
    ("head", "words"),
    [
        (b"#!/usr/bin/env bash\necho", ("bash",)),
        (b"#!/usr/bin/env -S python3 -u\n", ("python3", "-u")),
        (b"#!/bin/bash -e\n", ("/bin/bash", "-e")),
        (b"#! /bin/sh\n", ("/bin/sh",)),
        (b"#!/usr/bin/env -i node\n", None),  # env options other than -S are not followed
        (b"echo hi\n", None),
        (b"#!\n", None),
    ],
)
def test_shebang_lines(head: bytes, words: tuple[str, ...] | None) -> None:
    assert shebang(head) == words


async def test_check_script_reads_the_shebang_of_extensionless_scripts() -> None:
    backend = CountingMemoryBackend(
        {
            "pdf": {
                **PDF_SKILL,
                "scripts/brief": "#!/usr/bin/env bash\necho hi\n",
                "scripts/node-tool": "#!/usr/bin/env node\nconsole.log(1)\n",
            }
        }
    )
    tools = await make_tools(backend, ScriptPolicy())
    assert await tools.check_script("pdf", "scripts/brief") == ({}, None)
    refused, _ = await tools.check_script("pdf", "scripts/node-tool")
    await tools.close()
    assert refused["error_code"] == codes.UNSUPPORTED_SCRIPT
    assert "'node'" in refused["error"]
