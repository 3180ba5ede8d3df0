"""ScriptTool: ``run_skill_script`` from the model's call to the runner's outcome.

Checks needing no storage come first; then :class:`Workspaces` finds the folder the script
runs in: a local skill's own folder, unless the run is checked (a locked skill, or one needing
approval), which runs from a private copy so that what was checked is what runs. A remote
skill is copied once per version (SKILL.md fingerprint plus file listing) and deleted once
replaced and idle. Copied files are read-only, scripts also executable.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import tempfile
import weakref
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any, NamedTuple

import aiofiles

from backends._base import FileEntry
from backends._digests import digest_off_loop, files_digest, skill_digest
from backends._errors import ResourceNotFoundError, UnsafePathError, echoed
from backends._limits import too_large
from backends._paths import check_relative_path, check_resource_path, is_within, skill_md_name
from backends.capabilities import local_folder, provenance_of
from skills_core._catalog.catalog import SkillCatalog
from skills_core._codes import (
    INVALID_ARGUMENTS,
    RUNNER_UNAVAILABLE,
    SCRIPT_FAILED,
    SCRIPT_NOT_APPROVED,
    SCRIPT_NOT_FOUND,
    SCRIPT_TIMEOUT,
    SCRIPTS_DISABLED,
    UNSUPPORTED_SCRIPT,
)
from skills_core._errors import RunnerUnavailableError, ScriptRunnerError
from skills_core._format.models import Skill
from skills_core._trust.policy import SCRIPTS, withheld_fields
from skills_core.tools._content import ToolResult, require_text, tool_error
from skills_core.tools._policy import (
    HEAD_BYTES,
    ProcessOutcome,
    ScriptPolicy,
    ScriptRun,
    ScriptRunner,
    script_arguments,
)
from skills_core.tools._runners.sandbox import default_runner

_PARALLEL_READS = 8
_READ_ONLY = 0o444
_EXECUTABLE = 0o555


@dataclass(frozen=True, slots=True)
class _Request:
    """A script run that passed every check needing no storage access."""

    policy: ScriptPolicy
    path: str
    command: tuple[str, ...] | None  # None: read the #! line
    arguments: tuple[str, ...]


class ScriptCheck(NamedTuple):
    """What checking a run found, without running it."""

    problem: ToolResult  # why the run cannot go ahead (a tool error), {} when it can
    digest: str | None = None  # of the copy a gated skill's run was judged on


class ScriptTool:
    """Runs the scripts of one catalog's skills under one policy (``None``: scripts off)."""

    def __init__(self, catalog: SkillCatalog, policy: ScriptPolicy | None) -> None:
        self._catalog = catalog
        self._policy = policy
        self._workspaces = Workspaces(catalog)
        self._runner: ScriptRunner | None = policy.runner if policy else None
        self.approvals = ScriptApprovals(catalog)

    async def run(self, skill_name: Any, file_path: Any, args: Any) -> ToolResult:
        """Run one script; see :meth:`SkillTools.run_skill_script`."""
        prepared = await self._prepare(skill_name, file_path, args)
        if isinstance(prepared, dict):
            return prepared
        request, skill = prepared
        policy = request.policy
        async with self._workspace(skill_name, skill, request) as (folder, script, digest):
            if refusal := await self.approvals.refusal(skill_name, digest):
                return refusal
            command = request.command or await _command_from_file(policy, request.path, script)
            if isinstance(command, dict):
                return command
            run = ScriptRun(
                folder=folder,
                script=request.path,
                interpreter=command,
                arguments=request.arguments,
                files=tuple(entry.path for entry in skill.files),
                policy=policy,
                env=policy.environment(),
            )
            outcome = await self._execute(run)
        if isinstance(outcome, dict):
            return outcome
        result = {
            "skill_name": skill_name,
            "file_path": request.path,
            "exit_code": outcome.exit_code,
            "stdout": outcome.stdout.text(),
            "stderr": outcome.stderr.text(),
            "stdout_truncated": outcome.stdout.truncated,
            "stderr_truncated": outcome.stderr.truncated,
        }
        if outcome.timed_out:
            message = f"the script ran past its {policy.timeout:g} s limit and was killed"
            return tool_error(SCRIPT_TIMEOUT, message, **result)
        return result

    async def check(self, skill_name: Any, file_path: Any, args: Any) -> ScriptCheck:
        """Everything :meth:`run` checks, without running."""
        prepared = await self._prepare(skill_name, file_path, args)
        if isinstance(prepared, dict):
            return ScriptCheck(prepared)
        request, skill = prepared
        if request.command is None or self.approvals.gated(skill_name):
            async with self._workspace(skill_name, skill, request) as (_, script, digest):
                problem = await self.approvals.refusal(skill_name, digest)
                if problem is None and request.command is None:
                    command = await _command_from_file(request.policy, request.path, script)
                    problem = command if isinstance(command, dict) else None
                return ScriptCheck(problem or {}, digest)
        return ScriptCheck({})

    async def close(self) -> None:
        """Delete the local copies made to run remote skills' scripts."""
        await self._workspaces.close()

    def _workspace(
        self, skill_name: str, skill: Skill, request: _Request
    ) -> AbstractAsyncContextManager[Workspace]:
        """Where the script runs: a copy of its own when its content needs approval."""
        return self._workspaces.script(
            skill_name,
            skill,
            request.path,
            max_bytes=request.policy.max_workspace_bytes,
            digested=self.approvals.gated(skill_name),
        )

    async def _execute(self, run: ScriptRun) -> ProcessOutcome | ToolResult:
        """The runner's outcome, or why the runner could not run the script."""
        if self._runner is None:
            self._runner = await default_runner()
        try:
            return await self._runner.run(run)
        except RunnerUnavailableError as exc:
            return tool_error(RUNNER_UNAVAILABLE, exc.message)
        except ScriptRunnerError as exc:
            return tool_error(SCRIPT_FAILED, exc.message)
        except OSError as exc:
            message = f"could not start {run.interpreter[0]!r}: {exc.strerror or exc}"
            return tool_error(SCRIPT_FAILED, message)

    async def _prepare(
        self, skill_name: Any, file_path: Any, args: Any
    ) -> tuple[_Request, Skill] | ToolResult:
        """The checked run and its skill; the checks needing no storage access come first."""
        if self._policy is None:
            return tool_error(SCRIPTS_DISABLED, "running skill scripts is not enabled")
        if problem := require_text(skill_name=skill_name, file_path=file_path):
            return problem
        try:
            arguments = script_arguments(args)
        except ValueError as exc:
            return tool_error(INVALID_ARGUMENTS, str(exc))
        relative = check_resource_path(file_path, location=skill_name)
        command = self._policy.interpreter(relative)
        skill = await self._catalog.get(skill_name)
        if relative not in {entry.path for entry in skill.files}:
            message = f"skill {skill_name!r} has no file {echoed(relative)!r}"
            return tool_error(SCRIPT_NOT_FOUND, message)
        return _Request(self._policy, relative, command, tuple(arguments)), skill


