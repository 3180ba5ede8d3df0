"""``skillfs completion bash|zsh|fish``: shell completion through argcomplete.

The script runs ``skillfs`` with ``_ARGCOMPLETE`` set, and :func:`complete` answers, building
only the parser of the command on the line.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Any

import argcomplete
from argcomplete.lexers import split_line
from argcomplete.shell_integration import shellcode

from skills_core.cli import _exits as exits

SHELLS = ("bash", "zsh", "fish")

ParserBuilder = Callable[[str | None], tuple[argparse.ArgumentParser, Any]]


def configure_completion(parser: argparse.ArgumentParser) -> None:
    """Add the shell."""
    parser.add_argument("shell", choices=SHELLS, help="the shell to complete skillfs in")
    parser.epilog = (
        'install: eval "$(skillfs completion bash)" in ~/.bashrc, eval "$(skillfs completion '
        'zsh)" in ~/.zshrc, or skillfs completion fish | source in ~/.config/fish/config.fish'
    )


def run_completion(args: argparse.Namespace) -> int:
    """Print the script that makes the shell complete ``skillfs``."""
    print(shellcode(["skillfs"], shell=args.shell))
    return exits.OK


def complete(build_parser: ParserBuilder) -> None:
    """Write the completions of ``COMP_LINE`` for the shell, then end the process."""
    _, _, _, words, _ = split_line(
        os.environ.get("COMP_LINE", ""), int(os.environ.get("COMP_POINT", "0"))
    )
    start = int(os.environ["_ARGCOMPLETE"])  # words[start - 1] is skillfs itself
    command = next((word for word in words[start:] if not word.startswith("-")), None)
    parser, _ = build_parser(command)
    argcomplete.autocomplete(parser)


HANDLERS = {"completion": (configure_completion, run_completion)}
