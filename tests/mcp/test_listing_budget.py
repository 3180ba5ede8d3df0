"""`skillfs serve --budget`: the plain ``list_skills`` tool keeps to a budget by the rules of
every listing (full, shortened, one line each, names only), its note naming the tools served."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from mcp import ClientSession
from mcp.client.stdio import stdio_client

from tests.mcp.conftest import write_tree
from tests.mcp.test_serve_process import stdio_params

COUNT = 40


def skills(count: int = COUNT) -> dict[str, str | bytes]:
    return {
        f"tool-{i:02d}/SKILL.md": f"---\nname: tool-{i:02d}\ndescription: Converts "
        f"report {i} into tables, charts and a summary. Use when report {i} comes in.\n---\n"
        "Convert.\n"
        for i in range(count)
    }


def names(listing: dict[str, object]) -> list[str]:
    """Every name a listing shows, in whichever form."""
    shown = [entry["name"] for entry in listing.get("skills", [])]  # type: ignore[attr-defined]
    shown += [line.split(":")[0] for line in listing.get("lines", [])]  # type: ignore[attr-defined]
    named = listing.get("names")
    return shown + (str(named).split(", ") if named else [])


async def list_skills_over_stdio(root: Path, *options: str) -> dict[str, object]:
    async with (
        stdio_client(stdio_params(root, "--no-watch", *options)) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        result = await session.call_tool("list_skills", {})
    assert not result.is_error
    listing: dict[str, object] = json.loads(result.content[0].text)
    assert result.structured_content == listing
    return listing


async def test_serve_budget_keeps_every_name_and_says_how_to_reach_the_rest(
    tmp_path: Path,
) -> None:
    root = await asyncio.to_thread(write_tree, tmp_path, skills())
    whole = await list_skills_over_stdio(root)
    assert "note" not in whole
    assert len(whole["skills"]) == COUNT  # type: ignore[arg-type]
    budget = len(json.dumps(whole)) // 3
    fitted = await list_skills_over_stdio(root, "--budget", str(budget), "--no-search-tool")
    assert len(json.dumps(fitted)) <= budget
    assert names(fitted) == [f"tool-{i:02d}" for i in range(COUNT)]
    assert fitted["total"] == COUNT
    assert str(fitted["note"]).startswith(f"{COUNT} skills available")
    assert "`load_skill`" in str(fitted["note"])
    assert "search_skills" not in json.dumps(fitted)  # not a tool this server offers


async def test_serve_budget_below_the_names_lists_them_all_without_search(
    tmp_path: Path,
) -> None:
    root = await asyncio.to_thread(write_tree, tmp_path, skills())
    listing = await list_skills_over_stdio(root, "--budget", "50", "--no-search-tool")
    assert names(listing) == [f"tool-{i:02d}" for i in range(COUNT)]  # no tool finds the rest
    assert listing["note"] == (
        f"{COUNT} skills available, listed by name only to fit the context: `load_skill` gives "
        "the description and instructions of a skill."
    )


async def test_serve_budget_below_the_names_points_to_search_skills(tmp_path: Path) -> None:
    root = await asyncio.to_thread(write_tree, tmp_path, skills())
    listing = await list_skills_over_stdio(root, "--budget", "250")
    assert len(json.dumps(listing)) <= 250
    shown = names(listing)
    assert 0 < len(shown) < COUNT
    assert listing["note"] == (
        f"{COUNT} skills available; {len(shown)} listed by name, the other {COUNT - len(shown)} "
        "not, to fit the context: call `search_skills` with key words of a request to find "
        "the ones that fit it."
    )
