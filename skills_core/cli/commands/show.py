"""``skillfs show [URL] NAME [--json]``: one skill's metadata, files, digest and instructions.

NAME is the name the skill is served under, or its folder's name (resolved to the skill that
folder serves, with a note saying so). A lone argument holding a path separator is one skill's
folder, never a NAME: no served name holds one. The content digest printed is the one
``skillfs approve --digest`` binds an approval to: of the SKILL.md shown and every other file.
"""

from __future__ import annotations

import argparse
import os
import sys

from backends.base import Backend
from backends.digests import skill_digest
from backends.errors import SkillNotFoundError, echoed
from skills_core.catalog.catalog import SkillCatalog
from skills_core.catalog.entries import CatalogEntry
from skills_core.catalog.snapshot import CatalogSnapshot
from skills_core.cli import exits, running
from skills_core.cli.output import (
    add_json_flag,
    describe_value,
    format_table,
    human_size,
    plural,
    print_json,
    print_problems,
    problems_record,
)
from skills_core.cli.source import (
    add_cache_flag,
    add_lock_flag,
    add_name_argument,
    add_url_argument,
    load_catalog,
    open_source,
    reading_name,
)
from skills_core.cli.terminal import Style, print_message, printable
from skills_core.format.models import Skill


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the URL, the skill's name and ``--json``."""
    add_url_argument(parser)
    add_cache_flag(parser)
    add_lock_flag(parser)
    add_name_argument(
        parser, "the skill to show: its name or its folder's; alone, a path to one skill's folder"
    )
    add_json_flag(parser)


def run(args: argparse.Namespace) -> int:
    """Print the skill, or why it is refused (exit 1); an unknown name is a usage error."""
    url, name = args.url, args.name
    if url is None and (os.sep in name or "/" in name):
        url, name = name, None  # one skill's folder, as every reading command takes it
    with reading_name(name, "show"):
        fetching = _fetch(open_source(url), name, cache=args.cache, lock=args.lock)
        entry, shown = running.run(fetching)
    if shown is None:
        return exits.INVALID
    skill, digest = shown
    if args.json:
        print_json(
            {
                "name": skill.name,
                "location": skill.location,
                "digest": digest,
                "frontmatter": skill.metadata.to_frontmatter(),
                "files": [{"path": item.path, "size": item.size} for item in skill.files],
                "body": skill.body,
                "warnings": problems_record(entry.warnings),
            }
        )
    else:
        print(_render(skill, digest, Style.of(sys.stdout)))
    return exits.OK


async def _fetch(
    source: Backend, name: str | None, *, cache: bool, lock: str | None
) -> tuple[CatalogEntry, tuple[Skill, str] | None]:
    """The skill ``name`` means and its content digest, with its problems printed.

    ``None`` when it is not served.

    A folder's name means the skill that folder serves (a note says so); a refused folder
    prints why (another folder serving its name included).
    """
    catalog: SkillCatalog = await load_catalog(source, cache=cache, lock=lock)
    snapshot = catalog.snapshot
    entry = _entry(snapshot, source, name)
    served = entry.served_name
    served_here = snapshot.loaded.get(served) is entry
    if served_here and served not in (name, entry.name):
        print_message("note", entry.location, f"folder {entry.name!r} serves skill {served!r}")
    print_problems(snapshot.problems.get(entry.name, ()), entry.warnings)
    if not served_here:
        return entry, None
    skill = await catalog.get(served)
    digest = await skill_digest(source, entry.name, skill_md=catalog.skill_md_digest(served))
    return entry, (skill, digest)


def _entry(snapshot: CatalogSnapshot, source: Backend, name: str | None) -> CatalogEntry:
    """The entry served under ``name``, else the one in the folder ``name``.

    With no name, the one skill a skill folder holds.

    Raises:
        SkillNotFoundError: No such skill, or no name for a source of several.
    """
    if name is not None:
        entry = snapshot.loaded.get(name) or snapshot.entries.get(name)
        if entry is None:
            raise SkillNotFoundError(f"no skill named {echoed(name)!r}", location=source.location)
        return entry
    entries = list(snapshot.entries.values())
    if len(entries) == 1:
        return entries[0]
    found = f"holds {plural(len(entries), 'skill')}" if entries else "holds no skill"
    raise SkillNotFoundError(
        f"{found}: name the one to show (skillfs show URL NAME)", location=source.location
    )


def _render(skill: Skill, digest: str, style: Style) -> str:
    """The skill as text: every value from the skill escaped, names emphasised."""
    fields = [
        (printable(key), printable(describe_value(value)))
        for key, value in skill.metadata.to_frontmatter().items()
    ]
    fields += [("location", printable(skill.location)), ("digest", digest)]
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
