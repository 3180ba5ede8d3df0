"""``skillfs validate [URL|SKILL_DIR] [--json]``: the full verdict on every skill.

The catalog is strict, so every spec violation is an error; advice (an empty or very long
body) stays a warning. Exit code 1 when any skill has an error.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from skills_core.catalog.catalog import SkillCatalog
from skills_core.cli import exits
from skills_core.cli.output import (
    add_json_flag,
    format_table,
    plural,
    print_json,
    print_problems,
    problems_record,
    report_empty,
)
from skills_core.cli.source import add_url_argument, load_catalog, open_source
from skills_core.cli.terminal import Style
from skills_core.format.problems import SkillProblem


@dataclass
class Verdict:
    """Every problem of one skill.

    Attributes:
        name: The name the skill gives itself, which ``list``, ``show`` and ``prompt`` use.
        folder: The skill's folder (its storage key).
    """

    name: str
    folder: str
    location: str
    errors: list[SkillProblem] = field(default_factory=list)
    warnings: list[SkillProblem] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        """True when the skill has no error."""
        return not self.errors

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        return {
            "name": self.name,
            "folder": self.folder,
            "location": self.location,
            "valid": self.valid,
            "errors": problems_record(self.errors),
            "warnings": problems_record(self.warnings),
        }


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the URL (or skill folder) and ``--json``."""
    add_url_argument(parser)
    add_json_flag(parser)


def run(args: argparse.Namespace) -> int:
    """Report every problem of every skill; exit 1 when any is an error."""
    catalog = asyncio.run(load_catalog(open_source(args.url), strict=True))
    verdicts = verdicts_of(catalog)
    for verdict in verdicts:
        print_problems(verdict.errors, verdict.warnings)
    misplaced = not verdicts and report_empty(catalog)
    valid = all(verdict.valid for verdict in verdicts)
    if args.json:
        print_json(
            {
                "source": catalog.backend.location,
                "valid": valid,
                "skills": [verdict.to_dict() for verdict in verdicts],
            }
        )
    else:
        print(_summary(verdicts, Style.of(sys.stdout)))
    if misplaced:
        return exits.USAGE
    return exits.OK if valid else exits.INVALID


def verdicts_of(catalog: SkillCatalog) -> list[Verdict]:
    """One verdict per listed skill, in name order, with every problem found.

    Problems are filed by folder, so two folders claiming one name keep their own verdicts.

    A skill's own problems come from its catalog entry (so a refused skill keeps its advice);
    problems the catalog adds (failed re-reads, shadowed names) are filed under their skill.
    """
    entries = catalog.snapshot.entries
    verdicts = {
        folder: Verdict(
            entry.declared_name, folder, entry.location, list(entry.errors), list(entry.warnings)
        )
        for folder, entry in entries.items()
    }
    own = {problem for entry in entries.values() for problem in (*entry.errors, *entry.warnings)}

    def verdict_for(problem: SkillProblem) -> Verdict:
        folder = problem.subject
        return verdicts.setdefault(folder, Verdict(folder, folder, problem.location or folder))

    for problem in catalog.errors:
        if problem not in own:
            verdict_for(problem).errors.append(problem)
    for problem in catalog.warnings:
        if problem not in own:
            verdict_for(problem).warnings.append(problem)
    return sorted(verdicts.values(), key=lambda verdict: (verdict.name, verdict.folder))


def _summary(verdicts: Sequence[Verdict], style: Style) -> str:
    invalid = sum(not verdict.valid for verdict in verdicts)
    errors = sum(len(verdict.errors) for verdict in verdicts)
    warnings = sum(len(verdict.warnings) for verdict in verdicts)
    total = (
        f"{plural(len(verdicts), 'skill')} checked: {len(verdicts) - invalid} valid, "
        f"{invalid} invalid ({plural(errors, 'error')}, {plural(warnings, 'warning')})"
    )
    if not verdicts:
        return total
    rows = [
        ("ok" if verdict.valid else "invalid", _skill_cell(verdict), _counts(verdict))
        for verdict in verdicts
    ]

    def status(text: str) -> str:
        return style.ok(text) if text == "ok" else style.error(text)

    table = format_table(
        [("STATUS", "SKILL", "PROBLEMS"), *rows],
        styles=(status, style.name, None),
        header=style.heading,
    )
    return "\n".join([*table, total])


def _skill_cell(verdict: Verdict) -> str:
    """The skill's name, and its folder where that differs."""
    if verdict.folder == verdict.name:
        return verdict.name
    return f"{verdict.name} (folder {verdict.folder})"


def _counts(verdict: Verdict) -> str:
    counts = [(len(verdict.errors), "error"), (len(verdict.warnings), "warning")]
    return ", ".join(plural(count, noun) for count, noun in counts if count)
