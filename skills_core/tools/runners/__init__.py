"""Script runners: where a skill script runs and how it is isolated.

``base`` is the ScriptRunner seam; ``sandbox`` (bubblewrap) and ``process`` (a supervised
subprocess) are the local runners, sharing ``supervised``, ``process_limit`` and the stdlib-only
``supervisor`` program (``scratch`` holds the process runner's scratch folders); ``choice``
picks the default; ``portable`` carries a skill to a code executor elsewhere (the ADK runner in
``skills_core.adk.executor``).
"""
