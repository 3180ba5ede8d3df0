"""The ``<available_skills>`` block that google-adk and skills-ref put in system prompts."""

from __future__ import annotations

import html
from collections.abc import Iterable


def format_available_skills(
    skills: Iterable[tuple[str, str | None, str | None]], *, note: str | None = None
) -> str:
    """Render ``(name, description, location)`` triples, escaped.

    With locations this is skills-ref's format; without (``None``), google-adk's. A ``None``
    description is left out (a catalog listed by name only), and a ``note`` comes first.
    """
    lines = ["<available_skills>"]
    if note is not None:
        lines += ["<note>", html.escape(note), "</note>"]
    for name, description, location in skills:
        lines += ["<skill>", "<name>", html.escape(name), "</name>"]
        if description is not None:
            lines += ["<description>", html.escape(description), "</description>"]
        if location is not None:
            lines += ["<location>", html.escape(location), "</location>"]
        lines.append("</skill>")
    lines.append("</available_skills>")
    return "\n".join(lines)
