r"""What reaches a terminal: text from skills made harmless, and colour where it helps.

Folder names, descriptions, licenses, metadata and messages quoting them come from skills,
which may be hostile: an escape sequence can set the window title, clear the screen or fake a
link, a carriage return can overwrite what was printed, and a newline in a folder name can forge
a separate ``error:`` line. :func:`printable` shows every such character as a visible escape
(``\x1b``, ``\r``, ``\n``, ``\u202e``) before any of it is printed; ``--json`` output is
exact instead (JSON escapes control characters itself).

Colour and emphasis (:class:`Style`) are added after escaping, only when the stream is a
terminal, ``NO_COLOR`` is unset or empty and ``TERM`` is not ``dumb``.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from typing import TextIO

_OTHER_UNSAFE = "\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
"""DEL, C1 controls, line and paragraph separators, and the bidirectional overrides and
isolates that reorder what a terminal shows."""

_SINGLE_LINE = re.compile(f"[\x00-\x1f{_OTHER_UNSAFE}]")
_MULTILINE = re.compile(f"[\x00-\x08\x0b-\x1f{_OTHER_UNSAFE}]")  # keeps tab and newline
_JSON_RAW = re.compile(f"[{_OTHER_UNSAFE}]")  # json.dumps escapes C0 controls itself
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text: str, *, multiline: bool = False) -> str:
    """``text`` with every control character shown as a visible escape.

    Args:
        text: Text that may come from a skill.
        multiline: Keep newlines and tabs (for a skill's body); everything else is escaped.
    """
    pattern = _MULTILINE if multiline else _SINGLE_LINE
    return pattern.sub(_escape, text)


def one_line(text: str) -> str:
    """Prose on one line: whitespace runs (newlines included) become a space, then escaped."""
    return printable(" ".join(text.split()))


def printable_json(text: str) -> str:
    """JSON text with what JSON leaves raw but a terminal acts on escaped: the same data.

    json.dumps escapes C0 controls; DEL, C1 controls, line separators and bidirectional
    overrides are written here as JSON's four-hex-digit unicode escapes (U+202E as
    backslash, ``u202e``).
    """
    return _JSON_RAW.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    short = _SHORT.get(char)
    if short is not None:
        return short
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def colour_enabled(stream: TextIO) -> bool:
    """True when ``stream`` is a terminal that wants colour."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class Style:
    """Colour and emphasis for one output stream, or plain text when it has none.

    Args:
        enabled: Whether to add ANSI escape sequences.
    """

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    @classmethod
    def of(cls, stream: TextIO) -> Style:
        """The style for ``stream`` (see :func:`colour_enabled`)."""
        return cls(colour_enabled(stream))

    def _sgr(self, codes: str, text: str) -> str:
        return f"\x1b[{codes}m{text}\x1b[0m" if self.enabled and text else text

    def error(self, text: str) -> str:
        """Bold red: an error's label."""
        return self._sgr("1;31", text)

    def warning(self, text: str) -> str:
        """Bold yellow: a warning's label."""
        return self._sgr("1;33", text)

    def ok(self, text: str) -> str:
        """Green: a passed check."""
        return self._sgr("32", text)

    def name(self, text: str) -> str:
        """Bold cyan: a skill's name."""
        return self._sgr("1;36", text)

    def heading(self, text: str) -> str:
        """Bold: a table's header."""
        return self._sgr("1", text)

    def dim(self, text: str) -> str:
        """Dim: secondary detail, such as a problem's code."""
        return self._sgr("2", text)

    def label(self, kind: str) -> str:
        """``error:`` or ``warning:`` (any other kind is left plain), styled."""
        styled = {"error": self.error, "warning": self.warning}.get(kind)
        return styled(f"{kind}:") if styled else f"{kind}:"


def message_line(
    kind: str, location: str | None, message: str, *, code: str | None = None, style: Style
) -> str:
    """``<kind>: <location>: <message> [<CODE>]``, escaped, the label and code styled."""
    parts = [style.label(kind)]
    if location:
        parts.append(f"{printable(location)}:")
    parts.append(printable(message))
    if code:
        parts.append(style.dim(f"[{code}]"))
    return " ".join(parts)


def print_message(
    kind: str, location: str | None, message: str, *, code: str | None = None
) -> None:
    """Print one ``error:`` or ``warning:`` line to stderr."""
    style = Style.of(sys.stderr)
    print(message_line(kind, location, message, code=code, style=style), file=sys.stderr)


class PrintableFormatter(logging.Formatter):
    """Log records for a terminal: each record one line, control characters escaped."""

    def format(self, record: logging.LogRecord) -> str:
        """The formatted record, through :func:`printable`."""
        return printable(super().format(record))
