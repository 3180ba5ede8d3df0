"""A new skill's skeleton (``skillfs new``): a valid ``SKILL.md`` and empty resource folders."""

from __future__ import annotations

from pathlib import Path

import yaml

from skills_core._errors import SkillValidationError
from skills_core._format.validation import validate_skill

RESOURCE_FOLDERS = ("scripts", "references", "assets")

_BODY = """\
# {title}

## When to use this skill

Describe the requests and situations in which an agent should load this skill, and the
ones in which it should not.

## Instructions

1. Write the steps the agent follows, in order, as concrete actions.
2. Name the files it should use by their path relative to this folder, for example a
   checklist in `references/` or a helper in `scripts/`.
3. Say what the result should look like and how to check it.

## Files

- `scripts/`: programs the agent can run.
- `references/`: documents the agent reads when it needs detail.
- `assets/`: templates and other files the agent uses in its output.
"""


def create_skeleton(parent: Path, name: str, description: str | None = None) -> Path:
    """Write ``parent/name/SKILL.md`` and empty resource folders; return the skill folder.

    Raises:
        SkillValidationError: The name or description breaks the spec; nothing was written.
        FileExistsError: The skill folder exists already; it is left alone.
        OSError: The folder could not be written.
    """
    if description is None:
        description = f"Describe what {name} does and when an agent should use it."
    folder = parent / name
    report = validate_skill({"name": name, "description": description}, folder_name=name)
    if report.errors:
        raise SkillValidationError(report, location=str(folder))
    parent.mkdir(parents=True, exist_ok=True)
    folder.mkdir()
    (folder / "SKILL.md").write_text(skill_md(name, description), encoding="utf-8")
    for resource in RESOURCE_FOLDERS:
        (folder / resource).mkdir()
    return folder


def skill_md(name: str, description: str) -> str:
    """The skeleton's SKILL.md: frontmatter dumped by PyYAML (any description survives)."""
    frontmatter = yaml.safe_dump(
        {"name": name, "description": description},
        sort_keys=False,
        allow_unicode=True,
        width=1 << 16,
    )
    title = name.replace("-", " ").capitalize()
    return f"---\n{frontmatter}---\n\n{_BODY.format(title=title)}"
