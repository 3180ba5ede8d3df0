"""A lock: which skills a catalog may serve, and the SHA-256 of every file of each.

The lock file (``skillfs-lock/1``, docs/trust.md "The lock file") is written deterministically,
so a change reviews as a small diff, and read strictly: a repeated key, a skill locked twice or
a path out of its folder refuses the whole file.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Set
from typing import Any, NamedTuple

from backends._digests import digest_off_loop, is_digest
from backends._errors import StorageError, UnsafePathError
from backends._limits import MAX_LOCK_FILE_BYTES
from backends._local_files import read_regular_file, replace_file
from backends._paths import check_relative_path, skill_md_name
from skills_core import _codes as codes
from skills_core._errors import LockFileError, LockMismatchError
from skills_core._format.models import SkillProblem

LOCK_FORMAT = "skillfs-lock/1"
DEFAULT_LOCK_FILE = "skills.lock"


class LockedSkill(NamedTuple):
    """One skill as locked: ``files`` maps each path in its folder to its ``sha256:`` digest."""

    name: str
    folder: str
    location: str
    files: Mapping[str, str]

    def to_dict(self) -> dict[str, Any]:
        """The entry as the lock file writes it."""
        return {**self._asdict(), "files": dict(sorted(self.files.items()))}


class SkillLock:
    """The skills a catalog may serve, by name, each with the digest of every file.

    ``source`` is where they were locked from; ``location`` the lock file's, for messages.
    """

    def __init__(
        self, skills: Iterable[LockedSkill], *, source: str, location: str = DEFAULT_LOCK_FILE
    ) -> None:
        self.skills: Mapping[str, LockedSkill] = {
            skill.name: skill for skill in sorted(skills, key=lambda skill: skill.name)
        }
        self.source = source
        self.location = location
        self._digest: str | None = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SkillLock) and self.dumps() == other.dumps()

    __hash__ = None  # type: ignore[assignment]

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> SkillLock:
        """Read a lock file (blocking): a regular file of at most ``MAX_LOCK_FILE_BYTES``.

        Raises:
            LockFileError: It cannot be read, is no regular file, is too large, or is not a
                ``skillfs-lock/1`` file.
        """
        try:
            data = read_regular_file(path, MAX_LOCK_FILE_BYTES, what="the lock")
            text = data.decode("utf-8")
        except FileNotFoundError as exc:
            message = f"cannot read the lock: {exc.strerror}"
            raise LockFileError(message, location=str(path)) from exc
        except StorageError as exc:
            raise LockFileError(exc.message, location=str(path)) from exc
        except UnicodeDecodeError as exc:
            raise LockFileError(f"not a skillfs lock ({exc})", location=str(path)) from exc
        return cls.parse(text, location=str(path))

    @classmethod
    def parse(cls, text: str, *, location: str = DEFAULT_LOCK_FILE) -> SkillLock:
        """A lock from the text of a lock file.

        Raises:
            LockFileError: It is not a ``skillfs-lock/1`` file.
        """
        try:
            document = json.loads(text, object_pairs_hook=_unique_keys)
            if document.get("format") != LOCK_FORMAT:
                raise ValueError(f"format is not {LOCK_FORMAT!r}")
            skills = [_parsed_skill(item) for item in document["skills"]]
            twice = [name for name, count in Counter(s.name for s in skills).items() if count > 1]
            if twice:
                raise ValueError(f"skill {twice[0]!r} is locked twice")
            source = document["source"]
            if not isinstance(source, str):
                raise TypeError("'source' is not a string")
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
            reason = f"{type(exc).__name__}: {exc}"
            raise LockFileError(f"not a skillfs lock ({reason})", location=location) from exc
        lock = cls(skills, source=source, location=location)
        lock._digest = _sha256(text)
        return lock

    @property
    def digest(self) -> str:
        """The SHA-256 (hex) of the lock file's text, read or as :meth:`dumps` writes it."""
        if self._digest is None:
            self._digest = _sha256(self.dumps())
        return self._digest

    def dumps(self) -> str:
        """The lock file's text: deterministic, one entry per skill, sorted."""
        document = {
            "format": LOCK_FORMAT,
            "source": self.source,
            "skills": [skill.to_dict() for skill in self.skills.values()],
        }
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"

    def write(self, path: str | os.PathLike[str]) -> None:
        """Write the lock file atomically (blocking): a reader never sees half of it."""
        replace_file(path, self.dumps().encode("utf-8"))

    def pinning(self, name: str, current: SkillLock) -> SkillLock:
        """This lock with skill ``name`` as ``current`` has it (dropped when it has none)."""
        skills = {**self.skills}
        skills.pop(name, None)
        if name in current.skills:
            skills[name] = current.skills[name]
        return SkillLock(skills.values(), source=self.source, location=self.location)

    def differences(self, current: SkillLock) -> list[str]:
        """One line per difference from ``current``: skills and files added, removed, changed."""
        lines = []
        for kind, name in _compared(self.skills, current.skills):
            if kind != "changed":
                lines.append(f"{kind} skill: {name}")
                continue
            before, after = self.skills[name], current.skills[name]
            if before.folder != after.folder:
                lines.append(f"moved skill: {name}: {before.folder} -> {after.folder}")
            files = _compared(before.files, after.files)
            lines += (f"{what} file: {name}/{path}" for what, path in files)
        return lines

    def problem(self, name: str, location: str, digest: str | None) -> SkillProblem | None:
        """Why skill ``name`` is refused: not locked, or its SKILL.md's ``digest`` differs."""
        locked = self.skills.get(name)
        if locked is None:
            message = f"not in the lock {self.location}; not served"
            return SkillProblem(name, location, codes.NOT_LOCKED, message)
        path = _skill_md_path(locked)
        if locked.files.get(path) != digest:
            message = f"{path} differs from the lock {self.location}; refused"
            return SkillProblem(name, location, codes.LOCK_MISMATCH, message)
        return None

    def missing(self, names: Set[str]) -> list[SkillProblem]:
        """A ``LOCK_MISSING`` problem for each locked skill whose name is not in ``names``."""
        message = f"locked in {self.location} but gone from the source"
        return [
            SkillProblem(skill.name, skill.location, codes.LOCK_MISSING, message)
            for skill in self.skills.values()
            if skill.name not in names
        ]

    async def verify_skill_md(self, name: str, data: bytes, *, location: str) -> bytes:
        """:meth:`verify` for the SKILL.md of skill ``name``."""
        locked = self.skills.get(name)
        path = "SKILL.md" if locked is None else _skill_md_path(locked)
        return await self.verify(name, path, data, location=location)

    async def verify(self, name: str, path: str, data: bytes, *, location: str) -> bytes:
        """Return ``data`` when it is the file ``path`` of skill ``name`` as locked.

        Raises:
            LockMismatchError: The file is not in the lock, or its bytes differ.
        """
        locked = self.skills.get(name)
        relative = check_relative_path(path)
        expected = None if locked is None else locked.files.get(relative)
        if expected is None or await digest_off_loop(data) != expected:
            how = "is not in" if expected is None else "differs from"
            raise LockMismatchError(
                f"{relative} {how} the lock {self.location}; refused", location=location
            )
        return data


