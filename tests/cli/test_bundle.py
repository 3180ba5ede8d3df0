"""`skillfs bundle`: validated skills in one deterministic zip, written anywhere."""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from backends import open_backend
from skills_core import SkillCatalog
from skills_core.cli import _output as output
from skills_core.cli._output import progress_bar
from skills_core.cli._source import EXAMPLES
from tests.cli.conftest import ADVICE, BROKEN, GOOD, LENIENT, RENAMED, STRICTLY_INVALID, RunCli
from tests.cli.test_subprocess import ROOT, skillfs
from tests.remote.harnesses import S3Harness
from tests.remote.settings import S3_KEY, S3_SECRET

INVALID = STRICTLY_INVALID


def skill_files(url: str | Path) -> dict[str, bytes]:
    """Every file of every skill that loads from ``url``, by ``<name>/<path>``."""

    async def load() -> dict[str, bytes]:
        catalog = SkillCatalog(open_backend(url))
        report = await catalog.refresh()
        assert report.failure is None
        files = {}
        for metadata in catalog.list():
            for item in (await catalog.get(metadata.name)).files:
                data = await catalog.read_resource(metadata.name, item.path)
                files[f"{metadata.name}/{item.path}"] = data
        return files

    return asyncio.run(load())


def summary(out: Path, *, suffix: str = "") -> str:
    data = out.read_bytes()
    files = skill_files(out)
    names = {key.split("/")[0] for key in files}
    return (
        f"wrote {out}: {len(names)} skills, {len(files)} files, {len(data)} bytes, "
        f"sha256 {hashlib.sha256(data).hexdigest()}{suffix}\n"
    )


def test_the_examples_bundle_into_a_zip_that_loads_back_byte_for_byte(
    cli: RunCli, tmp_path: Path
) -> None:
    out = tmp_path / "release" / "skills.zip"
    result = cli("bundle", "-o", out)
    assert result.code == 0
    assert result.err == ""  # stderr is no terminal: no progress bar
    assert result.out == summary(out)
    assert skill_files(out) == skill_files(EXAMPLES)
    assert len(skill_files(out)) == 12


def test_two_runs_give_byte_identical_bundles(cli: RunCli, tmp_path: Path) -> None:
    first, second = tmp_path / "first.zip", tmp_path / "second.zip"
    assert cli("bundle", EXAMPLES, "-o", first).code == 0
    assert cli("bundle", EXAMPLES, "-o", second).code == 0
    assert first.read_bytes() == second.read_bytes()


def test_one_skill_folder_is_bundled_alone(cli: RunCli, tmp_path: Path) -> None:
    out = tmp_path / "csv.zip"
    assert cli("bundle", EXAMPLES / "csv-insights", "-o", out).code == 0
    expected = skill_files(EXAMPLES)
    assert skill_files(out) == {
        key: data for key, data in expected.items() if key.startswith("csv-insights/")
    }


def test_strict_invalid_skills_stop_the_bundle_and_every_problem_is_listed(
    cli: RunCli, mixed_root: Path, tmp_path: Path
) -> None:
    out = tmp_path / "skills.zip"
    result = cli("bundle", mixed_root, "-o", out, "--strict")
    assert result.code == 1
    assert result.out == ""
    assert not out.exists()
    *problems, last = result.err.splitlines()
    assert len(problems) == len(INVALID)
    for name, (_, code) in INVALID.items():
        prefix = f"error: {mixed_root / name / 'SKILL.md'}: "
        assert any(line.startswith(prefix) and line.endswith(f"[{code}]") for line in problems)
    assert last == (
        f"error: {mixed_root}: nothing written: {len(INVALID)} invalid skills; "
        "fix them, or pass --skip-invalid to leave them out"
    )


