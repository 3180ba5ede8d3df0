"""The ``skillfs`` program: its commands, the parser and option types.

Only the module of the command being run is imported (docs/cli.md, "Start-up cost and adding a
command"); a value an option type refuses is a usage error before anything is read or bound.
"""

from __future__ import annotations

import argparse
import importlib
import ipaddress
import os
import re
import sys
import textwrap
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, NoReturn, TypeVar

from backends._errors import echoed
from skills_core.cli import _exits as exits

Configure = Callable[[argparse.ArgumentParser], None]
Run = Callable[[argparse.Namespace], int]
T = TypeVar("T")


class Command(NamedTuple):
    """One subcommand: its name, a one-line summary and its module in ``commands``."""

    name: str
    summary: str
    group: str


COMMANDS: tuple[Command, ...] = (
    Command("list", "list the skills at URL (default: the bundled examples)", "reading"),
    Command(
        "validate", "check every skill at URL, or one skill folder, against the spec", "authoring"
    ),
    Command("show", "show one skill: metadata, files and instructions", "reading"),
    Command(
        "search",
        "find the skills that fit a request, best first: what search_skills gives",
        "reading",
    ),
    Command("prompt", "print the <available_skills> block for a system prompt", "reading"),
    Command("bundle", "write the skills at URL that load into one deterministic zip", "packing"),
    Command(
        "publish",
        "publish the skills at URL as a well-known index for any host or bucket",
        "packing",
    ),
    Command(
        "keygen", "write an Ed25519 key pair for signing publications (publish --sign)", "packing"
    ),
    Command("new", "create a skill folder with a valid SKILL.md skeleton", "authoring"),
    Command("watch", "reload the skills at URL as they change, one line per reload", "reading"),
    Command("serve", "serve the skills at URL to MCP clients (stdio, or streamable HTTP)", "serve"),
    Command("cache", "show what the catalog cache holds (info), or remove it (clear)", "stores"),
    Command(
        "approve",
        "approve one skill's current content: run its scripts, honour its tools",
        "stores",
    ),
    Command(
        "approvals", "list the stored approvals, or revoke one (--revoke NAME|DIGEST)", "stores"
    ),
    Command(
        "lock", "pin the skills at URL by the sha256 of every file (--check, --update)", "authoring"
    ),
    Command(
        "completion", "print the script that makes bash, zsh or fish complete skillfs", "completion"
    ),
)

SOURCE_RULE = (
    "URL is where the skills are: a skills folder, one skill's folder, a .zip bundle, or any "
    "URL open_backend opens (file://, memory:, s3://, gs://, github://, https://...); without "
    "it, the example skills shipped with skillfs. It comes first and may be left out: "
    "'skillfs show NAME' reads the examples, 'skillfs show URL NAME' reads URL (approve NAME "
    "and search QUERY likewise). new, keygen, cache, approvals and completion read no URL."
)
"""The one rule for when an argument is a source and when a name, in every ``--help``."""

_EPILOG = f"""\
{textwrap.fill(SOURCE_RULE, 79)}

{exits.help_text()}

run 'skillfs COMMAND --help' for a command's options."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``skillfs`` with ``argv`` (default: ``sys.argv[1:]``) and return the exit code."""
    if argv is None and "_ARGCOMPLETE" in os.environ:  # a shell asks (skillfs completion)
        from skills_core.cli._commands.completion import complete

        complete(build_parser)
    arguments = list(sys.argv[1:] if argv is None else argv)
    command = next(
        (arg for arg in arguments if not arg.startswith("-")), None
    )  # no option takes a value
    parser, run = build_parser(command)
    try:
        args = parser.parse_args(arguments)
    except SystemExit as exc:  # --help, --version and usage errors (one error: line)
        return exc.code if isinstance(exc.code, int) else exits.USAGE
    assert run is not None, "parse_args refuses a missing or unknown command"
    return _run(run, args)


def build_parser(command: str | None) -> tuple[argparse.ArgumentParser, Run | None]:
    """The parser, with arguments for ``command`` only, and that command's ``run``."""
    parser = ArgumentParser(
        prog="skillfs",
        description="Load, check and inspect Agent Skills from folders, buckets and bundles.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_VersionAction)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    chosen: Run | None = None
    for spec in COMMANDS:
        subparser = subparsers.add_parser(spec.name, help=spec.summary, description=spec.summary)
        if spec.name == command:
            module = importlib.import_module(f"skills_core.cli._commands.{spec.group}")
            handlers: Mapping[str, tuple[Configure, Run]] = module.HANDLERS
            configure, chosen = handlers[spec.name]
            configure(subparser)
    return parser, chosen


def _run(run: Run, args: argparse.Namespace) -> int:
    from backends._errors import SkillfsError
    from skills_core.cli._output import print_message

    def show_warning(message: Warning | str, *_: object, **__: object) -> None:
        print_message("warning", None, str(message))  # one line, as every other warning

    warnings.showwarning = show_warning
    try:
        return run(args)
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
        from backends._errors import installed_version

        print(f"skillfs {installed_version()}")
        parser.exit()


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser, reporting a usage error as one ``error:`` line and exit code 2."""

    def error(self, message: str) -> NoReturn:
        """Print ``error: <message> (run '<prog> --help')`` to stderr and exit 2."""
        from skills_core.cli._output import print_message

        print_message("error", None, f"{message} (run '{self.prog} --help')")
        self.exit(exits.USAGE)


def positive_seconds(text: str) -> float:
    """A positive number of seconds."""
    return _checked(text, float, lambda seconds: seconds > 0, "a positive number of seconds")


def characters(text: str) -> int:
    """A count of characters, 0 or more."""
    return _integer(text, 0, None, "a whole number of characters, 0 or more")


def whole_number(low: int, high: int) -> Callable[[str], int]:
    """The type of a whole number from ``low`` to ``high``."""

    def check(text: str) -> int:
        return _integer(text, low, high, f"a whole number from {low} to {high}")

    return check


_HIGHEST_PORT = 65535
_DOTTED_NUMBERS = re.compile(r"[0-9.]+")


def port(text: str) -> int:
    """A TCP port: 1 to 65535, or 0 for a free one."""
    return _integer(text, 0, _HIGHEST_PORT, f"a port from 0 to {_HIGHEST_PORT}")


def host(text: str) -> str:
    """An address to bind: a host name, or a valid IP address (digits and dots, or a colon)."""
    _checked(text, str, bool, "a host name or an IP address")
    if ":" in text or _DOTTED_NUMBERS.fullmatch(text):
        try:
            ipaddress.ip_address(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{echoed(text)!r} is not a valid IP address"
            ) from None
    return text


def url_path(text: str) -> str:
    """The path part of a URL: it starts with ``/``."""
    return _checked(text, str, lambda path: path.startswith("/"), "a URL path starting with '/'")


def _integer(text: str, low: int, high: int | None, expected: str) -> int:
    def within(value: int) -> bool:
        return value >= low and (high is None or value <= high)

    return _checked(text, int, within, expected)


def _checked(text: str, parse: Callable[[str], T], valid: Callable[[T], bool], expected: str) -> T:
    """``parse(text)`` when it parses and is ``valid``, else a usage error naming ``expected``."""
    try:
        value = parse(text)
    except ValueError:
        pass
    else:
        if valid(value):
            return value
    raise argparse.ArgumentTypeError(f"must be {expected}, not {echoed(text)!r}")
