"""SkillToolGuard: refuse the tool calls the active skill's ``allowed-tools`` do not permit.

Opt in per runner (``Runner(..., plugins=[guard])``) or per agent
(``LlmAgent(..., before_tool_callback=guard.before_tool, after_tool_callback=guard.after_tool)``).

The active skill is the one the model loaded last in the session (with ``load_skill``), or
one set with :func:`activate_skill`; it is kept in session state under
:data:`ACTIVE_SKILL_KEY`. While it is active, a call it does not permit does not run: the
model gets a ``TOOL_NOT_PERMITTED`` error value naming the skill, the call and what the skill
allows. The skill tools themselves always run, so the model can still list, search and load
another skill. Without an active skill, or when it has no ``allowed-tools``, nothing is refused;
``allowed-tools`` its source withholds (MCP, an untrusted project) still restrict.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any, Protocol

from google.adk.plugins.base_plugin import BasePlugin
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.tool_context import ToolContext

from backends.errors import SkillNotFoundError, echoed
from skills_core.adk.tool import SkillTool
from skills_core.catalog.catalog import SkillCatalog
from skills_core.codes import TOOL_NOT_PERMITTED
from skills_core.format.matching import permits_tool
from skills_core.tool_table import LOAD_SKILL
from skills_core.tools.results import ToolResult, is_error, tool_error

ACTIVE_SKILL_KEY = "skillfs:active_skill"
"""Session-state key holding the active skill's name."""

CallDetail = Callable[[str, Mapping[str, Any]], "str | None"]
"""What a call does, for rules such as ``Bash(git:*)``: from a tool's name and arguments."""


def command_detail(tool_name: str, args: Mapping[str, Any]) -> str | None:
    """A call's ``command`` argument, when it has one (shell tools)."""
    del tool_name
    command = args.get("command")
    return command if isinstance(command, str) else None


class SessionState(Protocol):
    """What the guard needs of ADK's session state (``tool_context.state``, a dict, …)."""

    def get(self, key: str, default: Any = None) -> Any:
        """The value under ``key``, or ``default``."""

    def __setitem__(self, key: str, value: Any) -> None:
        """Set ``key``."""


def activate_skill(state: SessionState, skill_name: str | None) -> None:
    """Make ``skill_name`` the active skill of a session (``None``: no active skill)."""
    state[ACTIVE_SKILL_KEY] = skill_name


class SkillToolGuard(BasePlugin):
    """Refuses tool calls the active skill does not permit; see the module docstring.

    Args:
        catalog: Where the active skill's ``allowed-tools`` are read, current at each call.
        aliases: The rule name of a tool whose name differs (``{"run_shell": "Bash"}``).
        detail: What a call does, matched against rule specifiers (default: its
            ``command`` argument).
        always_allowed: Tools that always run, besides the skill tools.
        name: The plugin's name.
    """

    def __init__(
        self,
        catalog: SkillCatalog,
        *,
        aliases: Mapping[str, str] | None = None,
        detail: CallDetail = command_detail,
        always_allowed: Collection[str] = (),
        name: str = "skillfs_tool_guard",
    ) -> None:
        super().__init__(name=name)
        self._catalog = catalog
        self._aliases = dict(aliases or {})
        self._detail = detail
        self._always_allowed = frozenset(always_allowed)

    def refusal(
        self, tool: BaseTool, args: Mapping[str, Any], state: SessionState
    ) -> ToolResult | None:
        """The error value for a call the active skill does not permit; ``None`` to let it run."""
        skill_name = state.get(ACTIVE_SKILL_KEY)
        if not skill_name or isinstance(tool, SkillTool) or tool.name in self._always_allowed:
            return None
        try:
            rules = self._catalog.restricting_tools(skill_name)
        except SkillNotFoundError:
            message = (
                f"the active skill {skill_name!r} is no longer available, so only the skill "
                "tools may run; load a skill first"
            )
            return tool_error(TOOL_NOT_PERMITTED, message, skill_name=skill_name)
        detail = self._detail(tool.name, args)
        if permits_tool(rules, self._aliases.get(tool.name, tool.name), detail):
            return None
        call = f"calling {tool.name!r}" + (
            f" with {echoed(detail)!r}" if detail is not None else ""
        )
        allowed = ", ".join(rules)
        message = f"the active skill {skill_name!r} does not permit {call}; it allows: {allowed}"
        return tool_error(
            TOOL_NOT_PERMITTED,
            message,
            skill_name=skill_name,
            allowed_tools=list(rules),
        )

    def observe(self, tool: BaseTool, result: Any, state: SessionState) -> None:
        """Activate the skill a successful ``load_skill`` call just loaded (inline skills)."""
        loaded = (
            isinstance(tool, SkillTool)
            and tool.kind == LOAD_SKILL
            and isinstance(result, dict)
            and not is_error(result)
            and "instructions" in result
        )
        if loaded:
            activate_skill(state, result["skill_name"])

    async def before_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        """Plugin hook: refuse the call, or let it run."""
        return self.refusal(tool, tool_args, tool_context.state)

    async def after_tool_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        result: dict[str, Any],
    ) -> dict[str, Any] | None:
        """Plugin hook: note which skill was loaded; the result is left as it is."""
        self.observe(tool, result, tool_context.state)
        return None

    async def before_tool(
        self, tool: BaseTool, args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        """An ``LlmAgent`` ``before_tool_callback``."""
        return self.refusal(tool, args, tool_context.state)

    async def after_tool(
        self,
        tool: BaseTool,
        args: dict[str, Any],
        tool_context: ToolContext,
        tool_response: dict[str, Any],
    ) -> dict[str, Any] | None:
        """An ``LlmAgent`` ``after_tool_callback``."""
        self.observe(tool, tool_response, tool_context.state)
        return None
