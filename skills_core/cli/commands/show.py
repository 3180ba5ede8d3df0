"""``skillfs show [URL] NAME [--json]``: one skill's metadata, files and instructions."""

from __future__ import annotations

import argparse
import asyncio
import sys

from backends.base import Backend
from backends.errors import SkillNotFoundError
from skills_core.catalog.catalog import SkillCatalog
from skills_core.catalog.entries import CatalogEntry
from skills_core.cli import exits
from skills_core.cli.output import (
    add_json_flag,
    describe_value,
    format_table,
    human_size,
    print_json,
    print_problems,
    problems_record,
)
from skills_core.cli.source import add_url_argument, load_catalog, open_source
from skills_core.cli.terminal import Style, printable
from skills_core.format.models import Skill


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the URL, the skill's name and ``--json``."""
    add_url_argument(parser)
    parser.add_argument("name", metavar="NAME", help="the skill to show")
    add_json_flag(parser)


def run(args: argparse.Namespace) -> int:
    """Print the skill, or why it is refused (exit 1); an unknown name is a usage error."""
    entry, skill = asyncio.run(_fetch(open_source(args.url), args.name))
    print_problems(entry.errors, entry.warnings)
    if skill is None:
        return exits.INVALID
    if args.json:
        print_json(
            {
                "name": skill.name,
                "location": skill.location,
                "frontmatter": skill.metadata.to_frontmatter(),
                "files": [{"path": item.path, "size": item.size} for item in skill.files],
                "body": skill.body,
                "warnings": problems_record(entry.warnings),
            }
        )
    else:
        print(_render(skill, Style.of(sys.stdout)))
    return exits.OK


async def _fetch(source: Backend, name: str) -> tuple[CatalogEntry, Skill | None]:
    catalog: SkillCatalog = await load_catalog(source)
    snapshot = catalog.snapshot
    entry = snapshot.loaded.get(name) or snapshot.entries.get(name)
    if entry is None:
        raise SkillNotFoundError(f"no skill named {name!r}", location=source.location)
    return entry, (await catalog.get(name) if name in catalog else None)


def _render(skill: Skill, style: Style) -> str:
    """The skill as text: every value from the skill escaped, names emphasised."""
    fields = [
        (printable(key), printable(describe_value(value)))
        for key, value in skill.metadata.to_frontmatter().items()
    ]
    fields.append(("location", printable(skill.location)))
    width = max(len(key) for key, _ in fields) + 2
    lines = [
        style.heading(f"{key}:")
        + " " * (width - len(key) - 1)
        + (style.name(value) if key == "name" else value)
        for key, value in fields
    ]
    lines += ["", style.heading("files:")]
    files = [(item.path, human_size(item.size)) for item in skill.files]
    lines += (f"  {line}" for line in format_table(files, width=1 << 16))
    lines += ["", "---", printable(skill.body, multiline=True)]
    return "\n".join(lines)
