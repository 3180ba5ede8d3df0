"""Size and complexity limits that protect skillfs from hostile or broken input."""

from __future__ import annotations

from dataclasses import dataclass

from backends._errors import LimitExceededError

KIB = 1024
MIB = 1024 * KIB

HOST_SKILL_FILES = 512  # the skills-over-MCP extension's limits of one skill
HOST_SKILL_BYTES = 16 * MIB
BUNDLE_SKILLS = 256  # skills at the host limits a default bundle may carry

MAX_LOCK_FILE_BYTES = 64 * MIB  # skills.lock: about 300 bytes a skill
MAX_APPROVALS_FILE_BYTES = 8 * MIB  # approvals.json: about 200 bytes an approval
MAX_KEY_FILE_BYTES = 64 * KIB  # an Ed25519 PEM key is about 120 bytes


@dataclass(frozen=True, slots=True)
class Limits:
    """How much skillfs reads, downloads and unpacks (each in docs/limits-and-errors.md)."""

    max_skill_md_bytes: int = 1 * MIB
    max_read_bytes: int = 10 * MIB
    max_bundle_bytes: int = HOST_SKILL_BYTES * BUNDLE_SKILLS
    bundle_download_bytes: int = 64 * MIB
    max_bundle_entries: int = HOST_SKILL_FILES * BUNDLE_SKILLS
    max_bundle_entry_bytes: int = HOST_SKILL_BYTES
    max_bundle_unpacked_bytes: int = HOST_SKILL_BYTES * BUNDLE_SKILLS
    max_compression_ratio: int = 100
    compression_ratio_floor: int = 1 * MIB
    max_index_bytes: int = 64 * MIB


DEFAULT_LIMITS = Limits()


def too_large(what: str, size: int, max_bytes: int, *, location: str | None) -> LimitExceededError:
    """The error for ``what`` (a file, SKILL.md, a bundle...) of ``size`` bytes."""
    return LimitExceededError(
        f"{what} is {size} bytes, over the {max_bytes}-byte limit", location=location
    )


def check_size(size: int, max_bytes: int, *, location: str | None, what: str = "file") -> None:
    """Refuse ``what`` of ``size`` bytes when it is over ``max_bytes`` (LimitExceededError)."""
    if size > max_bytes:
        raise too_large(what, size, max_bytes, location=location)
