"""Every module, name and CLI flag the pages name in inline code exists.

Pages drift from the code one renamed module or dropped flag at a time (``skills_core.tools.codes``
was named long after the codes moved). Each inline code span (single backticks, outside fenced
blocks) of README.md and docs/ is read for two kinds of names:

- a dotted path rooted at ``backends`` or ``skills_core`` (``skills_core.context._budget`` or
  ``skills_core.context._budget.catalog_prompt(...)``): its longest importable prefix is
  imported and the rest is looked up as attributes;
- a ``skillfs CMD ... --flag`` command line, or a ``--flag`` in a section headed by a command
  (docs/cli.md's ``## prompt``): CMD is a command and every ``--flag`` appears in
  ``skillfs CMD --help`` (run once per command, in process).

A package docstring that lists its modules (``:mod:`` references) lists every one of them.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import re
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest

from skills_core.cli import main
from skills_core.cli._app import COMMANDS
from tests.docs.pages import page_id, user_pages

_FENCED = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)
_SPAN = re.compile(r"`([^`\n]+)`")
_DOTTED = re.compile(r"(?:backends|skills_core)(?:\.[A-Za-z_]\w*)+")
_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
_HEADING = re.compile(r"^(?P<level>#+) (?P<title>.*)$")
_COMMAND_WORD = re.compile(r"[a-z][a-z-]*")
COMMAND_NAMES = {command.name for command in COMMANDS}
_MISSING = object()


Mentions = dict[str, set[str]]
"""A name, with the pages that name it."""


def inline_code(text: str) -> list[tuple[str | None, str]]:
    """The inline code spans of a page, fenced blocks left out, each with its section's command.

    A section whose heading is a command (``## prompt`` or ``## `skillfs prompt```) is about
    that command until the next heading of its level or above.
    """
    spans: list[tuple[str | None, str]] = []
    command: tuple[int, str] | None = None
    for line in _FENCED.sub("", text).splitlines():
        heading = _HEADING.match(line)
        if heading:
            level, title = len(heading["level"]), heading["title"].strip("` ")
            title = title.removeprefix("skillfs ")
            if command is None or level <= command[0]:
                command = (level, title) if title in COMMAND_NAMES else None
            continue
        spans += [(command[1] if command else None, span) for span in _SPAN.findall(line)]
    return spans


def mentions(pages: dict[str, str]) -> tuple[Mentions, dict[tuple[str, str], set[str]]]:
    """Dotted paths, and ``(command, flag)`` pairs (flag ``""``: the command alone)."""
    paths: Mentions = {}
    flags: dict[tuple[str, str], set[str]] = {}
    for page, text in pages.items():
        for section, span in inline_code(text):
            dotted = _DOTTED.match(span)
            if dotted:
                paths.setdefault(dotted[0], set()).add(page)
            words = span.split()
            if section and words[0].startswith("--"):
                words = ["skillfs", section, *words]
            if len(words) > 1 and words[0] == "skillfs":
                command = "" if words[1].startswith("-") else words[1]
                if command and not _COMMAND_WORD.fullmatch(command):
                    continue  # a placeholder: skillfs COMMAND --help
                for flag in _FLAG.findall(" ".join(words[1:])):
                    flags.setdefault((command, flag), set()).add(page)
                if command:
                    flags.setdefault((command, ""), set()).add(page)
    return paths, flags


PATHS, FLAGS = mentions({page_id(page): page.read_text() for page in user_pages()})


def resolves(dotted: str) -> bool:
    """True when ``dotted`` is a module, or a module's attribute (chain).

    A module reached as an attribute must be importable under that name: ``skills_core.tools``
    binds ``codes`` to its ``results`` module, but ``import skills_core.tools.codes`` fails.
    """
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError as exc:
            if exc.name is None or not ".".join(parts[:cut]).startswith(exc.name):
                raise  # the module exists but needs something missing: not a docs problem
            continue
        for index in range(cut, len(parts)):
            found = getattr(found, parts[index], _MISSING)
            if found is _MISSING:
                return False
            if isinstance(found, ModuleType) and found.__name__ != ".".join(parts[: index + 1]):
                return False
        return True
    return False


@cache
def help_text(command: str) -> str:
    """``skillfs [COMMAND] --help``, run in process."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main([command, "--help"] if command else ["--help"]) == 0
    return out.getvalue()


def test_every_dotted_name_resolves() -> None:
    missing = {path: sorted(pages) for path, pages in PATHS.items() if not resolves(path)}
    assert not missing, f"named in the pages but not importable: {missing}"


def test_every_command_and_flag_exists() -> None:
    unknown = {
        f"skillfs {command}": sorted(pages)
        for (command, _), pages in FLAGS.items()
        if command and command not in COMMAND_NAMES
    }
    assert not unknown, f"no such command: {unknown}"
    missing = {
        f"skillfs {command} {flag}".replace("  ", " "): sorted(pages)
        for (command, flag), pages in FLAGS.items()
        if flag and not re.search(rf"(?<![\w-]){flag}(?![\w-])", help_text(command))
    }
    assert not missing, f"flags the pages name but --help does not list: {missing}"


def test_the_checks_see_what_they_should() -> None:
    """The pages name enough to check, and the resolver tells names apart."""
    assert len(PATHS) > 20
    assert len(FLAGS) > 20
    assert resolves("skills_core.tools._content.SKILL_NOT_FOUND")
    assert resolves("skills_core.context._budget.catalog_prompt")
    assert not resolves("skills_core.tools.codes")
    assert not resolves("skills_core.SkillCatalog.no_such_method")
    assert "--budget" in help_text("prompt")


@pytest.mark.parametrize(
    ("span", "expected"),
    [
        ("skillfs prompt ./skills --budget 2000", [("prompt", ""), ("prompt", "--budget")]),
        ("skillfs --version", [("", "--version")]),
        ("skills_core.adk.SkillsToolset(catalog)", []),
        ("skillfs COMMAND --help", []),
    ],
)
def test_a_command_line_yields_its_command_and_flags(
    span: str, expected: list[tuple[str, str]]
) -> None:
    text = f"Run `{span}`.\n\n```\nskillfs list --in-a-fenced-block\n```\n"
    assert sorted(mentions({"page": text})[1]) == expected


def test_a_command_section_names_its_flags() -> None:
    text = "## `skillfs show`\n\n`--json` and\n### Output\n`--raw`\n## Exit codes\n`--json`\n"
    assert sorted(mentions({"page": text})[1]) == [
        ("show", ""),
        ("show", "--json"),
        ("show", "--raw"),
    ]


@pytest.mark.parametrize("package", ["backends._remote", "backends._index"])
def test_a_package_that_lists_its_modules_lists_them_all(package: str) -> None:
    module = importlib.import_module(package)
    assert module.__file__
    folder = Path(module.__file__).parent
    present = {path.stem for path in folder.glob("*.py")} - {"__init__"}
    listed = set(re.findall(rf":mod:`~{re.escape(package)}\.(\w+)`", module.__doc__ or ""))
    assert listed == present
