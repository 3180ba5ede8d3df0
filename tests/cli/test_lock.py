"""`skillfs lock`: write a lock, check a source against it (a CI gate), re-pin one skill."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from backends._digests import digest_of
from skills_core._errors import LockFileError
from skills_core._trust.lock import SkillLock
from tests.cli.conftest import GOOD, RunCli, skill_md


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    for name, text in GOOD.items():
        (root / name / "scripts").mkdir(parents=True)
        (root / name / "SKILL.md").write_text(text)
        (root / name / "scripts" / "run.py").write_text(f"print({name!r})\n")
    return root


@pytest.fixture
def lock_file(cli: RunCli, root: Path, tmp_path: Path) -> Path:
    path = tmp_path / "skills.lock"
    result = cli("lock", root, "-o", path)
    assert (result.code, result.out) == (0, f"wrote {path}: 3 skills, 6 files\n")
    return path


def test_the_lock_is_sorted_deterministic_json(cli: RunCli, root: Path, lock_file: Path) -> None:
    document = json.loads(lock_file.read_text())
    assert document["format"] == "skillfs-lock/1"
    assert document["source"] == str(root)
    assert [skill["name"] for skill in document["skills"]] == ["alpha", "beta", "gamma"]
    assert list(document["skills"][0]["files"]) == ["SKILL.md", "scripts/run.py"]
    first = lock_file.read_bytes()
    cli("lock", root, "-o", lock_file)
    assert lock_file.read_bytes() == first


def test_check_passes_on_an_unchanged_source(cli: RunCli, root: Path, lock_file: Path) -> None:
    result = cli("lock", "--check", "-o", lock_file)  # the source the lock records
    assert (result.code, result.out) == (0, f"{lock_file} matches {root}: 3 skills\n")


def test_check_lists_every_difference_and_exits_1(cli: RunCli, root: Path, lock_file: Path) -> None:
    (root / "alpha" / "scripts" / "run.py").write_text("print('swapped')\n")
    (root / "beta" / "notes.md").write_text("new\n")
    (root / "gamma" / "SKILL.md").unlink()
    (root / "delta").mkdir()
    (root / "delta" / "SKILL.md").write_text(skill_md("delta"))
    result = cli("lock", root, "--check", "-o", lock_file)
    assert result.code == 1
    assert result.out.splitlines() == [
        "changed file: alpha/scripts/run.py",
        "added file: beta/notes.md",
        "added skill: delta",
        "removed skill: gamma",
    ]
    assert result.err == f"error: {lock_file}: the source differs from the lock (4 differences)\n"


def test_update_re_pins_one_skill_only(cli: RunCli, root: Path, lock_file: Path) -> None:
    (root / "alpha" / "SKILL.md").write_text(skill_md("alpha", "Changed. Use for alpha."))
    (root / "beta" / "scripts" / "run.py").write_text("print('changed')\n")
    result = cli("lock", "--update", "alpha", "-o", lock_file)
    assert (result.code, result.out) == (0, f"re-pinned alpha in {lock_file}\n")
    check = cli("lock", "--check", "-o", lock_file)
    assert check.out.splitlines() == ["changed file: beta/scripts/run.py"]
    unknown = cli("lock", "--update", "nope", "-o", lock_file)
    assert (unknown.code, unknown.err) == (2, f"error: {lock_file}: no skill named 'nope' to pin\n")


def test_update_drops_a_skill_the_source_lost(cli: RunCli, root: Path, lock_file: Path) -> None:
    shutil.rmtree(root / "gamma")
    result = cli("lock", "--update", "gamma", "-o", lock_file)
    assert (result.code, result.out) == (0, f"removed gamma from {lock_file}\n")
    names = [skill["name"] for skill in json.loads(lock_file.read_text())["skills"]]
    assert names == ["alpha", "beta"]
    check = cli("lock", "--check", "-o", lock_file)
    assert (check.code, check.out) == (0, f"{lock_file} matches {root}: 2 skills\n")


def test_check_reports_a_moved_skill_and_update_re_pins_it(
    cli: RunCli, root: Path, lock_file: Path
) -> None:
    (root / "alpha").rename(root / "renamed")
    result = cli("lock", "--check", "-o", lock_file)
    assert result.code == 1
    assert result.out.splitlines() == ["moved skill: alpha: alpha -> renamed"]
    assert result.err.endswith(
        f"error: {lock_file}: the source differs from the lock (1 difference)\n"
    )
    assert cli("lock", "--update", "alpha", "-o", lock_file).code == 0
    [alpha] = [s for s in json.loads(lock_file.read_text())["skills"] if s["name"] == "alpha"]
    assert (alpha["folder"], alpha["location"]) == ("renamed", str(root / "renamed" / "SKILL.md"))
    check = cli("lock", "--check", "-o", lock_file)
    assert (check.code, check.out) == (0, f"{lock_file} matches {root}: 3 skills\n")


def test_list_with_a_lock_refuses_each_change_with_its_code(
    cli: RunCli, root: Path, lock_file: Path
) -> None:
    (root / "alpha" / "SKILL.md").write_text(skill_md("alpha", "Changed. Use for alpha."))
    (root / "gamma" / "SKILL.md").unlink()
    (root / "delta").mkdir()
    (root / "delta" / "SKILL.md").write_text(skill_md("delta"))
    result = cli("list", root, "--lock", lock_file)
    assert [line.split()[0] for line in result.out.splitlines()[1:]] == ["beta"]
    assert result.err.splitlines() == [
        f"error: {root}/alpha/SKILL.md: SKILL.md differs from the lock {lock_file}; refused "
        "[LOCK_MISMATCH]",
        f"error: {root}/delta/SKILL.md: not in the lock {lock_file}; not served [NOT_LOCKED]",
        f"error: {root}/gamma/SKILL.md: locked in {lock_file} but gone from the source "
        "[LOCK_MISSING]",
    ]


def test_an_unreadable_lock_serves_nothing(cli: RunCli, root: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.lock"
    bad.write_text("{}")
    result = cli("list", root, "--lock", bad)
    assert result.code == 2
    assert "not a skillfs lock" in result.err
    with pytest.raises(LockFileError, match="not a skillfs lock"):
        SkillLock.read(bad)


@pytest.mark.parametrize(
    ("key", "reason"),
    [
        (
            "./scripts/run.py",
            "skill 'alpha' names the file 'scripts/run.py' twice ('./scripts/run.py')",
        ),
        ("scripts/run.py", "key 'scripts/run.py' is repeated"),
    ],
)
def test_a_lock_naming_a_file_twice_is_refused(
    cli: RunCli, root: Path, lock_file: Path, key: str, reason: str
) -> None:
    """A second entry below the reviewed one must not pin the swapped script."""
    script = root / "alpha" / "scripts" / "run.py"
    reviewed = f'"scripts/run.py": "{digest_of(script.read_bytes())}"'
    script.write_text("print('swapped')\n")
    second = f'"{key}": "{digest_of(script.read_bytes())}"'
    lock_file.write_text(lock_file.read_text().replace(reviewed, f"{reviewed}, {second}", 1))
    said = f"error: {lock_file}: not a skillfs lock (ValueError: {reason})\n"
    for command in (("lock", "--check", "-o", lock_file), ("list", root, "--lock", lock_file)):
        result = cli(*command)
        assert (result.code, result.out, result.err) == (2, "", said)


def said(kind: str, root: Path, skill: str, message: str, code: str = "LOCK_MISMATCH") -> str:
    """One line the CLI prints about a skill of ``root``."""
    return f"{kind}: {root}/{skill}/SKILL.md: {message} [{code}]"


def swapped(root: Path, lock_file: Path, kind: str = "error") -> str:
    return said(kind, root, "alpha", f"scripts/run.py differs from the lock {lock_file}; refused")


def unlocked(root: Path, lock_file: Path, kind: str = "error") -> str:
    return said(kind, root, "delta", f"not in the lock {lock_file}; not served", "NOT_LOCKED")


def nothing_written(root: Path, refused: str = "1 invalid skill") -> str:
    return (
        f"error: {root}: nothing written: {refused}; fix them, or pass --skip-invalid to "
        "leave them out"
    )


def test_validate_with_a_lock_reports_each_mismatch_as_an_error(
    cli: RunCli, root: Path, lock_file: Path
) -> None:
    (root / "alpha" / "scripts" / "run.py").write_text("print('swapped')\n")
    (root / "beta" / "notes.md").write_text("new\n")
    (root / "gamma" / "scripts" / "run.py").unlink()
    (root / "delta").mkdir()
    (root / "delta" / "SKILL.md").write_text(skill_md("delta"))
    result = cli("validate", root, "--lock", lock_file)
    gone = f"scripts/run.py is locked in {lock_file} but gone from the skill"
    assert result.code == 1
    assert result.err.splitlines() == [
        swapped(root, lock_file),
        said("error", root, "beta", f"notes.md is not in the lock {lock_file}; refused"),
        unlocked(root, lock_file),
        said("error", root, "gamma", gone),
    ]
    last = result.out.splitlines()[-1]
    assert last == "4 skills checked: 0 valid, 4 invalid (4 errors, 0 warnings)"
    assert cli("validate", root).code == 0  # the spec alone passes them all


@pytest.mark.parametrize("command", ["bundle", "publish"])
def test_bundle_and_publish_with_a_lock_refuse_what_it_does_not_pin(
    cli: RunCli, root: Path, lock_file: Path, tmp_path: Path, command: str
) -> None:
    (root / "alpha" / "scripts" / "run.py").write_text("print('swapped')\n")
    (root / "delta").mkdir()
    (root / "delta" / "SKILL.md").write_text(skill_md("delta"))
    out = tmp_path / ("out.zip" if command == "bundle" else "site")
    result = cli(command, root, "-o", out, "--lock", lock_file)
    assert result.code == 1
    assert not out.exists()
    assert result.err.splitlines() == [  # one skill's NOT_LOCKED hides no LOCK_MISMATCH
        unlocked(root, lock_file),
        swapped(root, lock_file),
        nothing_written(root, "2 invalid skills"),
    ]
    result = cli(command, root, "-o", out, "--lock", lock_file, "--skip-invalid")
    assert result.code == 0
    assert result.err.splitlines() == [
        unlocked(root, lock_file, "warning"),
        swapped(root, lock_file, "warning"),
    ]
    assert "skipped 2 invalid skills: alpha, delta" in result.out


def test_bundle_with_a_lock_refuses_a_swapped_file(
    cli: RunCli, root: Path, lock_file: Path, tmp_path: Path
) -> None:
    (root / "alpha" / "scripts" / "run.py").write_text("print('swapped')\n")
    (root / "alpha" / "notes.md").write_text("new\n")
    result = cli("bundle", root, "-o", tmp_path / "out.zip", "--lock", lock_file)
    assert result.code == 1
    assert result.err.splitlines() == [  # every problem of the refused skill
        said("error", root, "alpha", f"notes.md is not in the lock {lock_file}; refused"),
        swapped(root, lock_file),
        nothing_written(root),
    ]
    (root / "alpha" / "notes.md").unlink()
    (root / "alpha" / "scripts" / "run.py").write_text("print('alpha')\n")
    done = cli("bundle", root, "-o", tmp_path / "out.zip", "--lock", lock_file)
    assert done.code == 0
    assert "3 skills" in done.out
