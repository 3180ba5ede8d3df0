"""One exit-code table for every command: in ``skillfs --help`` and docs/cli.md, from exits.py."""

from __future__ import annotations

import re

from skills_core.cli import _exits as exits
from tests.cli.test_subprocess import ROOT, skillfs

BACKTICK, QUOTE = "`", "'"
PAGE = (ROOT / "docs" / "cli.md").read_text()


def documented_table() -> list[tuple[int, str]]:
    section = PAGE.split("## Exit codes\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (\d+) \| (.+) \|$", section, flags=re.M)
    return [(int(code), text.replace("\\|", "|")) for code, text in rows]


def test_the_docs_table_is_the_code_table() -> None:
    assert documented_table() == list(exits.TABLE)


def test_help_prints_every_code_of_every_command() -> None:
    result = skillfs("--help")
    assert result.returncode == 0
    text = " ".join(result.stdout.split())  # as wrapped for the terminal
    for code, meaning in exits.TABLE:
        assert f" {code} {meaning.replace(BACKTICK, QUOTE)}" in text, code
    for missing_before in ("'lock --check'", "'approve --digest'", "'approvals --revoke'"):
        assert missing_before in text
