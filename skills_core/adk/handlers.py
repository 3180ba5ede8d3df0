"""The ADK skill tools: the shared tool factory behind ADK's names and calling convention.

Only what ADK adds lives here: ``load_skill`` fills in session state for skills that set
``metadata.adk_inject_state`` and runs fork-mode skills in a sub-agent, and ``run_skill_script``
can ask the user to confirm a run through ADK's tool confirmation: a confirmation is recorded in
the policy's approvals, and a content approved there runs without asking.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from google.adk.tools.tool_context import ToolContext

from skills_core.adk.code_gate import note_shown
from skills_core.adk.executor import running_in
from skills_core.adk.fork import FORK_MODES, ForkCall, Forker
from skills_core.adk.inject import inject_state
from skills_core.adk.inline import InlineFiles
from skills_core.adk.tool import Handler, SkillTool
from skills_core.catalog.catalog import SkillCatalog
from skills_core.codes import CONFIRMATION_REJECTED, CONFIRMATION_REQUIRED, SCRIPT_NOT_APPROVED
from skills_core.context.budget import ShownOrder, visible_names
from skills_core.format.models import Skill
from skills_core.tool_table import (
    LIST_SKILLS,
    LOAD_SKILL,
    LOAD_SKILL_RESOURCE,
    REQUEST,
    RUN_SKILL_SCRIPT,
    TOOLS,
    ToolDeclaration,
    ToolNames,
)
from skills_core.tools.factory import SkillTools
from skills_core.tools.policy import script_arguments
from skills_core.tools.results import ToolResult, is_error, never_raises, tool_error

CONTEXT_PATH_KEY = "skillfs:context_path"
"""Session-state key of the file being worked on: skills whose ``paths`` miss it are not listed."""
_ASKED_PREFIX = "skillfs:asked:"
"""Session-state key prefix (then the call's id): the content a run confirmation asked about."""


def context_path_of(state: Any) -> str | None:
    """The session's context path, when one is set (a string)."""
    value = state.get(CONTEXT_PATH_KEY)
    return value if isinstance(value, str) else None


def build_tools(
    tools: SkillTools,
    names: ToolNames,
    *,
    describe_load_skill: Callable[[], str],
    forker: Forker,
    inline: InlineFiles,
    order: ShownOrder,
) -> dict[str, SkillTool]:
    """The skill tools of :data:`~skills_core.tool_table.TOOLS`, keyed by their default names.

    Their ``skill_name`` enums list the skills in ``order`` (new ones join at its end).
    """

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
        result = await load(args, context)
        if not is_error(result):
            await note_shown(tools, context.state, args["skill_name"])
        return result

    async def load(args: Mapping[str, Any], context: ToolContext) -> ToolResult:
        asked = TOOLS[LOAD_SKILL].arguments(args)

        def prepare(skill: Skill) -> Awaitable[Skill | ToolResult]:
            return inject_state(skill, context)

        if not _forks(tools.catalog, asked.get("skill_name")):
            return await tools.load_skill(**asked, prepare=prepare)
        # A sub-agent's instruction is the whole skill, whatever part was asked for.
        result = await tools.load_skill(asked["skill_name"], prepare=prepare, whole=True)
        if is_error(result):
            return result
        frontmatter = result["frontmatter"]
        call = ForkCall(
            skill_name=result["skill_name"],
            mode=frontmatter["context"],
            content=result["instructions"],
            request=_request(args, context),
            agent=frontmatter.get("agent"),
            model=frontmatter.get("model"),
        )
        return await forker.run(call, context)

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
        tool = SkillTool(
            name=getattr(names, kind),
            describe=describe_load_skill if forks else _fixed(declaration.description),
            parameters=shown.parameters,
            required=shown.required,
            handler=special.get(kind) or _plain(tools, declaration),
            skill_names=skill_names,
        )
        tool.kind = kind
        built[kind] = tool
    return built


def _forks(catalog: SkillCatalog, name: object) -> bool:
    """Whether the loaded skill ``name`` runs in a sub-agent (``context: fork`` and the like)."""
    return (
        isinstance(name, str) and name in catalog and catalog.metadata(name).context in FORK_MODES
    )


def _fixed(text: str) -> Callable[[], str]:
    return lambda: text


def _plain(tools: SkillTools, declaration: ToolDeclaration) -> Handler:
    """A tool ADK adds nothing to: the factory's method of the tool's name, called as declared."""
    method = getattr(tools, declaration.name)

    async def handle(args: Mapping[str, Any], context: ToolContext) -> ToolResult:
        result: ToolResult = await method(**declaration.arguments(args))
        return result

    return handle


def _request(args: Mapping[str, Any], context: ToolContext) -> str:
    """The sub-agent's task: the model's ``request``, else the user's latest message."""
    request = args.get("request")
    if isinstance(request, str) and request.strip():
        return request
    content = context.user_content
    parts = content.parts if content is not None and content.parts else []
    return "\n".join(part.text for part in parts if part.text)


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
    """``None`` once the user approved this run or this content; else why it cannot run (yet).

    A skill whose source grants no scripts is asked about too: the confirmation approves it.
    """
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
    """The digest kept at ``key`` for a question now answered; the key keeps no value after.

    ADK cannot delete a state key: ``State`` has no ``__delitem__`` and the session services
    apply a delta with ``dict.update``, so ``None`` is what a removal can leave. The key stays
    per call: one key per skill would let one answer clear what another pending question about
    that skill still needs, and a dict of pending questions is deep-merged across parallel
    calls, which can undo a removal.
    """
    digest = state.get(key)
    if digest is not None:
        state[key] = None
    return digest if isinstance(digest, str) else None
