"""``skillfs bundle`` never damages its source, and writes files as other programs do (#8.9).

Before: ``-o SRC/some-skill/SKILL.md`` silently replaced a source file with the zip, every
bundle was written 0600 (even over a 0644 file), and ``-o ""`` failed with "cannot write: No
such file or directory".
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from backends import UnsafePathError, UnsupportedSourceError
from backends.testing import skill_md
from skills_core._bundle.writer import write_bundle
from skills_core.cli import main
from tests.remote.servers import S3Server
from tests.remote.settings import s3_options

SKILL = skill_md("pdf", "Reads PDFs.")


@pytest.fixture
def source(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    (root / "pdf" / "references").mkdir(parents=True)
    (root / "pdf" / "SKILL.md").write_bytes(SKILL)
    (root / "pdf" / "references" / "forms.md").write_text("# Forms\n")
    return root


@pytest.fixture
def umask() -> Iterator[None]:
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def bundle(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["bundle", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize(
    "inside",
    ["pdf/SKILL.md", "pdf/references/forms.md", "bundle.zip", "pdf/new.zip"],
)
def test_an_output_inside_the_source_is_refused_and_nothing_changes(
    capsys: pytest.CaptureFixture[str], source: Path, inside: str
) -> None:
    before = {path: path.read_bytes() for path in source.rglob("*") if path.is_file()}
    out = source / inside
    code, stdout, err = bundle(capsys, source, "-o", out)
    assert code == 2
    assert stdout == ""
    assert err == (
        f"error: {out}: the bundle would be written inside its source {source}: "
        "write it elsewhere\n"
    )
    assert {path: path.read_bytes() for path in source.rglob("*") if path.is_file()} == before


def test_a_link_into_the_source_is_seen_through(
    capsys: pytest.CaptureFixture[str], source: Path, tmp_path: Path
) -> None:
    (tmp_path / "release").symlink_to(source / "pdf")
    code, _, err = bundle(capsys, source, "-o", tmp_path / "release" / "SKILL.md")
    assert code == 2
    assert "inside its source" in err
    assert (source / "pdf" / "SKILL.md").read_bytes() == SKILL


def test_one_skill_folder_may_be_bundled_next_to_itself(
    capsys: pytest.CaptureFixture[str], source: Path
) -> None:
    code, _, err = bundle(capsys, source / "pdf", "-o", source / "pdf.zip")
    assert (code, err) == (0, "")
    code, _, err = bundle(capsys, source / "pdf", "-o", source / "pdf" / "pdf.zip")
    assert code == 2
    assert "inside its source" in err


async def test_a_bucket_output_inside_the_bucket_source_is_refused_unsent(
    s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    s3_client.put_object(Bucket=bucket, Key="skills/pdf/SKILL.md", Body=SKILL)
    s3_server.log.reset()
    with pytest.raises(UnsafePathError, match="inside its source"):
        await write_bundle(
            f"s3://{bucket}/skills",
            f"s3://{bucket}/skills/pdf/SKILL.md",
            out_options=s3_options(s3_server),
            **s3_options(s3_server),
        )
    assert s3_server.log.count() == 0


@pytest.mark.usefixtures("umask")
def test_a_new_bundle_gets_the_usual_mode(
    capsys: pytest.CaptureFixture[str], source: Path, tmp_path: Path
) -> None:
    out = tmp_path / "skills.zip"
    assert bundle(capsys, source, "-o", out)[0] == 0
    assert mode(out) == 0o644

    os.umask(0o077)
    private = tmp_path / "private.zip"
    assert bundle(capsys, source, "-o", private)[0] == 0
    assert mode(private) == 0o600


@pytest.mark.usefixtures("umask")
def test_a_replaced_bundle_keeps_its_mode(
    capsys: pytest.CaptureFixture[str], source: Path, tmp_path: Path
) -> None:
    out = tmp_path / "skills.zip"
    out.write_bytes(b"old")
    out.chmod(0o640)
    assert bundle(capsys, source, "-o", out)[0] == 0
    assert mode(out) == 0o640
    assert out.read_bytes()[:2] == b"PK"
    assert [path.name for path in tmp_path.iterdir() if path.name.startswith(".")] == []


@pytest.mark.parametrize(
    ("output", "message"),
    [
        ("", "error: the output is empty: name the zip to write, e.g. -o skills.zip\n"),
        ("   ", "error: the output is empty: name the zip to write, e.g. -o skills.zip\n"),
    ],
)
def test_an_empty_output_says_what_is_wrong(
    capsys: pytest.CaptureFixture[str], source: Path, output: str, message: str
) -> None:
    code, stdout, err = bundle(capsys, source, "-o", output)
    assert (code, stdout, err) == (2, "", message)


def test_a_folder_output_says_what_is_wrong(
    capsys: pytest.CaptureFixture[str], source: Path, tmp_path: Path
) -> None:
    (tmp_path / "dist").mkdir()
    code, _, err = bundle(capsys, source, "-o", tmp_path / "dist")
    assert code == 2
    assert err == (
        f"error: {tmp_path / 'dist'}: the output is a folder: name the zip to write, "
        f"e.g. {tmp_path / 'dist' / 'skills.zip'}\n"
    )
    assert list((tmp_path / "dist").iterdir()) == []


async def test_the_library_refuses_the_same(source: Path) -> None:
    with pytest.raises(UnsupportedSourceError, match="output is empty"):
        await write_bundle(source, "")
    with pytest.raises(UnsafePathError, match="inside its source"):
        await write_bundle(source, source / "pdf" / "SKILL.md")
    assert (source / "pdf" / "SKILL.md").read_bytes() == SKILL
