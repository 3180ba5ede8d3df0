"""The ``<available_skills>`` block that google-adk and skills-ref put in system prompts."""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence


def format_available_skills(
    skills: Iterable[tuple[str, str | None, str | None]],
    *,
    note: str | None = None,
    lines: Sequence[tuple[str, str]] = (),
    names: Sequence[str] = (),
) -> str:
    """Render ``(name, description, location)`` triples, escaped.

    With locations this is skills-ref's format; without (``None``), google-adk's. A ``None``
    description is left out, and a ``note`` comes first. The compact forms of a catalog over
    its budget follow the entries: ``lines``, ``(name, description)`` written
    ``name: description`` one per line, then ``names`` on one comma-separated line.
    """
    parts = ["<available_skills>"]
    if note is not None:
        parts += ["<note>", html.escape(note), "</note>"]
    for name, description, location in skills:
        parts += ["<skill>", "<name>", html.escape(name), "</name>"]
        if description is not None:
            parts += ["<description>", html.escape(description), "</description>"]
        if location is not None:
            parts += ["<location>", html.escape(location), "</location>"]
        parts.append("</skill>")
    parts += (html.escape(f"{name}: {text}", quote=False) for name, text in lines)
    if names:
        parts.append(html.escape(", ".join(names), quote=False))
    parts.append("</available_skills>")
    return "\n".join(parts)
