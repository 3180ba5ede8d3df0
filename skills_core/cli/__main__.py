"""``python -m skills_core.cli``: the same entry point as the ``skillfs`` script."""

from skills_core.cli import main

raise SystemExit(main())
