"""`skillfs approve` and `skillfs approvals`: approvals by skill content, from any source."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from backends._digests import digest_of, files_digest
from skills_core._trust.approvals import ApprovalStore
from skills_core.cli._source import EXAMPLES
from tests.cli.conftest import RunCli, skill_md
from tests.cli.test_bundle import skill_files
from tests.cli.test_subprocess import ROOT
from tests.remote.harnesses import S3Harness

SKILL = "csv-insights"


def content_digest(root: Path) -> str:
    """The digest of every file of one skill folder, computed here by hand."""
    files = [path for path in root.rglob("*") if path.is_file()]
    return files_digest({p.relative_to(root).as_posix(): digest_of(p.read_bytes()) for p in files})


def stored(cli: RunCli) -> list[dict[str, object]]:
    result = cli("approvals", "--json")
    assert result.code == 0, result.err
    return json.loads(result.out)["approvals"]  # type: ignore[no-any-return]


def test_approve_records_the_content_digest_in_a_private_file(cli: RunCli) -> None:
    digest = content_digest(EXAMPLES / SKILL)
    result = cli("approve", SKILL, "--scripts")
    assert result.code == 0, result.err
    assert result.out == f"approved scripts of skill {SKILL!r} ({digest})\n"
    assert cli("approve", SKILL, "--tools").out == (
        f"approved scripts and allowed-tools of skill {SKILL!r} ({digest})\n"
    )
    path = Path(os.environ["SKILLFS_CACHE_DIR"]) / "approvals.json"
    assert path.stat().st_mode & 0o777 == 0o600
    [approval] = stored(cli)
    assert (approval["digest"], approval["scripts"], approval["tools"]) == (digest, True, True)
    table = cli("approvals").out.splitlines()
    assert table[0].split() == ["NAME", "APPROVED", "ON", "DIGEST", "SOURCE"]
    assert table[1].startswith(f"{SKILL}  scripts and allowed-tools  ")


def test_revoke_by_name_or_digest(cli: RunCli) -> None:
    cli("approve", SKILL, "--scripts")
    digest = content_digest(EXAMPLES / SKILL)
    assert cli("approvals", "--revoke", digest).out == f"revoked 1 approval of {digest!r}\n"
    assert stored(cli) == []
    missing = cli("approvals", "--revoke", SKILL)
    assert missing.code == 1
    assert missing.err.endswith(f"no approval of {SKILL!r}\n")


def test_approve_needs_something_to_approve(cli: RunCli) -> None:
    result = cli("approve", SKILL)
    assert (result.code, result.err) == (
        2,
        "error: say what to approve: --scripts, --tools or both\n",
    )
    assert cli("approve", "no-such-skill", "--tools").code == 2
    assert stored(cli) == []


def test_a_changed_skill_is_a_new_content(cli: RunCli, tmp_path: Path) -> None:
    root = tmp_path / "skills"
    shutil.copytree(EXAMPLES, root)
    cli("approve", root, SKILL, "--scripts")
    (root / SKILL / "scripts" / "extra.py").write_text("print('new')\n")
    cli("approve", root, SKILL, "--tools")
    grants = {a["digest"]: (a["scripts"], a["tools"]) for a in stored(cli)}
    assert len(grants) == 2  # the old content keeps its own approval
    assert grants[content_digest(root / SKILL)] == (False, True)


@pytest.fixture
def sources(cli: RunCli, tmp_path: Path, s3: S3Harness) -> dict[str, str]:
    """The examples as a local folder, an S3 prefix, a zip bundle and a published index."""
    s3.put_tree(skill_files(EXAMPLES))
    bundle, site = tmp_path / "skills.zip", tmp_path / "site"
    assert cli("bundle", EXAMPLES, "-o", bundle).code == 0
    assert cli("publish", EXAMPLES, "-o", site).code == 0
    return {"local": str(EXAMPLES), "s3": s3.url, "zip": str(bundle), "index": str(site)}


def test_every_source_gives_the_same_content_one_approval(
    cli: RunCli, sources: dict[str, str]
) -> None:
    digest = content_digest(EXAMPLES / SKILL)
    for kind, url in sources.items():
        result = cli("approve", url, SKILL, "--scripts")
        assert result.code == 0, (kind, result.err)
        assert digest in result.out, kind
    [approval] = stored(cli)
    assert approval["digest"] == digest


def test_approve_takes_the_name_a_skill_is_served_under(cli: RunCli, tmp_path: Path) -> None:
    """A skill in a folder of another name is approved by its name; a folder name is refused."""
    root = tmp_path / "skills"
    shutil.copytree(EXAMPLES / SKILL, root / "renamed")
    (root / "broken").mkdir()
    (root / "broken" / "SKILL.md").write_text("no frontmatter\n")
    result = cli("approve", root, SKILL, "--scripts")
    assert result.code == 0, result.err
    [approval] = stored(cli)
    assert (approval["name"], approval["digest"]) == (SKILL, content_digest(root / "renamed"))
    for name in ("renamed", "broken"):
        refused = cli("approve", root, name, "--scripts")
        assert refused.code == 2
        assert refused.err.startswith(f"error: {root}: no loaded skill named {name!r}")
    assert len(stored(cli)) == 1


def shown_digest(cli: RunCli, *argv: str | Path) -> str:
    """The content digest ``skillfs show`` prints, as a user copies it."""
    result = cli("show", *argv)
    assert result.code == 0, result.err
    [line] = [line for line in result.out.splitlines() if line.startswith("digest:")]
    return line.split()[1]


def test_show_prints_the_digest_approve_binds_to(cli: RunCli, tmp_path: Path) -> None:
    root = tmp_path / "skills"
    shutil.copytree(EXAMPLES, root)
    digest = shown_digest(cli, root, SKILL)
    assert digest == content_digest(root / SKILL)
    shown = json.loads(cli("show", root, SKILL, "--json").out)
    assert shown["digest"] == digest
    result = cli("approve", root, SKILL, "--scripts", "--digest", digest)
    assert result.code == 0, result.err
    assert result.out == f"approved scripts of skill {SKILL!r} ({digest})\n"
    assert [approval["digest"] for approval in stored(cli)] == [digest]


def test_a_skill_swapped_after_the_review_is_not_approved(cli: RunCli, tmp_path: Path) -> None:
    root = tmp_path / "skills"
    shutil.copytree(EXAMPLES, root)
    reviewed = shown_digest(cli, root, SKILL)
    (root / SKILL / "scripts" / "profile_csv.py").write_text("print('swapped')\n")
    now = content_digest(root / SKILL)
    result = cli("approve", root, SKILL, "--scripts", "--digest", reviewed)
    assert (result.code, result.out) == (1, "")
    assert result.err == (
        f"error: {root}: skill {SKILL!r} is {now} now, not {reviewed} as reviewed; "
        "not approved (show it again)\n"
    )
    assert stored(cli) == []


def test_a_malformed_digest_is_a_usage_error(cli: RunCli) -> None:
    result = cli("approve", SKILL, "--scripts", "--digest", "6c0e")
    assert result.code == 2
    assert "not a sha256: digest" in result.err
    assert stored(cli) == []


def test_a_control_character_in_a_file_name_refuses_the_skill(cli: RunCli, tmp_path: Path) -> None:
    """A name that spells another file's entry (or an escape sequence) is never digested."""
    root = tmp_path / "skills"
    shutil.copytree(EXAMPLES / SKILL, root / SKILL)
    shutil.copytree(EXAMPLES / SKILL, root / "forged")
    (root / "forged" / "SKILL.md").write_text(skill_md("forged"))
    (root / "forged" / "scripts").rename(root / "forged" / "notes.md\n\x1b[2J  scripts")
    said = (
        f"error: {root}/forged/notes.md\\n\\x1b[2J  scripts: "
        "control character in a file name: 'notes.md\\n\\x1b[2J  scripts'\n"
    )
    for command in (("show", root, "forged"), ("approve", root, "forged", "--scripts")):
        result = cli(*command)
        assert (result.code, result.err) == (2, said)
    assert cli("approve", root, SKILL, "--scripts").code == 0
    assert [approval["name"] for approval in stored(cli)] == [SKILL]


def test_approvals_and_revocations_at_once_are_all_kept(tmp_path: Path) -> None:
    """Eight ``skillfs approve`` and four ``--revoke`` processes at once: none is lost."""
    root, names = tmp_path / "skills", [f"skill-{index}" for index in range(8)]
    for name in names:
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(skill_md(name))
    revoked = [f"sha256:{index:064x}" for index in range(4)]
    store = ApprovalStore()
    for digest in revoked:
        store.approve(digest, name="old", source=str(root), scripts=True)
    commands = [
        *(("approve", root, name, "--scripts") for name in names),
        *(("approvals", "--revoke", digest) for digest in revoked),
    ]
    processes = [
        subprocess.Popen([sys.executable, "-m", "skills_core.cli", *map(str, command)], cwd=ROOT)
        for command in commands
    ]
    assert [process.wait(timeout=120) for process in processes] == [0] * len(commands)
    store.reload()
    assert [approval.name for approval in store.approvals()] == names
