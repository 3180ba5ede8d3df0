"""A `skillfs serve` restart on an unchanged S3 folder lists and reads nothing else.

Real `skillfs serve` processes over stdio, driven by the MCP SDK's ClientSession, on a moto
bucket counted at the server: the skills extension's SKILL.md digests come from the catalog
cache, so a second start sends its LIST and no GET until a client reads a skill; that read is
one GET whose bytes match the digest listed. A skill changed between starts is read once and
listed with its new digest. Other files' digests come from the cache too: a second start reads
none, and a file changed since is the only one read.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import Awaitable, Callable
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from backends._mcp.extension import SKILLS_EXTENSION
from tests.cli.conftest import GOOD, skill_md
from tests.mcp.client import list_skills, read_verified
from tests.mcp.conftest import ROOT
from tests.mcp.test_serve_process import SERVE
from tests.remote.harnesses import S3Harness

SKILLS = {f"{name}/SKILL.md": text.encode() for name, text in GOOD.items()}
Session = Callable[[ClientSession, list[dict[str, Any]]], Awaitable[None]]


def sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


async def serve(s3: S3Harness, then: Session | None = None) -> dict[str, int]:
    """Start `skillfs serve` on the bucket, list the skills, then ``then``; the requests sent.

    The counts are taken after ``skills/list`` (and again by ``then`` where it asks).
    """
    s3.server.log.reset()
    params = StdioServerParameters(
        command=SERVE[0], args=[*SERVE[1:], s3.url, "--no-watch"], cwd=ROOT, env=dict(os.environ)
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, extensions={SKILLS_EXTENSION: {}}) as session,
    ):
        await session.discover()
        entries = await list_skills(session)
        listed = s3.server.log.kinds()
        if then is not None:
            await then(session, entries)
    return listed


def keeping(seen: list[dict[str, Any]]) -> Session:
    """A session step that keeps the entries listed in ``seen``."""

    async def keep(session: ClientSession, entries: list[dict[str, Any]]) -> None:
        seen.extend(entries)

    return keep


def digests(entries: list[dict[str, Any]]) -> dict[str, str]:
    return {entry["uri"]: entry["resources"][0]["digest"] for entry in entries}


async def test_a_second_start_lists_only_until_a_skill_is_read(s3: S3Harness) -> None:
    await asyncio.to_thread(s3.put_tree, SKILLS)
    assert await serve(s3) == {"LIST": 1, "GET": 3}
    read: dict[str, bytes] = {}

    async def check(session: ClientSession, entries: list[dict[str, Any]]) -> None:
        assert digests(entries) == {
            f"skill://{name}/SKILL.md": sha256(SKILLS[f"{name}/SKILL.md"]) for name in GOOD
        }
        (alpha,) = (entry for entry in entries if entry["uri"] == "skill://alpha/SKILL.md")
        assert alpha["frontmatter"] == {
            "name": "alpha",
            "description": "Alpha skill. Use for alpha tasks.",
        }
        read.update(await read_verified(session, alpha))  # digest and size checked
        assert s3.server.log.kinds() == {"LIST": 1, "GET": 1}

    assert await serve(s3, check) == {"LIST": 1}
    assert read == {"skill://alpha/SKILL.md": SKILLS["alpha/SKILL.md"]}


async def test_a_skill_changed_between_starts_is_read_and_listed_anew(s3: S3Harness) -> None:
    await asyncio.to_thread(s3.put_tree, SKILLS)
    await serve(s3)
    changed = skill_md("beta", "Beta skill, version 2. Use for beta tasks.").encode()
    await s3.write("beta/SKILL.md", changed)
    seen: list[dict[str, Any]] = []
    assert await serve(s3, keeping(seen)) == {"LIST": 1, "GET": 1}
    assert digests(seen)["skill://beta/SKILL.md"] == sha256(changed)
    (beta,) = (entry for entry in seen if entry["uri"] == "skill://beta/SKILL.md")
    assert beta["frontmatter"]["description"] == "Beta skill, version 2. Use for beta tasks."


EXTRAS = {
    "alpha/references/guide.md": b"# Alpha guide\n",
    "alpha/scripts/run.py": b"print('alpha')\n",
    "beta/assets/data.bin": bytes(range(256)),
    "gamma/references/notes.md": b"# Gamma notes\n",
}


def resources(entries: list[dict[str, Any]]) -> dict[str, str]:
    """Every file each entry lists, by URI, with its digest."""
    return {item["uri"]: item["digest"] for entry in entries for item in entry["resources"]}


async def test_a_second_start_takes_every_file_digest_from_the_cache(s3: S3Harness) -> None:
    await asyncio.to_thread(s3.put_tree, {**SKILLS, **EXTRAS})
    first: list[dict[str, Any]] = []
    assert await serve(s3, keeping(first)) == {"LIST": 1, "GET": len(SKILLS) + len(EXTRAS)}
    assert resources(first) == {
        **{f"skill://{path}": sha256(data) for path, data in SKILLS.items()},
        **{f"skill://{path}": sha256(data) for path, data in EXTRAS.items()},
    }
    again: list[dict[str, Any]] = []
    assert await serve(s3, keeping(again)) == {"LIST": 1}  # no file read to publish the manifest
    assert resources(again) == resources(first)


async def test_a_file_changed_between_starts_is_the_only_one_read(s3: S3Harness) -> None:
    await asyncio.to_thread(s3.put_tree, {**SKILLS, **EXTRAS})
    await serve(s3)
    changed = b"# Alpha guide, version 2\n"
    await s3.write("alpha/references/guide.md", changed)
    seen: list[dict[str, Any]] = []
    assert await serve(s3, keeping(seen)) == {"LIST": 1, "GET": 1}
    assert resources(seen)["skill://alpha/references/guide.md"] == sha256(changed)
    assert await serve(s3) == {"LIST": 1}  # and its new digest is kept in turn
