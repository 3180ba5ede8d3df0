"""Helpers for CLI tests: run ``main`` in-process, and a folder of good and broken skills."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from skills_core import _codes as codes
from skills_core.cli import main
from tests.remote.harnesses import S3Harness
from tests.remote.servers import S3Server
from tests.remote.settings import S3_KEY, S3_SECRET


@dataclass(frozen=True)
class Result:
    code: int
    out: str
    err: str


RunCli = Callable[..., Result]


@pytest.fixture(autouse=True)
def terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables are cut to the terminal width; make it the same everywhere."""
    monkeypatch.setenv("COLUMNS", "120")


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> RunCli:
    def run(*argv: str | Path) -> Result:
        capsys.readouterr()
        code = main([str(arg) for arg in argv])
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run


def skill_md(name: str, description: str = "Does a thing. Use when a thing is needed.") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\nSteps.\n"


GOOD = {
    "alpha": skill_md("alpha", "Alpha skill. Use for alpha tasks."),
    "beta": skill_md("beta", "Beta skill with <markup> & ampersands."),
    "gamma": skill_md("gamma"),
}
"""Skills with no problem at all."""

LENIENT = {
    "wordy": ("---\nname: wordy\ndescription: " + "w" * 1100 + "\n---\nBody.\n", codes.TOO_LONG),
    "extra-field": (
        "---\nname: extra-field\ndescription: d\ncolour: red\n---\nBody.\n",
        codes.UNKNOWN_FIELD,
    ),
}
"""Skills a lenient catalog loads with a warning and ``validate`` calls invalid."""

ADVICE = {"empty-body": ("---\nname: empty-body\ndescription: d\n---\n", codes.EMPTY_BODY)}
"""Valid skills that get advice (a warning) only."""

BROKEN = {
    "no-frontmatter": ("# Just markdown\n", codes.NO_FRONTMATTER),
    "no-description": ("---\nname: no-description\n---\nBody.\n", codes.DESCRIPTION_MISSING),
    "bad-yaml": ("---\nname: bad-yaml\ndescription: [unclosed\n---\nBody.\n", codes.INVALID_YAML),
    "unclosed": ("---\nname: unclosed\ndescription: d\n", codes.UNCLOSED_FRONTMATTER),
}
"""Skills every catalog refuses, with the code of the reason."""

RENAMED = {
    "misnamed": (
        "---\nname: other-name\ndescription: d\n---\nBody.\n",
        "other-name",
        codes.NAME_MISMATCH,
    ),
    "Upper": ("---\nname: Upper\ndescription: d\n---\nBody.\n", "Upper", codes.NAME_INVALID),
}
"""Skills a lenient catalog serves under their frontmatter name with a warning (folder: text,
served name, code) and ``validate`` calls invalid."""

STRICTLY_INVALID = {
    **LENIENT,
    **BROKEN,
    **{folder: (text, code) for folder, (text, _, code) in RENAMED.items()},
}
"""Every skill ``validate`` calls invalid, by folder, with the code of the reason."""


@pytest.fixture
def good_root(tmp_path: Path) -> Path:
    """``tmp_path/skills``, holding the GOOD skills and nothing else."""
    for name, text in GOOD.items():
        (tmp_path / "skills" / name).mkdir(parents=True)
        (tmp_path / "skills" / name / "SKILL.md").write_text(text)
    return tmp_path / "skills"


@pytest.fixture
def mixed_root(tmp_path: Path) -> Path:
    """Good, lenient, advice-only and broken skills side by side, plus folders that are no skill."""
    root = tmp_path / "skills"
    files = dict(GOOD)
    files.update((name, text) for name, (text, _) in {**ADVICE, **STRICTLY_INVALID}.items())
    for name, text in files.items():
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(text)
    (root / "beta" / "references").mkdir()
    (root / "beta" / "references" / "guide.md").write_text("# Guide\n")
    (root / "not-a-skill").mkdir()
    (root / "not-a-skill" / "README.md").write_text("no SKILL.md here\n")
    (root / ".hidden").mkdir()
    (root / ".hidden" / "SKILL.md").write_text(skill_md(".hidden"))
    return root


@pytest.fixture
def s3(
    monkeypatch: pytest.MonkeyPatch,
    s3_server: S3Server,
    s3_client: Any,
    bucket: str,
) -> S3Harness:
    """A fresh bucket on the moto server, reached through the standard AWS variables."""
    for name, value in {
        "AWS_ENDPOINT_URL": s3_server.url,
        "AWS_ACCESS_KEY_ID": S3_KEY,
        "AWS_SECRET_ACCESS_KEY": S3_SECRET,
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(name, value)
    return S3Harness(s3_server, s3_client, bucket)
