"""The exit codes every ``skillfs`` command uses, and :data:`TABLE`, the one that explains them.

``skillfs --help`` prints it; docs/cli.md copies it, tested equal.
"""

from __future__ import annotations

import textwrap

OK = 0
INVALID = 1
USAGE = 2
INTERRUPTED = 130
PIPE_CLOSED = 141  # 128 + SIGPIPE

TABLE: tuple[tuple[int, str], ...] = (
    (
        OK,
        "done; `list`, `show`, `prompt` and `search` also when other skills are broken "
        "(reported on stderr), `watch` and `serve` on Ctrl-C once they run",
    ),
    (
        INVALID,
        "a check failed: `validate` found an error; `show` names a skill that is refused; "
        "`bundle` or `publish` met a refused skill (nothing written); `list` could not list "
        "one of several sources (it lists the others); `lock --check` found a "
        "difference; `approve --digest` found other content than the one reviewed (nothing "
        "approved); `approvals --revoke` matched no approval",
    ),
    (
        USAGE,
        "usage error (an unknown command or option, a value out of range, a NAME the source "
        "does not serve, an invalid or existing name for `new`, an existing `keygen` file); a "
        "source that cannot be opened or listed, or that holds no skill while its hidden or "
        "nested folders do; a file that cannot be read or written (an output inside the "
        "source included); an address `serve --http` cannot bind",
    ),
    (
        INTERRUPTED,
        "stopped with Ctrl-C, at once and without a traceback, even while a request or a "
        "credential lookup is blocked",
    ),
    (PIPE_CLOSED, "standard output was closed early, as in `skillfs list --json | head -0`"),
)
"""Each exit code with what it means, command by command (Markdown: commands in backticks)."""

_WIDTH = 79
_INDENT = 7


def help_text() -> str:
    """:data:`TABLE` for ``--help``: one wrapped paragraph per code, without Markdown."""
    lines = ["exit codes:"]
    for code, meaning in TABLE:
        lines += textwrap.wrap(
            meaning.replace("`", "'"),
            _WIDTH,
            initial_indent=f"  {code:<{_INDENT - 2}}",
            subsequent_indent=" " * _INDENT,
        )
    return "\n".join(lines)
