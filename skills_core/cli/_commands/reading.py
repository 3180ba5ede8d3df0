"""Commands that read a source and print what it serves: list, show, search, prompt, watch.

Each is told in docs/cli.md; problems go to stderr, ``--json`` prints one JSON document.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Mapping
from typing import Any

from backends._base import Backend
from backends._composite import CompositeBackend
from backends._digests import skill_digest
from backends._errors import SkillNotFoundError, echoed
from skills_core._catalog.catalog import SkillCatalog
from skills_core._catalog.entries import CatalogEntry
from skills_core._catalog.snapshot import CatalogSnapshot, ReloadReport
from skills_core._format.models import Skill, SkillMetadata, SkillProblem
from skills_core._tool_table import SEARCH_SKILLS
from skills_core._trust.policy import TrustPolicy
from skills_core.cli import _exits as exits
from skills_core.cli._app import whole_number
from skills_core.cli._output import (
    Style,
    format_table,
    human_size,
    one_line,
    plural,
    print_json,
    print_message,
    print_problems,
    printable,
    problems_record,
)
from skills_core.cli._source import (
    add_flags,
    add_name_argument,
    add_url_argument,
    load_catalog,
    open_root,
    open_source,
    open_trusted,
    reading_name,
    report_catalog,
    run,
    source_hint,
    trusted_keys,
)
from skills_core.context._budget import catalog_prompt
from skills_core.tools._content import ToolResult, is_error
from skills_core.tools._factory import DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, SkillTools


def read_catalog(args: argparse.Namespace) -> SkillCatalog | None:
    """The catalog of ``args.url`` with its problems printed; ``None`` when it is misplaced."""
    catalog = run(load_catalog(open_source(args.url), cache=args.cache, lock=args.lock))
    return None if report_catalog(catalog) else catalog


def configure_list(parser: argparse.ArgumentParser) -> None:
    """Add the URLs, ``--trust``, ``--no-cache``, ``--lock`` and ``--json``."""
    add_url_argument(parser, several=True)
    add_flags(parser, "trust", "cache", "lock", "json")


def run_list(args: argparse.Namespace) -> int:
    """Print a NAME / DESCRIPTION table (or JSON) of every loaded skill."""
    keys = trusted_keys(args.trust) if args.trust else []
    opening = open_trusted if args.trust else open_source
    sources = [opening(url) for url in args.url or [None]]
    source = sources[0] if len(sources) == 1 else CompositeBackend(sources)
    catalog = run(load_catalog(source, cache=args.cache, lock=args.lock, keys=keys))
    misplaced = report_catalog(catalog)
    skills = catalog.list()
    if args.json:
        print_json(
            {
                "source": catalog.backend.location,
                "skills": [
                    {
                        "name": meta.name,
                        "description": meta.description,
                        "location": catalog.snapshot.loaded[meta.name].location,
                        "frontmatter": meta.to_frontmatter(),
                    }
                    for meta in skills
                ],
                "errors": problems_record(catalog.errors),
                "warnings": problems_record(catalog.warnings),
            }
        )
    elif skills:
        style = Style.of(sys.stdout)
        rows = [("NAME", "DESCRIPTION"), *((meta.name, _described(meta)) for meta in skills)]
        print("\n".join(format_table(rows, styles=(style.name, None), header=style.heading)))
    if misplaced:
        return exits.USAGE
    return exits.INVALID if catalog.snapshot.unavailable else exits.OK


USER_ONLY = "[user only] "
"""Marks a skill with ``disable-model-invocation: true``."""


def _described(meta: SkillMetadata) -> str:
    """The table's description of ``meta``, marked when only a user may invoke it."""
    return ("" if meta.model_invocable else USER_ONLY) + one_line(meta.description)


def configure_show(parser: argparse.ArgumentParser) -> None:
    """Add the URL, ``--no-cache``, ``--lock``, the skill's name and ``--json``."""
    add_url_argument(parser)
    add_flags(parser, "cache", "lock")
    add_name_argument(
        parser, "the skill to show: its name or its folder's; alone, a path to one skill's folder"
    )
    add_flags(parser, "json")


