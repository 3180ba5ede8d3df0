"""One module per ``skillfs`` command, each with ``configure(parser)`` and ``run(args)``."""
