"""CodeGate: no code runs while the model acts on a skill whose scripts need approval.

A skill served over MCP (or by a cloned project) runs no script until the user approved its
content (:mod:`skills_core.tools.script_approval`); SEP-2640 holds the code the model runs
while it acts on such a skill to the same gate. Once the model was shown a gated skill's
content in a session (``load_skill``, ``load_skill_resource``), a call of a tool
``ScriptPolicy(code_tools=...)`` names, and code the agent's ``code_executor`` would run from
the model's answer, are refused with ``SCRIPT_NOT_APPROVED`` naming the skill and the
``skillfs approve`` command, until the user approves every content shown. The model gets the
refusal as the tool's answer, or as the failed result of its code.

The contents shown are kept in session state per source, each with its digest: approving a
later content of a skill does not cover one the model saw before, and a skill no longer
served keeps refusing. A :class:`~skills_core.adk.SkillsToolset` whose source may gate skills
adds the gate to each agent it serves, first of its ``before_tool_callback`` and
``after_model_callback``, before the agent's first model call: there is nothing to opt in to.
An agent's ``BuiltInCodeExecutor`` runs code in the model provider's sandbox, not on this
host: it is not gated.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from google.adk.agents.callback_context import CallbackContext
from google.adk.agents.llm_agent import LlmAgent
from google.adk.agents.readonly_context import ReadonlyContext
from google.adk.code_executors.base_code_executor import BaseCodeExecutor
from google.adk.code_executors.built_in_code_executor import BuiltInCodeExecutor
from google.adk.code_executors.code_execution_utils import CodeExecutionUtils
from google.adk.models.llm_response import LlmResponse
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from backends.errors import SkillNotFoundError
from skills_core.adk.guard import SessionState
from skills_core.codes import SCRIPT_NOT_APPROVED
from skills_core.tools.factory import SkillTools
from skills_core.tools.results import ToolResult, tool_error

SHOWN_PREFIX = "skillfs:shown:"
"""Session-state key prefix (then the source's location): ``{skill: {digest: True}}``, the
gated contents the model was shown."""


async def note_shown(tools: SkillTools, state: SessionState, skill_name: str) -> None:
    """Record that the model was shown ``skill_name``'s current content, if it is gated."""
    approvals = tools.script_approvals
    if approvals.gated(skill_name):
        shown = _shown(tools, state)
        digests = {**shown.get(skill_name, {}), await approvals.digest(skill_name): True}
        state[_key(tools)] = {**shown, skill_name: digests}  # new dicts: parallel calls merge


async def code_refusal(tools: SkillTools, state: SessionState, running: str) -> ToolResult | None:
    """The ``SCRIPT_NOT_APPROVED`` error while a gated content shown is unapproved, else ``None``.

    Args:
        tools: The skill tools whose catalog and approvals decide.
        state: The session's state.
        running: What would run, for the message (``"a call of 'bash'"``).
    """
    what = f"code while the model acts on it ({running})"
    for name, digests in _shown(tools, state).items():
        for digest in digests:
            try:
                refusal = await tools.script_approvals.refusal(name, digest, what=what)
            except SkillNotFoundError:
                message = (
                    f"skill {name!r}, shown to the model in this session, is no longer served: "
                    f"its content cannot be approved, so no code runs in this session ({running})"
                )
                refusal = tool_error(SCRIPT_NOT_APPROVED, message)
            if refusal is not None:
                return refusal
    return None


def _key(tools: SkillTools) -> str:
    return SHOWN_PREFIX + tools.catalog.backend.location


def _shown(tools: SkillTools, state: SessionState) -> dict[str, dict[str, bool]]:
    return state.get(_key(tools)) or {}


class CodeGate:
    """Agent callbacks holding code tools and the code executor to :func:`code_refusal`.

    Args:
        tools_for: The skill tools serving a context (a toolset's catalog for its user).
    """

    def __init__(self, tools_for: Callable[[ReadonlyContext], Awaitable[SkillTools]]) -> None:
        self._tools_for = tools_for

    def attach(self, agent: object) -> None:
        """Put the gate first in ``agent``'s callbacks, once."""
        if isinstance(agent, LlmAgent) and self.before_tool not in (
            callbacks := agent.canonical_before_tool_callbacks
        ):
            agent.before_tool_callback = [self.before_tool, *callbacks]
            agent.after_model_callback = [self.after_model, *agent.canonical_after_model_callbacks]

    async def before_tool(
        self, tool: BaseTool, args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        """Refuse a call of a code tool while the gate is closed."""
        tools = await self._tools_for(tool_context)
        if tools.scripts is None or tool.name not in tools.scripts.code_tools:
            return None
        return await code_refusal(tools, tool_context.state, f"a call of {tool.name!r}")

    async def after_model(
        self, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        """Answer the code of a model's response as failed while the gate is closed."""
        executor = getattr(callback_context.get_invocation_context().agent, "code_executor", None)
        if (
            not isinstance(executor, BaseCodeExecutor)
            or isinstance(executor, BuiltInCodeExecutor)
            or llm_response.content is None
            or llm_response.partial
        ):
            return None
        tools = await self._tools_for(callback_context)
        if not _shown(tools, callback_context.state):
            return None
        content = llm_response.content.model_copy(deep=True)  # cut after its first code
        if not CodeExecutionUtils.extract_code_and_truncate_content(
            content, executor.code_block_delimiters
        ):
            return None
        refusal = await code_refusal(tools, callback_context.state, "the agent's code executor")
        if refusal is None:
            return None
        failed = types.Part.from_code_execution_result(
            outcome=types.Outcome.OUTCOME_FAILED,
            output=f"{refusal['error']} [{refusal['error_code']}]",
        )
        content.parts = [*(content.parts or []), failed]
        return llm_response.model_copy(update={"content": content})
