"""A command-line word of 100,000 characters is quoted by its start and its length."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import GOOD, RunCli

LONG = "x" * 100_000


@pytest.mark.parametrize(
    "argv",
    [
        ("show", "{root}", LONG),
        ("prompt", "--budget", LONG),
        ("lock", "{root}", "-o", "{lock}", "--update", LONG),
        ("approvals", "--revoke", LONG),
    ],
)
def test_a_long_argument_is_quoted_by_its_start(
    cli: RunCli, tmp_path: Path, argv: tuple[str, ...]
) -> None:
    root, lock = tmp_path / "skills", tmp_path / "skills.lock"
    for name, text in GOOD.items():
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(text)
    assert cli("lock", root, "-o", lock).code == 0
    result = cli(*(word.format(root=root, lock=lock) for word in argv))
    assert result.code != 0
    assert len(result.out + result.err) <= 1_000, result.err[:300]
    assert "… [100,000 characters]" in result.err
