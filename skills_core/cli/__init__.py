"""The ``skillfs`` command line.

>>> from skills_core.cli import main
>>> main(["list"])  # doctest: +SKIP

Run it as ``skillfs`` (the console script) or ``python -m skills_core.cli``.
"""

from skills_core.cli.app import main

__all__ = ["main"]