async def _command_from_file(
    policy: ScriptPolicy, path: str, script: str
) -> tuple[str, ...] | ToolResult:
    async with aiofiles.open(script, "rb") as handle:
        head = await handle.read(HEAD_BYTES)
    command = policy.command_by_shebang(path, head)
    return tool_error(UNSUPPORTED_SCRIPT, command) if isinstance(command, str) else command


class Workspace(NamedTuple):
    """Where one script runs: the skill's folder or copy, the script, the copy's digest."""

    folder: str
    script: str
    digest: str | None = None


@dataclass(slots=True)
class _Copy:
    key: tuple[object, ...]
    path: str
    digest: str | None = None
    users: int = 0
    stale: bool = False


class Workspaces:
    """Hands out the folder each script of ``catalog`` runs in."""

    def __init__(self, catalog: SkillCatalog) -> None:
        self._catalog = catalog
        self._copies: dict[str, _Copy] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        weakref.finalize(self, _discard, self._copies)

    @asynccontextmanager
    async def script(
        self, name: str, skill: Skill, relative: str, *, max_bytes: int, digested: bool = False
    ) -> AsyncIterator[Workspace]:
        """Yield the :class:`Workspace` for running ``relative`` of the skill ``name``.

        ``max_bytes`` bounds a copied skill; ``digested`` copies it for this run alone, with
        the digest of the bytes copied.

        Raises:
            UnsafePathError: The script resolves outside the skill folder.
            ResourceNotFoundError: The script is not a regular file.
            LimitExceededError: A remote skill is too large to copy.
        """
        folder = None
        if self._catalog.lock is None and not digested:  # checked runs run from a copy
            folder = await local_folder(self._catalog.backend, self._catalog.folder(name))
        if folder is not None:
            yield Workspace(*await asyncio.to_thread(_confined_script, folder, relative))
            return
        if digested:
            copy = _Copy((), *await self._copy(name, skill, max_bytes, digested=True), stale=True)
        else:
            copy = await self._current_copy(name, skill, max_bytes)
        copy.users += 1
        try:
            yield Workspace(copy.path, os.path.join(copy.path, *relative.split("/")), copy.digest)
        finally:
            copy.users -= 1
            if copy.stale and not copy.users:
                await asyncio.to_thread(shutil.rmtree, copy.path, True)

    async def close(self) -> None:
        """Delete every copy."""
        paths = [copy.path for copy in self._copies.values()]
        self._copies.clear()
        await asyncio.to_thread(_remove_all, paths)

    async def _current_copy(self, name: str, skill: Skill, max_bytes: int) -> _Copy:
        entry = self._catalog.snapshot.loaded.get(name)
        key = (entry.fingerprint if entry else None, skill.files)
        lock = self._locks.setdefault(name, asyncio.Lock())
        async with lock:
            current = self._copies.get(name)
            if current is not None and current.key == key:
                return current
            fresh = _Copy(key, *await self._copy(name, skill, max_bytes))
            self._copies[name] = fresh
            if current is not None:
                current.stale = True
                if not current.users:
                    await asyncio.to_thread(shutil.rmtree, current.path, True)
            return fresh

    async def _copy(
        self, name: str, skill: Skill, max_bytes: int, *, digested: bool = False
    ) -> tuple[str, str | None]:
        """Copy a skill into a new private folder: the folder, and (``digested``) its digest.

        Each file is written as soon as it is read, at most ``_PARALLEL_READS`` at a time.
        """
        total = sum(entry.size for entry in skill.files)
        if total > max_bytes:
            raise too_large(
                "skill (copied to run its scripts)", total, max_bytes, location=skill.location
            )
        paths = [check_relative_path(entry.path) for entry in skill.files]
        skill_md = skill_md_name(paths)
        root = await asyncio.to_thread(_make_folders, name, paths)
        gate = asyncio.Semaphore(_PARALLEL_READS)
        digests: dict[str, str] = {}

        async def copy(entry: FileEntry, relative: str) -> None:
            async with gate:
                if relative == skill_md:  # the bytes the catalog served: no second download
                    data = await self._catalog.read_skill_md(name)
                else:
                    data = await self._catalog.read_resource(name, relative)
                if digested:
                    digests[relative] = await digest_off_loop(data)
                mode = _EXECUTABLE if entry.executable else _READ_ONLY
                target = os.path.join(root, *relative.split("/"))
                async with aiofiles.open(target, "xb", opener=_creating(mode)) as handle:
                    await handle.write(data)

        try:
            await asyncio.gather(*map(copy, skill.files, paths))
        except BaseException:
            await asyncio.to_thread(shutil.rmtree, root, True)
            raise
        return root, files_digest(digests) if digested else None


