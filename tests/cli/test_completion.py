"""Shell completion, through argcomplete's own hooks in a real ``skillfs`` process.

A shell's script runs ``skillfs`` with ``_ARGCOMPLETE``, ``COMP_LINE`` and ``COMP_POINT`` set
and reads the answer from a file descriptor; ``_ARGCOMPLETE_STDOUT_FILENAME`` sends it to a
file instead, which is what these tests read.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from skills_core.cli._app import COMMANDS
from tests.cli.conftest import GOOD
from tests.cli.test_subprocess import ROOT, skillfs
from tests.support.processes import run_python

# Records the modules loaded when argcomplete ends the process (with os._exit, so no atexit).
_RECORD_AT_EXIT = """
import json, os, runpy, sys
record = sys.argv.pop(1)
real_exit = os._exit
def recording_exit(code):
    with open(record, "w") as file:
        file.write(json.dumps(sorted(sys.modules)))
    real_exit(code)
os._exit = recording_exit  # before argcomplete binds it as its default exit
runpy.run_module("skills_core.cli", run_name="__main__", alter_sys=True)
"""


def completions(line: str, tmp_path: Path, *, cwd: Path = ROOT) -> tuple[list[str], set[str]]:
    """What ``skillfs`` offers for ``line`` (cursor at its end), and the modules it loaded."""
    answer, record = tmp_path / "answer", tmp_path / "modules.json"
    env = {
        "_ARGCOMPLETE": "1",
        "_ARGCOMPLETE_SHELL": "bash",
        "_ARGCOMPLETE_IFS": "\n",
        "_ARGCOMPLETE_STDOUT_FILENAME": str(answer),
        "COMP_LINE": line,
        "COMP_POINT": str(len(line)),
    }
    done = run_python("-c", _RECORD_AT_EXIT, str(record), cwd=cwd, env=env)
    assert done.returncode == 0, done.stderr
    offered = [word.strip() for word in answer.read_text().split("\n") if word.strip()]
    return offered, set(json.loads(record.read_text()))


@pytest.fixture
def root(good_root: Path) -> Path:
    return good_root


def test_commands_complete_without_loading_any_command(tmp_path: Path) -> None:
    offered, modules = completions("skillfs ", tmp_path)
    assert [command.name for command in COMMANDS] == [
        word for word in offered if not word.startswith("-")
    ]
    unwanted = {
        module
        for module in modules
        if module.split(".")[0] in ("fsspec", "google")
        or (
            module.startswith(("skills_core.cli._commands.", "skills_core._catalog"))
            and module != "skills_core.cli._commands.completion"
        )
    }
    assert unwanted == set()
    assert completions("skillfs val", tmp_path)[0] == ["validate"]


def test_options_of_the_command_on_the_line(tmp_path: Path) -> None:
    offered, modules = completions("skillfs show --", tmp_path)
    assert {"--json", "--lock", "--no-cache", "--help"} <= set(offered)
    assert not any(module.startswith("google") for module in modules)
    assert completions("skillfs completion ", tmp_path)[0][-3:] == ["bash", "zsh", "fish"]


def test_skill_names_of_the_bundled_examples_by_default(tmp_path: Path) -> None:
    assert completions("skillfs show cs", tmp_path)[0] == ["csv-insights"]
    assert completions("skillfs approve git", tmp_path)[0] == ["git-commit-messages"]


@pytest.mark.parametrize("command", ["show", "approve"])
def test_skill_names_of_the_source_given_earlier_on_the_line(
    root: Path, tmp_path: Path, command: str
) -> None:
    offered, _ = completions(f"skillfs {command} {root} ", tmp_path)
    assert set(GOOD) <= set(offered)
    assert "csv-insights" not in offered  # not the examples': the source on the line
    assert completions(f"skillfs {command} --json {root} be", tmp_path)[0] == ["beta"]


@pytest.mark.parametrize(
    ("shell", "marker"),
    [
        ("bash", "complete -o nospace -o default -o bashdefault -F _python_argcomplete skillfs"),
        ("zsh", "compdef _python_argcomplete skillfs"),
        ("fish", "complete --command skillfs -f -a '(__fish_skillfs_complete)'"),
    ],
)
def test_one_command_prints_each_shells_script(shell: str, marker: str) -> None:
    result = skillfs("completion", shell)
    assert result.returncode == 0
    assert marker in result.stdout
    assert "_ARGCOMPLETE" in result.stdout


def test_bash_installs_the_script_with_eval() -> None:
    result = subprocess.run(
        [
            "bash",
            "-c",
            'eval "$(python -m skills_core.cli completion bash)" && complete -p skillfs',
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("-F _python_argcomplete skillfs")
