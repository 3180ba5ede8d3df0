"""The ``skillfs`` commands: each module's ``HANDLERS`` maps a command to its handlers."""
