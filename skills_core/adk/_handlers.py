"""The ADK skill tools: the shared tools behind ADK's names and calling convention.

Only what ADK adds lives here: state injection, fork-mode skills, inline files, run
confirmations, and the gated contents shown, noted for the code gate.
"""

from __future__ import annotations

import base64
import dataclasses
import logging
import re
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any, Protocol, TypeAlias, TypeVar, cast

from google.adk.agents import BaseAgent, LlmAgent
from google.adk.events import Event
from google.adk.models import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.sessions.state import State
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.load_artifacts_tool import as_safe_part_for_llm
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from skills_core._catalog.catalog import SkillCatalog
from skills_core._codes import (
    AGENT_NOT_FOUND,
    CONFIRMATION_REJECTED,
    CONFIRMATION_REQUIRED,
    FORK_FAILED,
    MODEL_NOT_FOUND,
    SCRIPT_NOT_APPROVED,
    STATE_VARIABLE_MISSING,
)
from skills_core._format.models import Skill
from skills_core._tool_table import (
    LIST_SKILLS,
    LOAD_SKILL,
    LOAD_SKILL_RESOURCE,
    REQUEST,
    RUN_SKILL_SCRIPT,
    TOOLS,
    ToolDeclaration,
    ToolNames,
)
from skills_core.adk._executor import running_in
from skills_core.context._budget import ShownOrder, visible_names
from skills_core.tools._content import Delivery, ToolResult, is_error, never_raises, tool_error
from skills_core.tools._factory import SkillTools
from skills_core.tools._policy import script_arguments

logger = logging.getLogger("skillfs.adk")

CONTEXT_PATH_KEY = "skillfs:context_path"
"""Session-state key of the file being worked on: skills whose ``paths`` miss it are not listed."""
SHOWN_PREFIX = "skillfs:shown:"
"""Session-state key prefix, then the source's location: the gated contents shown,
``{skill: {digest: True}}``."""
_ASKED_PREFIX = "skillfs:asked:"
"""Session-state key prefix (then the call's id): the content a run confirmation asked about."""

Handler = Callable[[Mapping[str, Any], ToolContext], Awaitable[ToolResult]]


class SessionState(Protocol):
    """What skillfs needs of ADK's session state (``tool_context.state``, a dict, …)."""

    def get(self, key: str, default: Any = None) -> Any: ...

    def __setitem__(self, key: str, value: Any) -> None: ...


def context_path_of(state: Any) -> str | None:
    """The session's context path, when one is set (a string)."""
    value = state.get(CONTEXT_PATH_KEY)
    return value if isinstance(value, str) else None


