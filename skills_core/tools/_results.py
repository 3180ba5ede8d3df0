"""What a tool hands back to the model: a result mapping, or an error as a value.

Tools never raise: every failure is built by :func:`tool_error` with an ``error_code`` from
:mod:`skills_core._codes`; :func:`never_raises` is the last line of defence around every tool.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec

from backends._errors import (
    LimitExceededError,
    ResourceNotFoundError,
    SkillfsError,
    SkillNotFoundError,
    UnsafePathError,
)
from skills_core._codes import (
    ENTRY_MISMATCH,
    INTERNAL_ERROR,
    INVALID_ARGUMENTS,
    INVALID_PATH,
    LOCK_MISMATCH,
    READ_FAILED,
    RESOURCE_NOT_FOUND,
    RESOURCE_TOO_LARGE,
    SKILL_NOT_FOUND,
)
from skills_core._errors import EntryMismatchError, LockMismatchError

logger = logging.getLogger("skillfs.tools")

ToolResult = dict[str, Any]
"""A JSON-ready mapping; it holds ``error`` and ``error_code`` when the call failed."""


def tool_error(code: str, message: str, **details: Any) -> ToolResult:
    """The one shape of every error a model sees: ``{"error", "error_code", **details}``."""
    return {"error": message, "error_code": code, **details}


def require_text(**arguments: Any) -> ToolResult | None:
    """An ``INVALID_ARGUMENTS`` error naming every argument that is not a non-empty string."""
    missing = [name for name, value in arguments.items() if not isinstance(value, str) or not value]
    if not missing:
        return None
    names = ", ".join(repr(name) for name in missing)
    return tool_error(INVALID_ARGUMENTS, f"argument {names} must be a non-empty string")


def is_error(result: ToolResult) -> bool:
    """True when ``result`` was built by :func:`tool_error`."""
    return "error_code" in result


_CODES: tuple[tuple[type[SkillfsError], str], ...] = (
    (SkillNotFoundError, SKILL_NOT_FOUND),
    (ResourceNotFoundError, RESOURCE_NOT_FOUND),
    (UnsafePathError, INVALID_PATH),
    (LimitExceededError, RESOURCE_TOO_LARGE),
    (LockMismatchError, LOCK_MISMATCH),
    (EntryMismatchError, ENTRY_MISMATCH),
)
"""The code of each skillfs exception, most specific first; any other is ``READ_FAILED``."""


P = ParamSpec("P")


def never_raises(
    tool: Callable[P, Awaitable[ToolResult]],
) -> Callable[P, Awaitable[ToolResult]]:
    """Turn any exception escaping ``tool`` into an error value (``INTERNAL_ERROR``, logged)."""

    @functools.wraps(tool)
    async def guarded(*args: P.args, **kwargs: P.kwargs) -> ToolResult:
        try:
            return await tool(*args, **kwargs)
        except SkillfsError as exc:
            code = next((code for kind, code in _CODES if isinstance(exc, kind)), READ_FAILED)
            return tool_error(code, exc.message)
        except Exception as exc:  # the model must get a value, whatever went wrong
            logger.exception("tool %s failed", getattr(tool, "__name__", tool))
            return tool_error(INTERNAL_ERROR, f"the tool failed unexpectedly: {exc}")

    return guarded
