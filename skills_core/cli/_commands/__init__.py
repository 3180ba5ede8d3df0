"""The ``skillfs`` commands, by concept: each module maps a command to its handlers.

A module's ``HANDLERS`` maps each of its commands to ``configure(parser)`` and
``run(args) -> int`` (see :mod:`skills_core.cli._app`).
"""
