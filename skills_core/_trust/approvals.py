"""The user's approvals, kept by skill content in the cache folder, and that folder's trust.

The file, its writers' lock and what is ignored: docs/trust.md, "Where approvals live".
Loading and writing block; the lookups read what was loaded.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import stat
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from backends._digests import is_digest
from backends._errors import StorageError
from backends._limits import MAX_APPROVALS_FILE_BYTES
from backends._local_files import read_regular_file

logger = logging.getLogger("skillfs")

FILE_NAME = "approvals.json"
LOCK_NAME = "approvals.lock"
SCHEMA = 2
_GRANTS = (("scripts", "scripts"), ("allowed-tools", "tools"))
"""Each withheld field's name and the approval attribute that gives it back."""


class Approval(NamedTuple):
    """What the user approved for one skill content."""

    digest: str
    name: str
    source: str
    scripts: bool
    tools: bool
    approved: str

    @property
    def given(self) -> tuple[str, ...]:
        """The withheld fields it gives back: ``scripts``, ``allowed-tools``, both or none."""
        return tuple(key for key, given in _GRANTS if getattr(self, given))

    @property
    def grants(self) -> str:
        """``scripts``, ``allowed-tools`` or both, as approved (for people)."""
        return " and ".join(self.given)


class ApprovalStore:
    """The approvals file of a cache folder (default: :func:`default_cache_folder`)."""

    def __init__(self, folder: str | os.PathLike[str] | None = None) -> None:
        self.folder = Path(folder) if folder is not None else default_cache_folder()
        self.path = self.folder / FILE_NAME
        self._logged: set[str] = set()
        self._approvals: dict[str, Approval] = {}
        self.reload()

    def __repr__(self) -> str:
        return f"ApprovalStore({str(self.folder)!r}, {len(self._approvals)} approvals)"

    def approvals(self) -> Sequence[Approval]:
        """Every approval loaded, by skill name then digest."""
        return sorted(self._approvals.values(), key=lambda item: (item.name, item.digest))

    def granted(self, digest: str) -> Approval | None:
        """The approval of the skill content ``digest``, or ``None``."""
        return self._approvals.get(digest)

    def reload(self) -> None:
        """Read the file again (blocking): approvals given by other processes take effect."""
        self._approvals = self._read()

    def approve(
        self, digest: str, *, name: str, source: str, scripts: bool = False, tools: bool = False
    ) -> Approval:
        """Record an approval (added to any given before for this content); blocking."""
        with self._writing():
            before = self._approvals.get(digest)
            approval = Approval(
                digest,
                name,
                source,
                scripts or (before is not None and before.scripts),
                tools or (before is not None and before.tools),
                time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            )
            self._write({**self._approvals, digest: approval})
        return approval

    def revoke(self, key: str) -> Sequence[Approval]:
        """Remove the approvals of a skill name or of one digest; what was removed. Blocking."""
        with self._writing():
            gone = [item for item in self._approvals.values() if key in (item.name, item.digest)]
            if gone:
                self._write({k: v for k, v in self._approvals.items() if v not in gone})
        return gone

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """Hold the writers' lock (across processes), with the file reloaded."""
        why = ensure_folder(self.folder)
        if why is not None:
            raise OSError(f"{why}: {self.folder}")  # never write where others could swap it
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        lock = os.open(self.folder / LOCK_NAME, flags, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            self.reload()
            yield
        finally:
            os.close(lock)  # releases the lock

    def _read(self) -> dict[str, Approval]:
        why = ensure_folder(self.folder) or untrusted_file(self.path)
        if why is None:
            try:
                data = read_regular_file(self.path, MAX_APPROVALS_FILE_BYTES, what=FILE_NAME)
                return _decode(json.loads(data.decode()))
            except FileNotFoundError:
                return {}
            except StorageError as exc:
                why = exc.message
            except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
                why = f"not an approvals file ({exc})"
        self._log(f"ignored the approvals file {self.path}: {why}")
        return {}

    def _write(self, approvals: Mapping[str, Approval]) -> None:
        record = {
            "schema": SCHEMA,
            "approvals": {
                digest: {k: v for k, v in item._asdict().items() if k != "digest"}
                for digest, item in sorted(approvals.items())
            },
        }
        handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=".approvals-")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:  # mkstemp: mode 0600
                json.dump(record, file, indent=1, sort_keys=True)
                file.write("\n")
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        self._approvals = dict(approvals)

    def _log(self, message: str) -> None:
        """Log ``message`` once per store."""
        if message not in self._logged:
            self._logged.add(message)
            logger.warning("%s", message)


def _decode(record: Any) -> dict[str, Approval]:
    """The approvals of a file's JSON; ValueError, TypeError or KeyError when malformed."""
    if not isinstance(record, dict) or record.get("schema") != SCHEMA:
        if isinstance(record, dict) and record.get("schema") == 1:
            raise ValueError("schema 1, keyed by an ambiguous digest: approve the skills again")
        raise ValueError(f"not a schema {SCHEMA} approvals record")
    approvals: dict[str, Approval] = {}
    for digest, item in record["approvals"].items():
        if not is_digest(digest):
            raise ValueError(f"{digest!r} is no sha256 digest")
        fields = (item["name"], item["source"], item["scripts"], item["tools"], item["approved"])
        if not all(isinstance(value, str) for value in fields[:2] + fields[4:]) or not all(
            isinstance(value, bool) for value in fields[2:4]
        ):
            raise TypeError(f"the approval of {digest} holds values of the wrong type")
        approvals[digest] = Approval(digest, *fields)
    return approvals


CACHE_DIR_VARIABLE = "SKILLFS_CACHE_DIR"
"""The environment variable that moves the cache folder."""

_WRITABLE_BY_OTHERS = stat.S_IWGRP | stat.S_IWOTH


def default_cache_folder() -> Path:
    """``$SKILLFS_CACHE_DIR``, else ``$XDG_CACHE_HOME/skillfs``, else ``~/.cache/skillfs``."""
    moved = os.environ.get(CACHE_DIR_VARIABLE)
    if moved:
        return Path(moved)
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "skillfs"


def ensure_folder(folder: Path) -> str | None:
    """Create ``folder`` (mode 0700) if needed; why it cannot be trusted, or ``None``."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.lstat()
    except OSError as exc:
        return f"cannot create the cache folder: {exc.strerror or exc}"
    if not stat.S_ISDIR(info.st_mode):
        return "the cache folder is not a directory"
    return _untrusted(info, "the cache folder")


def untrusted_file(path: Path) -> str | None:
    """Why the existing file at ``path`` cannot be trusted, or ``None`` (also when absent)."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return f"{path.name} is not a regular file"
    return _untrusted(info, path.name)


def _untrusted(info: os.stat_result, what: str) -> str | None:
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        return f"{what} is owned by another user"
    if info.st_mode & _WRITABLE_BY_OTHERS:
        return f"{what} is writable by other users"
    return None
