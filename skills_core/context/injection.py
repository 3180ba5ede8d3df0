r"""Skill injection (adk-rust's ``SkillInjector``): the best skill's body, put before a message.

The best skill is ranked search's, when its match is strong against the catalog's calibrated
bar or the policy sets a ``min_score`` (``selector=select_skills`` for adk-rust's scores). Only user
messages with some text are touched. The query is their text parts joined by
``"\n"``; only the top match is used, and its block is ``[skill:<name>]``, a newline, the body
cut to ``max_chars`` characters, a newline and ``[/skill]``; delimiters inside the name and
body are neutralised (:func:`escape_block_delimiters`). The block and a blank line go
before the first text part: a message of one text part becomes ``<block>\n\n<query>``, as in
the crate. (With several text parts the crate writes the whole query into the first one and
keeps the others, so the model reads them twice; here each is read once.)

Messages are any objects shaped like google-genai's ``Content`` (a ``role`` and ``parts``
whose ``text`` may be set), so this module needs no model SDK.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from skills_core.catalog.catalog import SkillCatalog
from skills_core.context.derived import skill_body
from skills_core.context.search import rank_skills
from skills_core.context.selection import SelectionPolicy, Selector, SkillMatch, model_choices

DEFAULT_MAX_INJECTED_CHARS = 2_000
"""adk-rust's default cut of an injected body."""


class TextPart(Protocol):
    """A message part that may hold text."""

    text: str | None


class Message(Protocol):
    """A chat message: google-genai's ``types.Content`` fits."""

    @property
    def role(self) -> str | None:
        """Who sent it: ``"user"``, ``"model"``..."""

    @property
    def parts(self) -> Sequence[TextPart] | None:
        """Its parts, text or not."""


_DELIMITER = re.compile(r"\[(?=\s*/?\s*skill\b)", re.IGNORECASE)


def escape_block_delimiters(text: str) -> str:
    r"""``text`` with anything read as a skill block delimiter neutralised by a backslash.

    Every ``[`` followed by the word ``skill`` or ``/skill`` (any letter case, spaces allowed
    inside the bracket) gets one: ``[skill:x]`` becomes ``[\skill:x]`` and ``[/skill]``
    ``[\/skill]``. So a skill's name, description or body can neither close its block,
    letting what follows read as the user's words, nor open another.
    """
    return _DELIMITER.sub(r"[\\", text)  # a template's two backslashes write one


def prompt_block(name: str, body: str, max_chars: int) -> str:
    r"""``[skill:<name>]\n<body cut to max_chars characters>\n[/skill]``, delimiters escaped."""
    name, body = escape_block_delimiters(name), escape_block_delimiters(body[:max_chars])
    return f"[skill:{name}]\n{body}\n[/skill]"


def select_skill_prompt_block(
    catalog: SkillCatalog,
    query: str,
    policy: SelectionPolicy | None = None,
    max_chars: int = DEFAULT_MAX_INJECTED_CHARS,
    *,
    selector: Selector = rank_skills,
) -> tuple[SkillMatch, str] | None:
    """The top match for ``query`` and its prompt block; ``None`` when nothing matches."""
    for match in model_choices(selector, catalog, query, policy)[:1]:
        body = skill_body(catalog, match.name)
        if body is not None:  # None: removed by a refresh since it was selected
            return match, prompt_block(match.name, body, max_chars)
    return None


def message_text(message: Message) -> str:
    """The text parts of a message joined by newlines."""
    return "\n".join(part.text for part in message.parts or () if part.text is not None)


def apply_skill_injection(
    message: Message,
    catalog: SkillCatalog,
    policy: SelectionPolicy | None = None,
    max_chars: int = DEFAULT_MAX_INJECTED_CHARS,
    *,
    selector: Selector = rank_skills,
) -> SkillMatch | None:
    """Put the best skill's block before a user message, in place; see the module docstring.

    A message with text has a text part to receive the block, so no part is ever added.

    Returns:
        The match injected, or ``None`` (message left as it was): not a user message, no
        text, or no skill selected.
    """
    if message.role != "user":
        return None
    query = message_text(message)
    if not query.strip():
        return None
    selected = select_skill_prompt_block(catalog, query, policy, max_chars, selector=selector)
    if selected is None:
        return None
    match, block = selected
    first = next(part for part in message.parts or () if part.text is not None)
    first.text = f"{block}\n\n{first.text}"
    return match