def _compared(
    before: Mapping[str, object], after: Mapping[str, object]
) -> Iterator[tuple[str, str]]:
    """``("added" | "removed" | "changed", key)`` for each key whose value differs, sorted."""
    for key in sorted(before.keys() | after.keys()):
        if key not in before:
            yield "added", key
        elif key not in after:
            yield "removed", key
        elif before[key] != after[key]:
            yield "changed", key


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _skill_md_path(locked: LockedSkill) -> str:
    return skill_md_name(locked.files) or "SKILL.md"


def refusal(name: str, error: LockMismatchError) -> SkillProblem:
    """A file of skill ``name`` that ``error`` refused, as a problem of that skill."""
    return SkillProblem(name, error.location, codes.LOCK_MISMATCH, error.message)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys all differ (a repeated one could hide a value); else ValueError."""
    twice = [key for key, count in Counter(key for key, _ in pairs).items() if count > 1]
    if twice:
        raise ValueError(f"key {twice[0]!r} is repeated")
    return dict(pairs)


def _parsed_skill(item: Any) -> LockedSkill:
    """One entry of a parsed lock file, checked, its paths normalised."""
    name, folder, location, files = item["name"], item["folder"], item["location"], item["files"]
    if not all(isinstance(value, str) for value in (name, folder, location)):
        raise TypeError(f"skill {name!r} has a non-string name, folder or location")
    if not isinstance(files, dict) or not all(is_digest(value) for value in files.values()):
        raise ValueError(f"skill {name!r}: 'files' must map paths to sha256: digests")
    checked: dict[str, str] = {}
    for path, digest in files.items():
        try:
            relative = check_relative_path(path)
        except UnsafePathError as exc:
            raise ValueError(f"skill {name!r}: {exc.message}") from exc
        if relative in checked:
            raise ValueError(f"skill {name!r} names the file {relative!r} twice ({path!r})")
        checked[relative] = digest
    return LockedSkill(name, folder, location, checked)