def test_strict_skip_invalid_bundles_the_rest_and_names_what_it_skipped(
    cli: RunCli, mixed_root: Path, tmp_path: Path
) -> None:
    out = tmp_path / "skills.zip"
    result = cli("bundle", mixed_root, "-o", out, "--strict", "--skip-invalid")
    assert result.code == 0
    warnings = result.err.splitlines()
    assert len(warnings) == len(INVALID) + len(ADVICE)
    for name, (_, code) in INVALID.items():
        prefix = f"warning: {mixed_root / name / 'SKILL.md'}: "
        assert any(line.startswith(prefix) and line.endswith(f"[{code}]") for line in warnings)
    skipped = f"; skipped {len(INVALID)} invalid skills: {', '.join(sorted(INVALID))}"
    assert result.out == summary(out, suffix=skipped)
    valid = {*GOOD, *ADVICE}
    source = skill_files(mixed_root)
    assert skill_files(out) == {
        key: data for key, data in source.items() if key.split("/")[0] in valid
    }

    data = json.loads(
        cli("bundle", mixed_root, "-o", out, "--strict", "--skip-invalid", "--json").out
    )
    assert {problem["location"] for problem in data["skipped"]} == {
        str(mixed_root / name / "SKILL.md") for name in INVALID
    }
    assert data["skills"] == sorted(valid)


def test_by_default_a_bundle_carries_what_the_catalog_serves(
    cli: RunCli, mixed_root: Path, tmp_path: Path
) -> None:
    out = tmp_path / "skills.zip"
    stopped = cli("bundle", mixed_root, "-o", out)
    assert stopped.code == 1
    assert not out.exists()
    assert f"nothing written: {len(BROKEN)} invalid skills" in stopped.err

    result = cli("bundle", mixed_root, "-o", out, "--skip-invalid")
    assert result.code == 0
    assert skill_files(out) == skill_files(mixed_root)
    served = sorted([*GOOD, *LENIENT, *ADVICE, *(name for _, name, _ in RENAMED.values())])
    assert {key.split("/")[0] for key in skill_files(out)} == set(served)
    for name, (_, code) in {**LENIENT, **ADVICE}.items():
        prefix = f"warning: {mixed_root / name / 'SKILL.md'}: "
        assert any(
            line.startswith(prefix) and line.endswith(f"[{code}]")
            for line in result.err.splitlines()
        )


def test_skills_with_warnings_bundle_without_flags_and_strict_refuses_them(
    cli: RunCli, tmp_path: Path
) -> None:
    root = tmp_path / "lenient"
    for name, (text, _) in LENIENT.items():
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(text)
    out = tmp_path / "skills.zip"

    result = cli("bundle", root, "-o", out, "--json")
    assert result.code == 0
    data = json.loads(result.out)
    assert data["skills"] == sorted(LENIENT)
    assert sorted(problem["code"] for problem in data["warnings"]) == sorted(
        code for _, code in LENIENT.values()
    )
    strict = cli("bundle", root, "-o", tmp_path / "strict.zip", "--strict")
    assert strict.code == 1
    assert not (tmp_path / "strict.zip").exists()


def test_json_summary(cli: RunCli, tmp_path: Path) -> None:
    out = tmp_path / "skills.zip"
    result = cli("bundle", "-o", out, "--json")
    assert result.code == 0
    data = out.read_bytes()
    assert json.loads(result.out) == {
        "source": str(EXAMPLES),
        "location": str(out),
        "skills": ["api-docs", "csv-insights", "git-commit-messages", "release-notes"],
        "files": len(skill_files(EXAMPLES)),
        "bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "skipped": [],
        "warnings": [],
    }


def test_an_unreadable_source_or_unwritable_output_is_one_line_and_exit_2(
    cli: RunCli, tmp_path: Path
) -> None:
    missing = cli("bundle", tmp_path / "missing", "-o", tmp_path / "skills.zip")
    assert missing.code == 2
    assert missing.err == (
        f"error: {tmp_path / 'missing'}: cannot list skills folder: No such file or directory\n"
    )
    blocker = tmp_path / "file"
    blocker.write_bytes(b"a file where a folder should be")
    unwritable = cli("bundle", "-o", blocker / "skills.zip")
    assert unwritable.code == 2
    assert unwritable.err.startswith(f"error: {blocker / 'skills.zip'}: cannot write: ")
    assert unwritable.err.count("\n") == 1
    assert unwritable.out == ""
    assert sorted(path.name for path in tmp_path.iterdir()) == ["file"]


