"""From one flat listing to skill folders: ``<root>/<name>/SKILL.md``, first level only.

An unsafe or condemned entry refuses the skill holding it; one of no skill is reported alone.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from backends._base import FileEntry, SkillRef
from backends._errors import StorageError, UnsafePathError
from backends._paths import (
    SKILL_MD_NAMES,
    check_relative_path,
    is_hidden,
    is_skill_name,
    passes,
    skill_md_name,
)
from backends._remote.urls import join_location

IGNORED_FOLDERS = frozenset({"__MACOSX"})  # added by archivers, never skills

_SHOWN_PROBLEMS = 3
_SYMLINK_MODE = "120000"  # a symlink's git mode, in a GitHub tree listing
_CONTENT_KEYS = ("generation", "ETag", "etag", "sha", "md5Hash", "Content-MD5", "Digest")
_TIME_KEYS = ("mtime", "LastModified", "Last-Modified", "updated", "created")


@dataclass(frozen=True, slots=True)
class StoredFile:
    """One file as the store lists it (``size_listed`` false: no size, reads unchecked)."""

    key: str
    size: int
    fingerprint: str
    location: str
    size_listed: bool = True
    mode: int | None = None

    @property
    def expected_size(self) -> int | None:
        """The size a complete read must have, when the listing gave one."""
        return self.size if self.size_listed else None


@dataclass(frozen=True, slots=True)
class Candidate:
    """One listed entry before it is judged (``stray``: outside the skills root)."""

    path: str
    file: StoredFile
    refusal: StorageError | None = None
    stray: bool = False


@dataclass(frozen=True, slots=True)
class SkillFolder:
    """One skill: its SKILL.md and every visible file, by path relative to the folder."""

    name: str
    skill_md: StoredFile
    files: Mapping[str, StoredFile]
    refusal: StorageError | None = None

    def entries(self) -> tuple[FileEntry, ...]:
        """The visible files, sorted by path."""
        return tuple(
            FileEntry(path, stored.size, stored.fingerprint, stored.mode)
            for path, stored in self.files.items()
        )

    def ref(self) -> SkillRef:
        """The listing's view of this skill."""
        location = self.skill_md.location
        if self.refusal is not None:
            message = self.refusal.message
            return SkillRef(self.name, f"refused:{message}", location, error=self.refusal)
        return SkillRef(self.name, self.skill_md.fingerprint, location, size=self.skill_md.size)


@dataclass(frozen=True, slots=True)
class Layout:
    """The skill folders of one listing, refused entries of none, and SKILL.md folders elsewhere."""

    skills: Mapping[str, SkillFolder]
    strays: tuple[SkillRef, ...] = ()
    elsewhere: tuple[str, ...] = ()

    def refs(self) -> list[SkillRef]:
        """Every skill and stray, sorted by name."""
        refs = [folder.ref() for folder in self.skills.values()]
        return sorted([*refs, *self.strays], key=lambda ref: ref.name)


def build_layout(candidates: Iterable[Candidate]) -> Layout:
    """Sort listed entries into skill folders; see the module docstring for the rules."""
    folders: dict[str, dict[str, StoredFile]] = defaultdict(dict)
    refused: dict[str, list[tuple[Candidate, StorageError]]] = defaultdict(list)
    strays: list[SkillRef] = []
    skill_md_folders: set[str] = set()
    for candidate in candidates:
        try:
            relative = check_relative_path(candidate.path)
        except UnsafePathError as exc:
            reason = exc.message.removesuffix(f": {candidate.path!r}")
            problem = UnsafePathError(reason, location=candidate.file.location)
            owner = None if candidate.stray else _owner(candidate.path)
            if owner is None:
                strays.append(_stray(candidate, problem))
            else:
                refused[owner].append((candidate, problem))
            continue
        folder, _, basename = relative.rpartition("/")
        if basename in SKILL_MD_NAMES and not candidate.stray:
            skill_md_folders.add(folder)
        name, _, inner = relative.partition("/")
        if candidate.stray or not inner or not is_skill_name(name) or is_hidden(relative):
            continue
        if candidate.refusal is not None:
            refused[name].append((candidate, candidate.refusal))
        elif inner in folders[name]:
            duplicate = UnsafePathError("duplicate entry", location=candidate.file.location)
            refused[name].append((candidate, duplicate))
        else:
            folders[name][inner] = candidate.file
    skills: dict[str, SkillFolder] = {}
    for name in sorted(folders.keys() | refused.keys()):
        files = folders.get(name, {})
        found = skill_md_name(files)
        skill_md = None if found is None else files[found]
        problems = refused.get(name, [])
        if skill_md is None:
            strays.extend(_stray(candidate, problem) for candidate, problem in problems)
            continue
        messages = [f"{candidate.path!r}: {error.message}" for candidate, error in problems]
        refusal = summary(messages, problems[0][1], lead="refused entries: ") if problems else None
        skills[name] = SkillFolder(name, skill_md, dict(sorted(files.items())), refusal)
    elsewhere = sorted(path for path in skill_md_folders if path.split("/", 1)[0] not in skills)
    return Layout(skills, tuple(strays), tuple(elsewhere))


def fingerprint(details: Mapping[str, Any]) -> str:
    """A listed file's fingerprint: a content token, else time, size and inode together."""
    for key in _CONTENT_KEYS:
        value = details.get(key)
        if value not in (None, ""):
            return f"{key}:{str(value).strip(chr(34))}"
    stamp = next((details[key] for key in _TIME_KEYS if details.get(key) is not None), "")
    return f"time:{stamp}:{details.get('size')}:{details.get('ino', '')}"


def listing_candidates(
    listing: Mapping[str, Mapping[str, Any]], root: str, *, base: str
) -> list[Candidate]:
    """Candidates from fsspec's ``find(root, detail=True)``; ``base`` is the root's URL."""
    prefix = root if not root or root.endswith("/") else f"{root}/"
    candidates = []
    for name, details in listing.items():
        if details.get("type") == "directory" or not name.startswith(prefix):
            continue
        relative = name[len(prefix) :]
        location = join_location(base, relative)
        size = details.get("size")
        listed = isinstance(size, int)
        stored = StoredFile(name, int(size or 0), fingerprint(details), location, listed)
        refusal = None
        if details.get("islink") or details.get("mode") == _SYMLINK_MODE:
            refusal = UnsafePathError("symlinks are refused", location=location)
        candidates.append(Candidate(relative, stored, refusal))
    return candidates


def mounted(path: str, mount: str) -> str:
    """``path`` placed in the folder ``mount``, unless unsafe (the layout then refuses it)."""
    if not mount or not passes(check_relative_path, path):
        return path
    return f"{mount}/{path}"


def _owner(raw_path: str) -> str | None:
    first = raw_path.split("/", 1)[0]
    return first if is_skill_name(first) else None


def _stray(candidate: Candidate, problem: StorageError) -> SkillRef:
    message = f"refused entry {candidate.path!r}: {problem.message}"
    location = candidate.file.location
    error = type(problem)(message, location=location)
    return SkillRef(candidate.path, f"refused:{message}", location, error=error)


def summary(messages: Sequence[str], first: StorageError, *, lead: str = "") -> StorageError:
    """One error of ``first``'s type and location, naming the first few ``messages``."""
    more = len(messages) - _SHOWN_PROBLEMS
    suffix = f" (and {more} more)" if more > 0 else ""
    shown = "; ".join(messages[:_SHOWN_PROBLEMS])
    return type(first)(f"{lead}{shown}{suffix}", location=first.location)