def _confined_script(folder: str, relative: str) -> tuple[str, str]:
    real_folder = os.path.realpath(folder)
    script = os.path.realpath(os.path.join(real_folder, *relative.split("/")))
    if not is_within(real_folder, script):
        raise UnsafePathError("script resolves outside the skill folder", location=script)
    if not os.path.isfile(script):
        raise ResourceNotFoundError("script is not a regular file", location=script)
    return real_folder, script


def _make_folders(name: str, paths: Sequence[str]) -> str:
    """A new private folder (mode 0700) holding the sub-folders ``paths`` need."""
    root = tempfile.mkdtemp(prefix=f"skillfs-{name}-")
    for folder in sorted({os.path.dirname(path) for path in paths} - {""}):
        os.makedirs(os.path.join(root, *folder.split("/")), exist_ok=True)
    return root


def _creating(mode: int) -> Callable[[str, int], int]:
    """An ``open`` opener that creates the file with ``mode`` (read-only files included)."""
    return lambda path, flags: os.open(path, flags, mode)


def _discard(copies: dict[str, _Copy]) -> None:
    """Delete the copies of dropped workspaces, in a worker thread if an event loop runs here."""
    if not (paths := [copy.path for copy in copies.values()]):
        return
    try:
        asyncio.get_running_loop().run_in_executor(None, _remove_all, paths)
    except RuntimeError:  # no loop runs in this thread, or it is closing
        _remove_all(paths)


