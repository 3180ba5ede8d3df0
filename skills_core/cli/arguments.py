"""Option values checked as they are parsed, and usage errors as one ``error:`` line.

Each function here is an argparse ``type``: a value it refuses is a usage error (exit 2) that
names the option, before the command reads or binds anything.
"""

from __future__ import annotations

import argparse
import ipaddress
import re
from collections.abc import Callable
from typing import NoReturn

from backends.errors import echoed
from skills_core.cli import exits

SOURCE_RULE = (
    "URL is where the skills are: a skills folder, one skill's folder, a .zip bundle, or any "
    "URL open_backend opens (file://, memory:, s3://, gs://, github://, https://...); without "
    "it, the example skills shipped with skillfs. It comes first and may be left out: "
    "'skillfs show NAME' reads the examples, 'skillfs show URL NAME' reads URL (approve NAME "
    "and search QUERY likewise). new, keygen, cache, approvals and completion read no URL."
)
"""The one rule for when an argument is a source and when a name, in every ``--help``."""

_DOTTED_NUMBERS = re.compile(r"[0-9.]+")
_HIGHEST_PORT = 65535


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser, reporting a usage error as one ``error:`` line and exit code 2."""

    def error(self, message: str) -> NoReturn:
        """Print ``error: <message> (run '<prog> --help')`` to stderr and exit 2."""
        from skills_core.cli.terminal import print_message

        print_message("error", None, f"{message} (run '{self.prog} --help')")
        self.exit(exits.USAGE)


def positive_seconds(text: str) -> float:
    """A positive number of seconds."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not seconds > 0:
        raise argparse.ArgumentTypeError(
            f"must be a positive number of seconds, not {echoed(text)!r}"
        )
    return seconds


def characters(text: str) -> int:
    """A count of characters, 0 or more."""
    return _integer(text, 0, None, "a whole number of characters, 0 or more")


def whole_number(low: int, high: int) -> Callable[[str], int]:
    """The type of a whole number from ``low`` to ``high``."""

    def check(text: str) -> int:
        return _integer(text, low, high, f"a whole number from {low} to {high}")

    return check


def port(text: str) -> int:
    """A TCP port: 1 to 65535, or 0 for a free one."""
    return _integer(text, 0, _HIGHEST_PORT, f"a port from 0 to {_HIGHEST_PORT}")


def host(text: str) -> str:
    """An address to bind: a host name or an IP address, checked when it is an address.

    Text of digits and dots, or holding a colon, is an IPv4 or IPv6 address and must be a
    valid one (``999.1.1.1`` is refused here, never looked up as a name).
    """
    if not text:
        raise argparse.ArgumentTypeError("must be a host name or an IP address, not ''")
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
    if not text.startswith("/"):
        raise argparse.ArgumentTypeError(
            f"must be a URL path starting with '/', not {echoed(text)!r}"
        )
    return text


def _integer(text: str, low: int, high: int | None, expected: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or value < low or (high is not None and value > high):
        raise argparse.ArgumentTypeError(f"must be {expected}, not {echoed(text)!r}")
    return value
