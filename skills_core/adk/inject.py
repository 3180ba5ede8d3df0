"""Session state in skill instructions: google-adk's ``metadata.adk_inject_state``.

A skill whose frontmatter sets ``metadata.adk_inject_state: true`` gets the placeholders of its
body filled in when ``load_skill`` loads it, with google-adk's syntax and sources:

- ``{var}``: the session-state value ``var`` (``{app:var}``, ``{user:var}``, ``{temp:var}`` too);
- ``{var?}``: the same, or an empty string when the state holds no ``var``;
- ``{artifact.name}`` / ``{artifact.name?}``: the text of the session's artifact ``name``.

Braces around anything else (``{"a": 1}``, ``{x + 1}``) and ``${var}`` stay as written. Where
google-adk raises ``KeyError`` out of the agent's run at the first missing value, the skill comes
back as one ``STATE_VARIABLE_MISSING`` error value naming every missing value.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from typing import NamedTuple

from google.adk.sessions.state import State
from google.adk.tools.load_artifacts_tool import as_safe_part_for_llm
from google.adk.tools.tool_context import ToolContext

from skills_core.codes import STATE_VARIABLE_MISSING
from skills_core.format.models import Skill
from skills_core.tools.results import ToolResult, tool_error

logger = logging.getLogger("skillfs.adk")

INJECT_STATE = "adk_inject_state"
"""The metadata key that turns injection on."""

_PLACEHOLDER = re.compile(r"(?<![${\\]){+[^{}]*}+")
"""google-adk's template pattern: braces not preceded by ``$``, ``{`` or a backslash."""
_ARTIFACT = "artifact."
_SCOPES = (State.APP_PREFIX, State.USER_PREFIX, State.TEMP_PREFIX)


class _Placeholder(NamedTuple):
    key: str
    artifact: bool
    optional: bool

    @property
    def label(self) -> str:
        """The placeholder's name as written, without braces or ``?``."""
        return _ARTIFACT + self.key if self.artifact else self.key


def inject_state_flag(value: object) -> bool | None:
    """``adk_inject_state`` as a boolean: a bool, or ``"true"``/``"false"`` in any case.

    Returns:
        ``None`` for any other value.
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


async def inject_state(skill: Skill, context: ToolContext) -> Skill | ToolResult:
    """``skill`` with its body's placeholders filled in from ``context``, if it opted in.

    Returns:
        The skill (unchanged unless its metadata turns injection on), or a
        ``STATE_VARIABLE_MISSING`` error value listing every required value the session
        does not hold.
    """
    raw = skill.metadata.metadata.get(INJECT_STATE)
    if raw is None:
        return skill
    if (wanted := inject_state_flag(raw)) is None:
        logger.warning(
            "%s: metadata.%s %r is not true or false; ignored", skill.location, INJECT_STATE, raw
        )
    if not wanted:
        return skill
    body, missing = await _fill(skill.body, context)
    if not missing:
        return dataclasses.replace(skill, body=body)
    logger.warning("%s: no value for %s", skill.location, ", ".join(missing))
    names = ", ".join(f"`{label}`" for label in missing)
    message = (
        f"skill {skill.name!r} cannot be loaded yet: its instructions need {names}, "
        "which this session's state and artifacts do not hold"
    )
    return tool_error(STATE_VARIABLE_MISSING, message, skill_name=skill.name, missing=missing)


async def _fill(template: str, context: ToolContext) -> tuple[str, list[str]]:
    """``template`` filled in, and the labels of the required values found missing."""
    found: dict[tuple[str, bool], str | None] = {}
    missing: list[str] = []
    pieces: list[str] = []
    end = 0
    for match in _PLACEHOLDER.finditer(template):
        placeholder = _parse(match.group())
        if placeholder is None:
            continue
        source = (placeholder.key, placeholder.artifact)
        if source not in found:  # each value is read once, however often it appears
            found[source] = await _value(placeholder, context)
        value = found[source]
        if value is None and not placeholder.optional and placeholder.label not in missing:
            missing.append(placeholder.label)
        pieces += [template[end : match.start()], value or ""]
        end = match.end()
    return "".join(pieces) + template[end:], missing


def _parse(text: str) -> _Placeholder | None:
    """The placeholder in ``text`` (a pattern match), or ``None`` to leave it as written."""
    name = text.lstrip("{").rstrip("}").strip()
    optional = name.endswith("?")
    name = name.removesuffix("?")
    if name.startswith(_ARTIFACT):
        return _Placeholder(name.removeprefix(_ARTIFACT), artifact=True, optional=optional)
    scope, colon, key = name.rpartition(":")
    if not key.isidentifier() or (colon and scope + colon not in _SCOPES):
        return None
    return _Placeholder(name, artifact=False, optional=optional)


async def _value(placeholder: _Placeholder, context: ToolContext) -> str | None:
    """The text for ``placeholder``, or ``None`` when the session has no such value."""
    if not placeholder.artifact:
        if placeholder.key not in context.state:
            return None
        value = context.state[placeholder.key]
        return "" if value is None else str(value)
    try:
        artifact = await context.load_artifact(placeholder.key)
    except ValueError as exc:  # no artifact service, or a name the service refuses
        logger.warning("artifact %r could not be loaded: %s", placeholder.key, exc)
        return None
    if artifact is None:
        return None
    text = as_safe_part_for_llm(artifact, placeholder.key).text
    return str(artifact) if text is None else text
