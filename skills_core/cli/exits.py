"""The exit codes every ``skillfs`` command uses."""

OK = 0
"""The command did what was asked."""

INVALID = 1
"""``validate`` found errors, ``show`` names a skill that is refused, ``bundle`` met invalid
skills, or ``list`` could not list one of several sources (it lists the others)."""

USAGE = 2
"""Bad arguments (an option value out of range included), a source that cannot be opened or
listed, a source whose skills all sit in hidden or nested folders, a storage error (an output
that cannot be written, or that lies inside the source, included), or an address ``serve``
cannot bind."""

PIPE_CLOSED = 141
"""Standard output was closed early, as when piped into ``head`` (128 + SIGPIPE)."""

INTERRUPTED = 130
"""Stopped with Ctrl-C, at any moment, at once (``watch`` and ``serve`` treat Ctrl-C once they
run as their normal end and exit 0)."""
