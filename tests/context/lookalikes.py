"""Generated catalogs shaped like public collections: names ~12 characters, 200-400 of text.

The real collections measured for the budget figures (docs/choosing-skills.md) are read from
outside the repository; these stand in for them: same counts, name and description lengths.
"""

from __future__ import annotations

import json
import re

from backends import MemoryBackend
from skills_core import SkillCatalog

SUBJECTS = (
    *("pdf", "docx", "xlsx", "pptx", "genome", "protein", "survey", "invoice", "chart"),
    *("image", "audio", "video", "sql", "geo", "pubmed", "arxiv", "rdkit", "scanpy", "flow"),
    *("cytometry", "mass-spec", "clinical", "patent", "lease", "payroll", "weather", "energy"),
    *("traffic", "election", "ledger", "recipe", "podcast", "sensor", "satellite"),
)
ENDINGS = ("tools", "toolkit", "analysis", "viewer", "builder", "checker", "lab")
VERBS = ("Extracts", "Summarizes", "Validates", "Plots", "Converts", "Searches", "Cleans")
CLAUSES = (
    "load the file, check the columns it needs and handle missing values and units",
    "produce tables, charts and a short written summary the user can act on",
    "compare versions and explain what changed since the last run",
    'read "messy" exports from spreadsheets, databases & web services',
    "write the result back in the format the user asked for",
)


def lookalike_names(count: int) -> list[str]:
    """``count`` distinct names, ``subject-ending``, about 12 characters on average."""
    pairs = [(subject, ending) for ending in ENDINGS for subject in SUBJECTS]
    return [f"{subject}-{ending}" for subject, ending in pairs[:count]]


def lookalike_description(index: int, name: str) -> str:
    """A description of 200-400 characters, some over two lines, as public ones run."""
    subject = name.rsplit("-", 1)[0].replace("-", " ")
    clauses = CLAUSES[index % 3 : index % 3 + 2 + index % 2]
    sentence = f"{VERBS[index % len(VERBS)]} {subject} data: " + "; ".join(clauses) + "."
    usage = f"Use when the user mentions {subject} files or asks to work on them"
    text = f"{sentence} {usage}, even without naming this skill."
    return text.replace("; ", ";\n", 1) if index % 4 == 0 else text


async def lookalike_catalog(count: int) -> SkillCatalog:
    """A refreshed catalog of ``count`` generated skills (memory backend)."""
    skills = {
        name: {
            "SKILL.md": f"---\nname: {name}\ndescription: "
            f"{json.dumps(lookalike_description(index, name))}\n---\nSteps.\n"
        }
        for index, name in enumerate(lookalike_names(count))
    }
    catalog = SkillCatalog(MemoryBackend(skills))
    await catalog.refresh()
    return catalog


def named_in(block: str) -> list[str]:
    """Every skill name an ``<available_skills>`` block shows, in any of its forms."""
    body = re.sub(r"<note>\n.*?\n</note>\n", "", block, flags=re.DOTALL)
    entries = re.findall(r"<name>\n(.*?)\n</name>", body)
    compact = body.split("\n")[1:-1] if "<skill>" not in body else []
    lines = [line.split(": ", 1)[0] for line in compact if ": " in line]
    names = [name for line in compact if ": " not in line for name in line.split(", ")]
    return entries + lines + names


def note_of(block: str) -> str:
    """The note of a degraded ``<available_skills>`` block."""
    found = re.search(r"<note>\n(.*?)\n</note>", block, flags=re.DOTALL)
    assert found is not None
    return found.group(1)
