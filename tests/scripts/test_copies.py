"""Skills from a bucket run as they do from a folder: the local copy keeps scripts runnable.

S3 records no file modes, so a copy marks ``scripts/`` executable; a zip bundle records them
(external attributes, and skillfs's manifest), and the copy keeps what it records.
"""

from __future__ import annotations

import asyncio
import io
import zipfile
from pathlib import Path
from typing import Any

import pytest

from backends import Backend, BundleBackend, LocalBackend
from skills_core import SkillCatalog, build_bundle
from skills_core.tools import ScriptPolicy, SkillTools
from tests.remote.harnesses import S3Harness
from tests.remote.servers import S3Server
from tests.remote.settings import FAST_RETRY, s3_options
from tests.scripts.collections_skills import COLLECTION
from tests.scripts.support import ALL_RUNNERS, make_runner, write_skill

SKILL_MD = b"---\nname: convert\ndescription: Converts.\n---\nRun scripts/use-tool.\n"
USE_TOOL = b'#!/bin/sh\nexec "$(dirname "$0")/../tools/convert" "$@"\n'
TOOL = b"#!/bin/sh\necho converted $1\n"


async def run(backend: Backend, runner_name: str, skill: str, script: str, *args: str) -> Any:
    catalog = SkillCatalog(backend)
    await catalog.refresh()
    tools = SkillTools(catalog, scripts=ScriptPolicy(runner=make_runner(runner_name)))
    try:
        return await tools.run_skill_script(skill, script, list(args))
    finally:
        await tools.close()


@pytest.mark.parametrize("runner_name", ALL_RUNNERS)
async def test_collection_scripts_run_from_s3(
    s3_server: S3Server, s3_client: Any, bucket: str, runner_name: str
) -> None:
    tree = {f"collection/{path}": text.encode() for path, text in COLLECTION.items()}
    tree["collection/SKILL.md"] = b"---\nname: collection\ndescription: Scripts.\n---\nRun.\n"
    backend = await S3Harness(s3_server, s3_client, bucket).make_backend(tree)
    brief = await run(backend, runner_name, "collection", "scripts/task-brief", "alpha")
    assert (brief["exit_code"], brief["stdout"]) == (0, "brief: 1 words, first alpha\n"), brief
    package = await run(backend, runner_name, "collection", "scripts/package_skill.py", "x")
    assert (package["exit_code"], package["stdout"]) == (0, "x: valid\n"), package


def bundle_with_tool_mode(mode: int) -> bytes:
    """A zip as an archiver on Unix writes it, ``tools/convert`` recorded with ``mode``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path, data, member_mode in (
            ("convert/SKILL.md", SKILL_MD, 0o644),
            ("convert/scripts/use-tool", USE_TOOL, 0o755),
            ("convert/tools/convert", TOOL, mode),
        ):
            info = zipfile.ZipInfo(path)
            info.create_system = 3
            info.external_attr = member_mode << 16
            archive.writestr(info, data)
    return buffer.getvalue()


async def zip_on_s3(server: S3Server, client: Any, bucket: str, archive: bytes) -> Backend:
    await asyncio.to_thread(client.put_object, Bucket=bucket, Key="skills.zip", Body=archive)
    return BundleBackend(
        f"zip://::s3://{bucket}/skills.zip", retry=FAST_RETRY, **s3_options(server)
    )


@pytest.mark.parametrize(("mode", "expected"), [(0o755, 0), (0o644, 126)])
async def test_a_zip_on_s3_keeps_the_modes_it_records(
    s3_server: S3Server, s3_client: Any, bucket: str, mode: int, expected: int
) -> None:
    backend = await zip_on_s3(s3_server, s3_client, bucket, bundle_with_tool_mode(mode))
    result = await run(backend, "process", "convert", "scripts/use-tool", "x")
    assert result["exit_code"] == expected, result  # 126: recorded as not executable


@pytest.mark.parametrize("runner_name", ALL_RUNNERS)
async def test_a_skillfs_bundle_on_s3_keeps_executables_runnable(
    s3_server: S3Server, s3_client: Any, bucket: str, tmp_path: Path, runner_name: str
) -> None:
    source = tmp_path / "skills"
    folder = write_skill(source, "convert", {"scripts/use-tool": USE_TOOL.decode()})
    (folder / "tools").mkdir()
    (folder / "tools" / "convert").write_bytes(TOOL)
    (folder / "tools" / "convert").chmod(0o755)
    bundle = await build_bundle(LocalBackend(source))
    backend = await zip_on_s3(s3_server, s3_client, bucket, bundle.data)
    result = await run(backend, runner_name, "convert", "scripts/use-tool", "x")
    assert (result["exit_code"], result["stdout"]) == (0, "converted x\n"), result
