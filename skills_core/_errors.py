"""The one exception tree of skillfs.

Errors meant for a developer are exceptions; problems with individual skills found while
loading a catalog are values (:class:`~skills_core._format.models.SkillProblem`), so one bad
skill never hides the others. ``str(error)`` is ``"<location>: <message>"``.

::

    SkillfsError                      root; .message, .location
    ├── StorageError                  a backend could not list, fetch or read
    │   ├── SkillNotFoundError        (also LookupError) no skill of that name
    │   ├── ResourceNotFoundError     (also LookupError) no such file in the skill
    │   ├── UnsafePathError           (also ValueError) the path would leave the skill
    │   ├── LimitExceededError        larger than a configured Limits allows
    │   └── VerificationError         content unlike its listed digest (MCP, index, bundle)
    │       ├── SignatureError        a signed index refused: unsigned, untrusted key, rollback
    │       ├── LockMismatchError     a file unlike its digest in the catalog's lock
    │       └── EntryMismatchError    a SKILL.md unlike the entry its source listed (MCP)
    ├── UnsupportedSourceError        (also ValueError) a URL skillfs cannot open
    ├── MissingDependencyError        (also ImportError) names the extra to install
    ├── SkillParseError               SKILL.md has no readable frontmatter; .code
    │   └── YamlLimitError            too many YAML aliases, nested too deeply, a huge integer
    ├── SkillValidationError          the frontmatter breaks the spec; .report has every issue
    ├── InvalidSkillsError            skills to bundle break the spec; .problems lists them all
    ├── LockFileError                 a lock file cannot be read or is not a skillfs lock
    └── ScriptRunnerError             a runner could not run a script at all
        └── RunnerUnavailableError    the runner cannot work here; names what to install

The storage branch and the two source errors are defined in :mod:`backends._errors` (backends
never import skills_core) and re-exported here. docs/limits-and-errors.md shows this drawing;
``tests/test_error_tree.py`` holds both equal to the classes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from backends import _errors as _storage
from backends._errors import *  # noqa: F403 - the storage branch, re-exported
from backends._errors import SkillfsError, VerificationError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from skills_core._format.models import SkillProblem
    from skills_core._format.validation import ValidationReport

__all__ = [
    "EntryMismatchError",
    "InvalidSkillsError",
    "LockFileError",
    "LockMismatchError",
    "RunnerUnavailableError",
    "ScriptRunnerError",
    "SkillParseError",
    "SkillValidationError",
    "YamlLimitError",
]
__all__ += _storage.__all__


class SkillParseError(SkillfsError):
    """SKILL.md has no readable frontmatter; ``code`` is from :mod:`skills_core._codes`."""

    def __init__(self, message: str, *, location: str | None, code: str) -> None:
        super().__init__(message, location=location)
        self.code = code


class YamlLimitError(SkillParseError):
    """The frontmatter breaks a YAML limit (aliases, nesting, an integer's length); not built."""


class SkillValidationError(SkillfsError):
    """A skill breaks the spec; ``report`` holds every problem found."""

    def __init__(self, report: ValidationReport, *, location: str | None) -> None:
        messages = "; ".join(issue.message for issue in report.errors)
        super().__init__(f"invalid skill: {messages}", location=location)
        self.report = report


class InvalidSkillsError(SkillfsError):
    """Skills of the source break the spec (``problems``), so no bundle was written."""

    def __init__(self, problems: Sequence[SkillProblem], *, location: str) -> None:
        names = ", ".join(sorted({problem.subject for problem in problems}))
        super().__init__(
            f"{len(problems)} problem(s) in skills {names}; fix them or skip invalid skills",
            location=location,
        )
        self.problems = tuple(problems)


class LockFileError(SkillfsError):
    """A lock file cannot be read or is not a skillfs lock (:mod:`skills_core._trust.lock`)."""


class LockMismatchError(VerificationError):
    """A file a locked catalog read differs from its digest in the lock, or is not in it."""


class EntryMismatchError(VerificationError):
    """A SKILL.md unlike the entry its source listed (digest or frontmatter): skill refused."""


class ScriptRunnerError(SkillfsError):
    """A runner could not run a script at all (the sandbox or the executor failed)."""


class RunnerUnavailableError(ScriptRunnerError):
    """The runner a policy asks for cannot work here; the message says what to install."""