def uploaded(s3: S3Harness, key: str) -> bytes:
    return bytes(s3.client.get_object(Bucket=s3.bucket, Key=key)["Body"].read())


def test_bucket_to_bucket_with_credentials_from_the_aws_environment(
    cli: RunCli, tmp_path: Path, s3: S3Harness
) -> None:
    s3.put_tree(skill_files(EXAMPLES))
    s3.server.log.reset()
    url = f"s3://{s3.bucket}/releases/skills.zip"

    result = cli("bundle", s3.url, "-o", url)
    assert result.code == 0, result.err
    assert result.out.startswith(f"wrote {url}: 4 skills, 12 files, ")
    assert s3.server.log.count("PUT", "releases/skills.zip") == 1
    assert cli("bundle", "-o", tmp_path / "local.zip").code == 0
    local = (tmp_path / "local.zip").read_bytes()
    assert uploaded(s3, "releases/skills.zip") == local  # same skills, same bytes
    assert skill_files(url) == skill_files(EXAMPLES)

    nowhere = cli("bundle", "-o", "s3://no-such-bucket-here/skills.zip")
    assert nowhere.code == 2
    assert nowhere.err.startswith("error: s3://no-such-bucket-here/skills.zip: ")
    assert nowhere.err.count("\n") == 1
    assert S3_SECRET not in nowhere.err


def test_fsspec_environment_variables_configure_the_upload(s3: S3Harness) -> None:
    env = {name: value for name, value in os.environ.items() if not name.startswith("AWS_")}
    env.update(
        FSSPEC_S3_ENDPOINT_URL=s3.server.url,
        FSSPEC_S3_KEY=S3_KEY,
        FSSPEC_S3_SECRET=S3_SECRET,
        FSSPEC_S3_CLIENT_KWARGS=json.dumps({"region_name": "us-east-1"}),
    )
    url = f"s3://{s3.bucket}/skills.zip"
    result = skillfs("bundle", "-o", url, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"wrote {url}: 4 skills")
    assert s3.server.log.count("PUT", "skills.zip") == 1
    assert hashlib.sha256(uploaded(s3, "skills.zip")).hexdigest() in result.stdout


def test_a_progress_bar_is_drawn_when_stderr_is_a_terminal(tmp_path: Path) -> None:
    controller, terminal = os.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "skills_core.cli", "bundle", "-o", str(tmp_path / "skills.zip")],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=terminal,
    )
    os.close(terminal)
    drawn = b""
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # every end of the terminal closed (Linux)
            break
        if not chunk:
            break
        drawn += chunk
    os.close(controller)
    stdout, _ = process.communicate(timeout=60)
    assert process.returncode == 0
    assert drawn.startswith(b"\r[")
    assert drawn.endswith(b"\r[" + b"#" * output.BAR_WIDTH + b"] 4/4 skills\r\n")
    assert stdout.startswith(b"wrote ")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_bar_redraws_at_most_ten_times_a_second_and_always_shows_the_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = Clock()
    monkeypatch.setattr(output.time, "monotonic", clock)
    stream = Terminal()
    with progress_bar(stream) as bar:
        assert bar is not None
        for done in range(1, 11):
            bar(done, 10)
            clock.now += 0.04
    frames = stream.getvalue().split("\r")[1:]
    assert frames == [
        "[###                           ] 1/10 skills",
        "[############                  ] 4/10 skills",
        "[#####################         ] 7/10 skills",
        "[##############################] 10/10 skills\n",
    ]


def interrupted_after_one_of_three(stream: Terminal) -> None:
    with progress_bar(stream) as bar:
        assert bar is not None
        bar(1, 3)
        raise KeyboardInterrupt


def test_the_bar_ends_its_line_when_interrupted_and_is_off_without_a_terminal() -> None:
    stream = Terminal()
    with pytest.raises(KeyboardInterrupt):
        interrupted_after_one_of_three(stream)
    assert stream.getvalue() == "\r[##########                    ] 1/3 skills\n"

    with progress_bar(io.StringIO()) as bar:
        assert bar is None
