"""A span per skill tool call, with google-adk's skill attributes (see skills_core.telemetry)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec

from skills_core import telemetry
from skills_core.catalog.catalog import SkillCatalog
from skills_core.tools.content import skill_uri
from skills_core.tools.results import ToolResult, is_error

if TYPE_CHECKING:
    from skills_core.tools.factory import SkillTools

P = ParamSpec("P")
ToolMethod = Callable[Concatenate["SkillTools", P], Awaitable[ToolResult]]


def traced(tool: str) -> Callable[[ToolMethod[P]], ToolMethod[P]]:
    """Run a :class:`SkillTools` tool inside a ``skillfs.<tool>`` span when tracing is on."""

    def decorate(method: ToolMethod[P]) -> ToolMethod[P]:
        signature = inspect.signature(method)

        @functools.wraps(method)
        async def call(tools: SkillTools, /, *args: P.args, **kwargs: P.kwargs) -> ToolResult:
            with telemetry.span(f"skillfs.{tool}", {telemetry.TOOL_NAME: tool}) as current:
                result = await method(tools, *args, **kwargs)
                if current is not None:
                    arguments = signature.bind(tools, *args, **kwargs).arguments
                    current.set_attributes(tool_attributes(tools.catalog, arguments, result))
                    if is_error(result):
                        telemetry.mark_error(current, result["error_code"], result["error"])
            return result

        return call

    return decorate


def tool_attributes(
    catalog: SkillCatalog, arguments: Mapping[str, Any], result: ToolResult
) -> dict[str, Any]:
    """The ``gen_ai.skill.*`` attributes of one call, as google-adk sets them on its spans.

    The skill name is recorded as asked, even when no such skill exists; its description and
    source only when it is loaded.
    """
    attributes: dict[str, Any] = {}
    name, path = arguments.get("skill_name"), arguments.get("file_path")
    if isinstance(name, str):
        attributes[telemetry.SKILL_NAME] = name
        entry = catalog.snapshot.entries.get(name)
        if entry is not None and entry.metadata is not None:
            attributes[telemetry.SKILL_DESCRIPTION] = entry.metadata.description
            attributes[telemetry.SKILL_SOURCE_URI] = skill_uri(entry.location)
    if isinstance(path, str):
        attributes[telemetry.SKILL_RESOURCE_NAME] = path
    if isinstance(result.get("exit_code"), int):
        attributes[telemetry.EXIT_CODE] = result["exit_code"]
    if isinstance(result.get("skills"), list):
        attributes["skillfs.skills.count"] = len(result["skills"])
    return attributes