class SkillTool(BaseTool):
    """A tool whose description and ``skill_name`` enum are rebuilt for every request.

    ``handler`` must return error values, never raise; ``skill_names=None`` takes any string;
    ``kind`` is which skill tool this is (``"load_skill"``, …), whatever it is named.
    """

    def __init__(
        self,
        declaration: ToolDeclaration,
        *,
        describe: Callable[[], str],
        handler: Handler,
        skill_names: Callable[[], Sequence[str]] | None = None,
        kind: str = "",
    ) -> None:
        super().__init__(name=declaration.name, description=describe())
        self._declaration = declaration
        self._describe = describe
        self._handler = handler
        self._skill_names = skill_names
        self.kind = kind

    def _get_declaration(self) -> types.FunctionDeclaration:
        self.description = self._describe()
        names = self._skill_names() if self._skill_names is not None else None
        return types.FunctionDeclaration(
            name=self.name,
            description=self.description,
            parameters_json_schema=self._declaration.input_schema(names),
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Run the handler."""
        return await self._handler(args, tool_context)

    def _detect_error_in_response(self, response: Any) -> str | None:
        """ADK's telemetry hook: the error code of an error value."""
        if isinstance(response, dict) and is_error(response):
            return str(response["error_code"])
        return None


def build_tools(
    tools: SkillTools,
    names: ToolNames,
    *,
    describe_load_skill: Callable[[], str],
    forker: Forker,
    inline: InlineFiles,
    order: ShownOrder,
) -> dict[str, SkillTool]:
    """The skill tools of :data:`~skills_core._tool_table.TOOLS`, keyed by their default names."""

    async def list_skills(args: Mapping[str, Any], context: ToolContext) -> ToolResult:
        return await tools.list_skills(context_path=context_path_of(context.state))

    @never_raises
    async def load_resource(args: Mapping[str, Any], context: ToolContext) -> ToolResult:
        asked = TOOLS[LOAD_SKILL_RESOURCE].arguments(args)
        result = await tools.load_skill_resource(**asked)
        if not is_error(result):
            await note_shown(tools, context.state, asked["skill_name"])
        return inline.take(result)

    @never_raises
    async def load_skill(args: Mapping[str, Any], context: ToolContext) -> ToolResult:
        asked = TOOLS[LOAD_SKILL].arguments(args)
        prepare = partial(inject_state, context=context)
        if not _forks(tools.catalog, asked.get("skill_name")):
            result = await tools.load_skill(**asked, prepare=prepare)
        else:  # a sub-agent's instruction is the whole skill, whatever part was asked for
            result = await tools.load_skill(asked["skill_name"], prepare=prepare, whole=True)
            if not is_error(result):
                result = await forker.run(result, _request(args, context), context)
        if not is_error(result):
            await note_shown(tools, context.state, args["skill_name"])
        return result

    @never_raises
    async def run_script(args: Mapping[str, Any], context: ToolContext) -> ToolResult:
        return await run_confirmed(
            tools, context, args.get("skill_name"), args.get("file_path"), args.get("args")
        )

    special: dict[str, Handler] = {
        LIST_SKILLS: list_skills,
        LOAD_SKILL: load_skill,
        LOAD_SKILL_RESOURCE: load_resource,
        RUN_SKILL_SCRIPT: run_script,
    }

    def skill_names() -> list[str]:
        return visible_names(tools.catalog, order)

    built = {}
    for kind, declaration in TOOLS.items():
        forks = kind == LOAD_SKILL  # described from the skills, and may run in a sub-agent
        shown = declaration.with_parameters(request=REQUEST) if forks else declaration
        built[kind] = SkillTool(
            replace(shown, name=getattr(names, kind)),
            describe=describe_load_skill if forks else fixed(declaration.description),
            handler=special.get(kind) or partial(_plain, tools, kind),
            skill_names=skill_names,
            kind=kind,
        )
    return built


def _forks(catalog: SkillCatalog, name: object) -> bool:
    """Whether the loaded skill ``name`` runs in a sub-agent (``context: fork``...)."""
    return (
        isinstance(name, str) and name in catalog and catalog.metadata(name).context in FORK_MODES
    )


def fixed(text: str) -> Callable[[], str]:
    """A description that never changes."""
    return lambda: text


async def _plain(
    tools: SkillTools, kind: str, args: Mapping[str, Any], context: ToolContext
) -> ToolResult:
    return await tools.call(kind, args)


def _request(args: Mapping[str, Any], context: ToolContext) -> str:
    """The sub-agent's task: the model's ``request``, else the user's latest message."""
    request = args.get("request")
    if isinstance(request, str) and request.strip():
        return request
    content = context.user_content
    parts = content.parts if content is not None and content.parts else []
    return "\n".join(part.text for part in parts if part.text)


async def note_shown(tools: SkillTools, state: SessionState, skill_name: str) -> None:
    """Record that the model was shown ``skill_name``'s current content, if it is gated."""
    approvals = tools.script_approvals
    if approvals.gated(skill_name):
        shown = shown_contents(tools, state)
        digests = {**shown.get(skill_name, {}), await approvals.digest(skill_name): True}
        state[_shown_key(tools)] = {**shown, skill_name: digests}  # new dicts: calls merge


def shown_contents(tools: SkillTools, state: SessionState) -> dict[str, dict[str, bool]]:
    """The gated contents of ``tools``' source the model was shown in the session."""
    return state.get(_shown_key(tools)) or {}


def _shown_key(tools: SkillTools) -> str:
    return SHOWN_PREFIX + tools.catalog.backend.location


async def run_confirmed(
    tools: SkillTools, context: ToolContext, skill_name: Any, file_path: Any, args: Any
) -> ToolResult:
    """Run a script with the factory, first asking the user when the policy says ``confirm``."""
    if tools.scripts is not None and tools.scripts.confirm:
        refusal = await _confirmed(tools, context, skill_name, file_path, args)
        if refusal:
            return refusal
    with running_in(context._invocation_context):  # for CodeExecutorRunner
        return await tools.run_skill_script(skill_name, file_path, args)


async def _confirmed(
    tools: SkillTools, context: ToolContext, skill_name: Any, file_path: Any, args: Any
) -> ToolResult | None:
    """``None`` once the user approved this run or content; else why it cannot run (yet)."""
    asked = f"{_ASKED_PREFIX}{context.function_call_id}"  # the content the question is about
    decision = context.tool_confirmation
    # Dropped before anything can return: every answer, whatever follows it, clears its key.
    asked_about = None if decision is None else _answered(context.state, asked)
    problem, digest = await tools.check_script(skill_name, file_path, args)
    if problem and problem.get("error_code") != SCRIPT_NOT_APPROVED:
        return problem
    approvals = tools.script_approvals
    # Hashing reads every file of the skill: only worth it where approvals are kept, and
    # done already where the check judged a copy (a gated skill's: its digest is that copy's).
    digest = (digest or await approvals.digest(skill_name)) if approvals.kept else None
    if digest is not None and await approvals.granted(skill_name, digest):
        return None
    if decision is None:
        if digest is not None:
            context.state[asked] = digest
        argv = " ".join(script_arguments(args))
        context.request_confirmation(
            hint=f"Run {file_path} of skill {skill_name} with arguments [{argv}]?",
            payload={"skill_name": skill_name, "file_path": file_path, "args": args},
        )
        context.actions.skip_summarization = True
        return tool_error(CONFIRMATION_REQUIRED, "waiting for the user to confirm this run")
    if not decision.confirmed:
        return tool_error(CONFIRMATION_REJECTED, "the user declined to run this script")
    await approvals.approve(skill_name, asked_about or digest)
    return None


def _answered(state: Any, key: str) -> str | None:
    """The digest kept at ``key`` for a question now answered; the key is set to ``None``.

    ADK cannot delete a state key. The key is per call, so one answer never clears another's.
    """
    digest = state.get(key)
    if digest is not None:
        state[key] = None
    return digest if isinstance(digest, str) else None


_KEPT_FILES = 16
"""Most files waiting for the next request; older ones are dropped."""


class InlineFiles:
    """Holds the binary files models read recently, for the requests that answer those reads.

    Keyed by skill and path, shared by every session (the bytes are the same whoever asked).
    """

    def __init__(self) -> None:
        self._pending: OrderedDict[tuple[str, str], types.Blob] = OrderedDict()

    def take(self, result: ToolResult) -> ToolResult:
        """Keep an inline-able file's bytes; return the response without them."""
        if result.get("delivery") != Delivery.INLINE:
            return result
        data = base64.b64decode(result["content_base64"])
        key = (result["skill_name"], result["file_path"])
        self._pending[key] = types.Blob(data=data, mime_type=result["mime_type"])
        self._pending.move_to_end(key)
        while len(self._pending) > _KEPT_FILES:
            self._pending.popitem(last=False)
        kept = {name: value for name, value in result.items() if name != "content_base64"}
        kept["note"] = "The file's content follows as inline data."
        return kept

    def attach(self, llm_request: LlmRequest) -> None:
        """Append the files answered in the request's last content as one user message."""
        if not llm_request.contents:
            return
        parts: list[types.Part] = []
        for part in llm_request.contents[-1].parts or []:
            response = part.function_response.response if part.function_response else None
            if not response or response.get("delivery") != Delivery.INLINE:
                continue
            skill_name, file_path = response.get("skill_name"), response.get("file_path")
            blob = self._pending.get((str(skill_name), str(file_path)))
            if blob is not None:
                parts.append(types.Part(text=f"{file_path} of skill {skill_name}:"))
                parts.append(types.Part(inline_data=blob))
        if parts:
            llm_request.contents.append(types.Content(role="user", parts=parts))


INJECT_STATE = "adk_inject_state"
"""The metadata key that turns state injection on."""

_PLACEHOLDER = re.compile(r"(?<![${\\]){+[^{}]*}+")
"""google-adk's template pattern: braces not preceded by ``$``, ``{`` or a backslash."""
_ARTIFACT = "artifact."
_SCOPES = (State.APP_PREFIX, State.USER_PREFIX, State.TEMP_PREFIX)


def inject_state_flag(value: object) -> bool | None:
    """``adk_inject_state`` as a bool (``"true"``/``"false"`` in any case); else ``None``."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


async def inject_state(skill: Skill, context: ToolContext) -> Skill | ToolResult:
    """``skill`` with its body's placeholders filled in from ``context``, if it opted in.

    google-adk's syntax (``{var}``, ``{var?}``, ``{app:var}``, ``{artifact.name}``); a
    ``STATE_VARIABLE_MISSING`` error names every required value the session lacks.
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
    found: dict[str, str | None] = {}
    missing: list[str] = []
    pieces: list[str] = []
    end = 0
    for match in _PLACEHOLDER.finditer(template):
        name = match.group().lstrip("{").rstrip("}").strip()
        label = name.removesuffix("?")  # as written, without braces or "?"
        scope, colon, key = label.rpartition(":")
        plain = key.isidentifier() and (not colon or scope + colon in _SCOPES)
        if not (plain or label.startswith(_ARTIFACT)):
            continue  # left as written
        if label not in found:  # each value is read once, however often it appears
            found[label] = await _value(label, context)
        value = found[label]
        if value is None and not name.endswith("?") and label not in missing:
            missing.append(label)
        pieces += [template[end : match.start()], value or ""]
        end = match.end()
    return "".join(pieces) + template[end:], missing


async def _value(label: str, context: ToolContext) -> str | None:
    """The text for the placeholder ``label``, or ``None`` when the session has no such value."""
    if not label.startswith(_ARTIFACT):
        if label not in context.state:
            return None
        value = context.state[label]
        return "" if value is None else str(value)
    key = label.removeprefix(_ARTIFACT)
    try:
        artifact = await context.load_artifact(key)
    except ValueError as exc:  # no artifact service, or a name the service refuses
        logger.warning("artifact %r could not be loaded: %s", key, exc)
        return None
    if artifact is None:
        return None
    text = as_safe_part_for_llm(artifact, key).text
    return str(artifact) if text is None else text


FORK_MODES = ("fork", "fork_with_context")

T = TypeVar("T")
Maybe: TypeAlias = T | Awaitable[T]

AgentResolver = Callable[[str | None, BaseLlm | str | None], Maybe[BaseAgent | None]]
"""``(agent name or None, model or None) -> agent``; ``None`` when no such agent exists."""

ModelResolver = Callable[[str], Maybe[BaseLlm | str | None]]
"""``model name -> model`` (a BaseLlm or a name ADK resolves); ``None`` when unknown."""


class Forker:
    """Resolves and runs sub-agents for fork-mode skills (docs/adk.md).

    ``context: fork`` gives the sub-agent the skill and the request, ``fork_with_context`` the
    conversation too. Without ``agents`` a default ``LlmAgent`` on the caller's model runs the
    skill; without a resolver, a skill naming an agent or model is refused.
    """

    def __init__(
        self, agents: AgentResolver | None = None, models: ModelResolver | None = None
    ) -> None:
        self._agents = agents
        self._models = models

    async def run(self, loaded: ToolResult, request: str, tool_context: ToolContext) -> ToolResult:
        """Run the skill of a whole ``load_skill`` result on ``request``: the final answer."""
        name, frontmatter = loaded["skill_name"], loaded["frontmatter"]
        mode = frontmatter["context"]
        agent = await self._agent(name, frontmatter, tool_context)
        if not isinstance(agent, BaseAgent):
            return agent
        history = tool_context.session.events if mode == "fork_with_context" else ()
        try:
            text = f"{loaded['instructions'].rstrip()}\n\n---\nRequest: {request}"
            message = types.Content(role="user", parts=[types.Part(text=text)])
            answer = await _run_agent(agent, tool_context, history, message)
        except Exception as exc:  # a sub-agent's failure is the model's to hear about
            logger.warning("fork of skill %r failed", name, exc_info=exc)
            return tool_error(FORK_FAILED, f"the sub-agent failed: {exc}")
        if isinstance(answer, dict):
            return answer
        return {"skill_name": name, "context": mode, "agent": agent.name, "result": answer}

    async def _agent(
        self, skill_name: str, frontmatter: dict[str, Any], tool_context: ToolContext
    ) -> BaseAgent | ToolResult:
        wanted_agent, wanted_model = frontmatter.get("agent"), frontmatter.get("model")
        model: BaseLlm | str | None = None
        if wanted_model:
            model = await _maybe(self._models(wanted_model)) if self._models else None
            if model is None:
                return tool_error(
                    MODEL_NOT_FOUND, f"no model {wanted_model!r} for skill {skill_name!r}"
                )
        if self._agents is not None:
            agent: BaseAgent | None = await _maybe(self._agents(wanted_agent, model))
            if agent is None:
                name = wanted_agent or "default"
                return tool_error(AGENT_NOT_FOUND, f"no {name!r} agent for skill {skill_name!r}")
            return agent
        if wanted_agent:
            return tool_error(
                AGENT_NOT_FOUND,
                f"skill {skill_name!r} asks for agent {wanted_agent!r}, but no agent "
                "resolver is configured",
            )
        caller = tool_context.get_invocation_context().agent
        if model is None and isinstance(caller, LlmAgent):
            model = caller.canonical_model
        return LlmAgent(
            name="skill_" + re.sub(r"\W", "_", skill_name),  # an identifier, as ADK wants
            model=model or "",
            description=f"Runs the {skill_name} skill.",
            instruction="Carry out the skill below for the request that follows it.",
        )


async def _maybe(value: Maybe[T]) -> T:
    if isinstance(value, Awaitable):
        return cast(T, await value)
    return value


async def _run_agent(
    agent: BaseAgent,
    tool_context: ToolContext,
    history: Sequence[Event],
    message: types.Content,
) -> str | ToolResult:
    parent = tool_context.get_invocation_context()
    runner = Runner(app_name=parent.app_name, agent=agent, session_service=InMemorySessionService())
    try:
        session = await runner.session_service.create_session(
            app_name=parent.app_name, user_id=parent.user_id
        )
        for event in history:
            if event.content is not None:
                copied = Event(
                    author=event.author, invocation_id=event.invocation_id, content=event.content
                )
                await runner.session_service.append_event(session, copied)
        texts: list[str] = []
        errors: list[str] = []
        async for event in runner.run_async(
            user_id=session.user_id, session_id=session.id, new_message=message
        ):
            if event.error_message:
                errors.append(event.error_message)
            if event.is_final_response() and event.content and event.content.parts:
                texts += [
                    part.text for part in event.content.parts if part.text and not part.thought
                ]
    finally:
        await runner.close()
    if not texts and errors:
        return tool_error(FORK_FAILED, f"the sub-agent failed: {errors[-1]}")
    return "\n".join(texts)
