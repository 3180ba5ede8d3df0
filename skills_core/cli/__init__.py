"""The ``skillfs`` command line.

>>> from skills_core.cli import main
>>> main(["list"])  # doctest: +SKIP

Run it as ``skillfs`` (the console script) or ``python -m skills_core.cli``.
"""

from __future__ import annotations

from collections.abc import Sequence

from skills_core.cli import _exits as exits

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``skillfs`` with ``argv`` (default: ``sys.argv[1:]``) and return the exit code.

    Ctrl-C at any moment, even while the command's modules are still being imported, ends it
    with exit code 130 and no traceback (``watch`` ends with 0 once it is watching).
    """
    try:
        from skills_core.cli._app import main as run

        return run(argv)
    except KeyboardInterrupt:
        return exits.INTERRUPTED
