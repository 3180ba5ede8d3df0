"""JSON schemas of the skill tools' arguments, shared by every adapter (ADK, MCP)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SKILL_NAME: Mapping[str, Any] = {"type": "string", "description": "The name of the skill."}
FILE_PATH: Mapping[str, Any] = {
    "type": "string",
    "description": "A file's path inside the skill, e.g. 'references/guide.md' or "
    "'scripts/build.py'.",
}
AS_BYTES: Mapping[str, Any] = {
    "type": "boolean",
    "description": "Set true to receive a binary file that is only described (a font, an "
    "archive...) as base64 bytes.",
}
SCRIPT_ARGS: Mapping[str, Any] = {
    "anyOf": [
        {"type": "array", "items": {"type": "string"}},
        {"type": "object"},
    ],
    "description": "Arguments: a list of strings, or an object of long options "
    "({'pages': 3, 'verbose': true} gives --pages 3 --verbose).",
}
QUERY: Mapping[str, Any] = {
    "type": "string",
    "description": "What the skill should do, in a few words.",
}
LIMIT: Mapping[str, Any] = {
    "type": "integer",
    "description": "How many skills at most (1-20, default 5).",
}
