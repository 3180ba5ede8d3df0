"""``skillfs new NAME [--dir DIR] [--description TEXT] [--json]``: a valid skill skeleton.

Writes ``DIR/NAME/SKILL.md`` (which passes ``skillfs validate``) and empty ``scripts/``,
``references/`` and ``assets/`` folders. Refuses invalid names and existing folders.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from skills_core.cli import exits
from skills_core.cli.output import add_json_flag, print_json
from skills_core.cli.terminal import print_message, printable
from skills_core.errors import SkillValidationError
from skills_core.skeleton import RESOURCE_FOLDERS, create_skeleton


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the name, ``--dir``, ``--description`` and ``--json``."""
    parser.add_argument(
        "name", metavar="NAME", help="the skill's name: lowercase letters, digits and hyphens"
    )
    parser.add_argument(
        "--dir",
        type=Path,
        default=Path(),
        help="the skills folder to create it in (default: the current folder)",
    )
    parser.add_argument(
        "--description",
        help="what the skill does and when to use it (default: a sentence to replace)",
    )
    add_json_flag(parser)


def run(args: argparse.Namespace) -> int:
    """Create the skeleton, or explain why not (exit 2)."""
    try:
        folder = create_skeleton(args.dir, args.name, args.description)
    except SkillValidationError as exc:
        for issue in exc.report.errors:
            print_message("error", exc.location, issue.message, code=issue.code)
        return exits.USAGE
    except FileExistsError as exc:
        print_message("error", str(exc.filename), "already exists")
        return exits.USAGE
    except OSError as exc:
        print_message("error", str(exc.filename or args.dir / args.name), str(exc.strerror))
        return exits.USAGE
    if args.json:
        print_json({"folder": str(folder), "skill_md": str(folder / "SKILL.md")})
        return exits.OK
    shown = printable(str(folder))
    print(f"created {shown}/SKILL.md and {', '.join(f'{r}/' for r in RESOURCE_FOLDERS)}")
    print(f"next: edit {shown}/SKILL.md, then run: skillfs validate {shown}")
    return exits.OK