def run_show(args: argparse.Namespace) -> int:
    """Print the skill, or why it is refused (exit 1); an unknown name is a usage error."""
    url, name = args.url, args.name
    if url is None and (os.sep in name or "/" in name):
        url, name = name, None  # one skill's folder, as every reading command takes it
    with reading_name(name, "show"):
        entry, shown = run(_fetch(open_source(url), name, cache=args.cache, lock=args.lock))
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
    """The skill ``name`` (or its folder's) means and its digest (``None``: not served).

    Its problems are printed, and a note when a folder serves another name.
    """
    catalog = await load_catalog(source, cache=cache, lock=lock)
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
    """The entry served under ``name``, else in the folder ``name``, else a folder's one skill.

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
        (printable(key), printable(_one_value(value)))
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


def _one_value(value: Any) -> str:
    """A frontmatter value on one line: lists comma-joined, mappings as ``key=value``."""
    if isinstance(value, Mapping):
        return ", ".join(f"{key}={_one_value(item)}" for key, item in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(_one_value(item) for item in value)
    return str(value)


def configure_search(parser: argparse.ArgumentParser) -> None:
    """Add the URL, the query, ``--limit``, ``--no-cache``, ``--lock`` and ``--json``."""
    add_url_argument(parser)
    parser.add_argument(
        "query", metavar="QUERY", help="what the skill should do, in a few words (quoted)"
    )
    parser.add_argument(
        "--limit",
        type=whole_number(1, MAX_SEARCH_LIMIT),
        default=DEFAULT_SEARCH_LIMIT,
        metavar="N",
        help=f"show at most N skills, 1 to {MAX_SEARCH_LIMIT} (default: {DEFAULT_SEARCH_LIMIT})",
    )
    add_flags(parser, "cache", "lock", "json")


def run_search(args: argparse.Namespace) -> int:
    """Print the skills found, best first (JSON with ``--json``)."""
    catalog = read_catalog(args)
    if catalog is None:
        return exits.USAGE
    found = run(_search(catalog, args.query, args.limit))
    if is_error(found):
        print_message("error", None, found["error"])
        return exits.USAGE
    loaded = catalog.snapshot.loaded
    skills = [{**match, "location": loaded[match["name"]].location} for match in found["skills"]]
    source = catalog.backend.location
    if not skills:
        hint = source_hint(args.query, "search", "QUERY")
        print_message("note", source, f"no skill shares a word with {args.query!r}{hint}")
    if args.json:
        print_json({"source": source, "query": args.query, "skills": skills})
    elif skills:
        style = Style.of(sys.stdout)
        rows = [
            ("NAME", "SCORE", "STRENGTH", "LOCATION"),
            *((s["name"], f"{s['score']:.3f}", s["strength"], s["location"]) for s in skills),
        ]
        table = format_table(rows, width=1 << 16, styles=(style.name,), header=style.heading)
        print("\n".join(table))  # locations whole, never cut to the terminal
    return exits.OK


async def _search(catalog: SkillCatalog, query: str, limit: int) -> ToolResult:
    return await SkillTools(catalog).search_skills(query, limit)


def configure_prompt(parser: argparse.ArgumentParser) -> None:
    """Add the URL, ``--no-location``, ``--budget``, ``--no-search-tool`` and ``--json``."""
    add_url_argument(parser)
    add_flags(parser, "cache", "lock")
    parser.add_argument(
        "--no-location",
        action="store_true",
        help="leave out each skill's <location> (google-adk's format)",
    )
    add_flags(parser, "budget", "search", "json")


def run_prompt(args: argparse.Namespace) -> int:
    """Print the XML block an agent's system prompt lists the skills with."""
    catalog = read_catalog(args)
    if catalog is None:
        return exits.USAGE
    prompt = catalog_prompt(
        catalog,
        include_location=not args.no_location,
        budget=args.budget,
        search_tool=None if args.no_search_tool else SEARCH_SKILLS,
    )
    if args.json:
        record = {"source": catalog.backend.location, "budget": args.budget}
        print_json({**record, "characters": len(prompt), "prompt": prompt})
    else:
        print(printable(prompt, multiline=True))
    return exits.OK


def configure_watch(parser: argparse.ArgumentParser) -> None:
    """Add the URL, ``--lock``, ``--interval``, ``--json`` and ``--no-cache``."""
    add_url_argument(parser, skill_folder=False)
    add_flags(parser, "lock", "interval", "json", "cache")


def run_watch(args: argparse.Namespace) -> int:
    """Print a line per reload until Ctrl-C (exit 0); exit 2 when the first listing fails."""
    backend = open_root(args.url)
    try:
        return run(_watch(backend, args))
    except KeyboardInterrupt:
        return exits.OK


async def _watch(backend: Backend, args: argparse.Namespace) -> int:
    catalog = SkillCatalog(backend, trust=TrustPolicy(lock=args.lock), cache=args.cache)
    printed: set[SkillProblem] = set()
    first = True
    async for report in catalog.watch(interval=args.interval):
        printed = _print_new_problems(report, printed)
        if first and report.failure is not None:
            return exits.USAGE
        line = json.dumps(report.to_dict()) if args.json else describe(report, first=first)
        print(line, flush=True)
        first = False
    return exits.OK


def describe(report: ReloadReport, *, first: bool = False) -> str:
    """One line for a reload: what changed, then how many skills, errors and warnings."""
    loaded = len(report.added) + len(report.changed) + len(report.unchanged)
    counts = (
        f"{plural(loaded, 'skill')}, {plural(len(report.errors), 'error')}, "
        f"{plural(len(report.warnings), 'warning')}"
    )
    if report.failure is not None:
        what = printable(report.failure.message)
    elif first:
        what = "loaded"
    else:
        changes = zip(
            ("added", "changed", "removed"),
            (report.added, report.changed, report.removed),
            strict=True,
        )
        what = "; ".join(
            f"{verb} {', '.join(map(printable, names))}" for verb, names in changes if names
        )
        what = what or "problems changed"
    return f"[{time.strftime('%H:%M:%S')}] {what}: {counts}"


def _print_new_problems(report: ReloadReport, printed: set[SkillProblem]) -> set[SkillProblem]:
    """Print the problems not printed for the previous reload; return the current set."""
    failure = () if report.failure is None else (report.failure,)
    errors = (*failure, *report.errors)
    print_problems(*([p for p in group if p not in printed] for group in (errors, report.warnings)))
    return {*errors, *report.warnings}


HANDLERS = {
    "list": (configure_list, run_list),
    "show": (configure_show, run_show),
    "search": (configure_search, run_search),
    "prompt": (configure_prompt, run_prompt),
    "watch": (configure_watch, run_watch),
}
