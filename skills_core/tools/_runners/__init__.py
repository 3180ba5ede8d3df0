"""Script runners: where a skill script runs and how it is isolated.

The seam is ``skills_core.tools._policy.ScriptRunner``. ``command`` runs one process;
``process`` (a supervised subprocess) and ``sandbox`` (bubblewrap, and the default choice
between the two) are the local runners, both starting the stdlib-only ``supervisor`` program.
The ADK runner, which carries a skill to a code executor elsewhere, is
``skills_core.adk._executor``.
"""
