"""Shell completion through argcomplete: commands, options and the skill names of the source.

``skillfs completion bash|zsh|fish`` prints argcomplete's script for that shell; the script
runs ``skillfs`` with ``_ARGCOMPLETE`` and ``COMP_LINE`` set, and :func:`complete` answers.
Only the parser of the command on the line is built, as for ``--help``: completing a command
or an option imports no command's dependencies. A skill name is completed by
:func:`skills_core.cli.source.skill_names`.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Any

import argcomplete
from argcomplete.lexers import split_line
from argcomplete.shell_integration import shellcode

SHELLS = ("bash", "zsh", "fish")

ParserBuilder = Callable[[str | None], tuple[argparse.ArgumentParser, Any]]
"""Builds the parser with the arguments of one command (``skills_core.cli.app.build_parser``)."""


def complete(build_parser: ParserBuilder) -> None:
    """Write the completions of ``COMP_LINE`` for the shell, then end the process."""
    _, _, _, words, _ = split_line(
        os.environ.get("COMP_LINE", ""), int(os.environ.get("COMP_POINT", "0"))
    )
    start = int(os.environ["_ARGCOMPLETE"])  # words[start - 1] is skillfs itself
    command = next((word for word in words[start:] if not word.startswith("-")), None)
    parser, _ = build_parser(command)
    argcomplete.autocomplete(parser)


def shell_script(shell: str) -> str:
    """The script that makes ``shell`` complete ``skillfs``."""
    return str(shellcode(["skillfs"], shell=shell))
