"""SkillTool: one ADK tool from a JSON-schema declaration and an async handler."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from google.adk.tools.base_tool import BaseTool
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from skills_core.tool_table import with_skill_names
from skills_core.tools.results import ToolResult, is_error

Handler = Callable[[Mapping[str, Any], ToolContext], Awaitable[ToolResult]]
"""Runs one call: the model's arguments and ADK's tool context in, a result mapping out."""


class SkillTool(BaseTool):
    """A tool whose description may change with every request (it is rebuilt each time).

    Args:
        name: The tool's name.
        describe: Returns the current description.
        parameters: JSON-schema properties of the arguments.
        required: Names of the required arguments.
        handler: Runs a call; it must return error values, never raise.
        skill_names: Returns the skill names a model may give now; the skill-name argument
            is declared as their ``enum`` (see
            :func:`~skills_core.tool_table.with_skill_names`). ``None``: any string.

    Attributes:
        kind: Which skill tool this is (``"load_skill"``, …), whatever it is named.
    """

    kind = ""

    def __init__(
        self,
        *,
        name: str,
        describe: Callable[[], str],
        parameters: Mapping[str, Any],
        required: Sequence[str],
        handler: Handler,
        skill_names: Callable[[], Sequence[str]] | None = None,
    ) -> None:
        super().__init__(name=name, description=describe())
        self._describe = describe
        self._parameters = dict(parameters)
        self._required = list(required)
        self._handler = handler
        self._skill_names = skill_names

    def _get_declaration(self) -> types.FunctionDeclaration:
        self.description = self._describe()
        properties = self._parameters
        if self._skill_names is not None:
            properties = with_skill_names(properties, self._skill_names())
        return types.FunctionDeclaration(
            name=self.name,
            description=self.description,
            parameters_json_schema={
                "type": "object",
                "properties": properties,
                "required": self._required,
            },
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Run the handler."""
        return await self._handler(args, tool_context)

    def _detect_error_in_response(self, response: Any) -> str | None:
        """ADK's telemetry hook: the error code of an error value."""
        if isinstance(response, dict) and is_error(response):
            return str(response["error_code"])
        return None
