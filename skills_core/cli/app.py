"""The ``skillfs`` entry point: a table of commands, each in its own lazily imported module.

Adding a command is one module in :mod:`skills_core.cli.commands` that defines
``configure(parser)`` and ``run(args) -> int``, plus one line in :data:`COMMANDS`. Only the
module of the command being run is imported, so ``skillfs --help`` loads neither the catalog's
backends, fsspec nor google.adk.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import textwrap
import warnings
from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol, cast

from skills_core.cli import exits
from skills_core.cli.arguments import SOURCE_RULE, ArgumentParser


class Command(NamedTuple):
    """One subcommand: its name (also its module's name) and a one-line summary."""

    name: str
    summary: str

    @property
    def module(self) -> str:
        """The module that implements the command."""
        return f"skills_core.cli.commands.{self.name}"


COMMANDS: tuple[Command, ...] = (
    Command("list", "list the skills at URL (default: the bundled examples)"),
    Command("validate", "check every skill at URL, or one skill folder, against the spec"),
    Command("show", "show one skill: metadata, files and instructions"),
    Command("search", "find the skills that fit a request, best first: what search_skills gives"),
    Command("prompt", "print the <available_skills> block for a system prompt"),
    Command("bundle", "write the skills at URL that load into one deterministic zip"),
    Command("publish", "publish the skills at URL as a well-known index for any host or bucket"),
    Command("keygen", "write an Ed25519 key pair for signing publications (publish --sign)"),
    Command("new", "create a skill folder with a valid SKILL.md skeleton"),
    Command("watch", "reload the skills at URL as they change, one line per reload"),
    Command("serve", "serve the skills at URL to MCP clients (stdio, or streamable HTTP)"),
    Command("cache", "show what the catalog cache holds (info), or remove it (clear)"),
    Command("approve", "approve one skill's current content: run its scripts, honour its tools"),
    Command("approvals", "list the stored approvals, or revoke one (--revoke NAME|DIGEST)"),
    Command("lock", "pin the skills at URL by the sha256 of every file (--check, --update)"),
    Command("completion", "print the script that makes bash, zsh or fish complete skillfs"),
)

_EPILOG = f"""\
{textwrap.fill(SOURCE_RULE, 79)}

{exits.help_text()}

run 'skillfs COMMAND --help' for a command's options."""


class CommandModule(Protocol):
    """What every module in :mod:`skills_core.cli.commands` provides."""

    def configure(self, parser: argparse.ArgumentParser) -> None:
        """Add the command's arguments."""

    def run(self, args: argparse.Namespace) -> int:
        """Run the command and return its exit code."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``skillfs`` with ``argv`` (default: ``sys.argv[1:]``) and return the exit code."""
    if argv is None and "_ARGCOMPLETE" in os.environ:  # a shell asks (skillfs completion)
        from skills_core.cli.commands.completion import complete

        complete(build_parser)
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser, module = build_parser(_command_name(arguments))
    try:
        args = parser.parse_args(arguments)
    except SystemExit as exc:  # --help, --version and usage errors (one error: line)
        return exc.code if isinstance(exc.code, int) else exits.USAGE
    assert module is not None, "parse_args refuses a missing or unknown command"
    return _run(module, args)


def build_parser(command: str | None) -> tuple[argparse.ArgumentParser, CommandModule | None]:
    """The parser, with arguments for ``command`` only, and that command's module."""
    parser = ArgumentParser(
        prog="skillfs",
        description="Load, check and inspect Agent Skills from folders, buckets and bundles.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_VersionAction)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    chosen: CommandModule | None = None
    for spec in COMMANDS:
        subparser = subparsers.add_parser(spec.name, help=spec.summary, description=spec.summary)
        if spec.name == command:
            chosen = cast(CommandModule, importlib.import_module(spec.module))
            chosen.configure(subparser)
    return parser, chosen


def _command_name(arguments: Sequence[str]) -> str | None:
    """The first argument that is not an option: the command (top-level options take no value)."""
    return next((arg for arg in arguments if not arg.startswith("-")), None)


def _run(module: CommandModule, args: argparse.Namespace) -> int:
    from backends.errors import SkillfsError
    from skills_core.cli.terminal import print_message

    def show_warning(message: Warning | str, *_: object, **__: object) -> None:
        print_message("warning", None, str(message))  # one line, as every other warning

    warnings.showwarning = show_warning
    try:
        return module.run(args)
    except SkillfsError as exc:
        print_message("error", exc.location, exc.message)
        return exits.USAGE
    except KeyboardInterrupt:
        return exits.INTERRUPTED
    except BrokenPipeError:  # the reader went away (``skillfs list | head``): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the final flush at exit cannot fail again
        return exits.PIPE_CLOSED


class _VersionAction(argparse.Action):
    """``--version``, looked up only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        kwargs.update(nargs=0, default=argparse.SUPPRESS, help="show the version and exit")
        super().__init__(option_strings, argparse.SUPPRESS, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        from backends.errors import installed_version

        print(f"skillfs {installed_version()}")
        parser.exit()