def _remove_all(paths: Sequence[str]) -> None:
    for path in paths:
        shutil.rmtree(path, ignore_errors=True)


class ScriptApprovals:
    """Trust in one catalog's scripts, kept in its trust policy's ``approvals`` (if any).

    A skill whose source withholds ``scripts`` (MCP, a cloned project) runs none until the user
    approved the content that runs (the private copy's digest); each check reads the store
    again (docs/trust.md, "Approvals").
    """

    def __init__(self, catalog: SkillCatalog) -> None:
        self._catalog = catalog
        self._store = catalog.trust.approvals
        self._provenance = provenance_of(catalog.backend)

    @property
    def kept(self) -> bool:
        """Whether approvals are kept anywhere: without a store none is granted or recorded."""
        return self._store is not None

    @property
    def gating(self) -> bool:
        """Whether the catalog's source may withhold scripts (MCP, a cloned project's skills)."""
        return self._provenance is not None

    def gated(self, skill_name: str) -> bool:
        """Whether the skill's scripts run only once the user approved the content that runs."""
        return self._reason(skill_name) is not None

    async def refusal(
        self, skill_name: str, digest: str | None, *, what: str = "its scripts"
    ) -> ToolResult | None:
        """``None`` when the skill's scripts may run; else a ``SCRIPT_NOT_APPROVED`` error.

        ``digest`` is the content that would run (``None`` if unknown); ``what``, for the message.

        Raises:
            SkillNotFoundError: The catalog holds no such skill.
        """
        reason = self._reason(skill_name)
        if reason is None or (digest is not None and await self.granted(skill_name, digest)):
            return None
        where = (await approval_source(self._catalog, skill_name))[0]
        command = f"skillfs approve {_shell_word(where)} {_shell_word(skill_name)} --scripts"
        message = (
            f"skill {skill_name!r} may not run {what}: {reason}; the user can approve "
            f"this content with: {command}"
        )
        return tool_error(SCRIPT_NOT_APPROVED, message)

    async def approve(self, skill_name: str, digest: str | None = None) -> None:
        """Record that the user approved running the scripts of content ``digest``.

        By default the current content; an adapter passes the digest of what it asked about.
        """
        if self._store is not None:
            digest = digest or await self.digest(skill_name)
            where, bound_to = await approval_source(self._catalog, skill_name)
            await asyncio.to_thread(
                self._store.approve, digest, name=skill_name, source=bound_to or where, scripts=True
            )

    def _reason(self, skill_name: str) -> str | None:
        if self._provenance is None:
            return None
        provenance = self._provenance(self._catalog.folder(skill_name))
        return withheld_fields(provenance, frozenset()).get(SCRIPTS)

    async def granted(self, skill_name: str, digest: str) -> bool:
        """Whether the user approved running the scripts of content ``digest`` of the skill."""
        store = self._store
        if store is None:
            return False
        await asyncio.to_thread(store.reload)
        found = store.granted(digest)
        if found is None or not found.scripts:
            return False
        bound_to = (await approval_source(self._catalog, skill_name))[1]
        return bound_to is None or found.source == bound_to

    async def digest(self, skill_name: str) -> str:
        """The digest of every file of the skill's current content."""
        return await skill_digest(self._catalog.backend, self._catalog.folder(skill_name))


async def approval_source(catalog: SkillCatalog, skill_name: str) -> tuple[str, str | None]:
    """Where ``skillfs approve`` finds a skill, and what an approval of it is bound to.

    A local skill: its parent folder, bound to nothing. Any other: its source's URL, bound to
    its location (``mcp[<label>]:<uri>``), which an approval must record to count.
    """
    backend = catalog.backend
    folder = await local_folder(backend, catalog.folder(skill_name))
    if folder is not None:
        return os.path.dirname(folder), None
    url = getattr(backend, "url", None)  # where the location is no URL (MCP)
    location = catalog.snapshot.loaded[skill_name].location
    return (url if isinstance(url, str) else backend.location), location


def _shell_word(text: str) -> str:
    """``text`` as one shell word, safe to paste (ANSI-C quoting when not all printable)."""
    if text.isprintable():
        return shlex.quote(text)
    return "$'" + "".join(map(_ansi_c, text)) + "'"


def _ansi_c(char: str) -> str:
    if char in "\\'":
        return "\\" + char
    if char.isprintable():
        return char
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
