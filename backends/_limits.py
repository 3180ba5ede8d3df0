"""Size and complexity limits that protect skillfs from hostile or broken input."""

from __future__ import annotations

from dataclasses import dataclass

from backends._errors import LimitExceededError

KIB = 1024
MIB = 1024 * KIB

HOST_SKILL_FILES = 512
"""Most files one skill may hold for an MCP host (the skills-over-MCP extension's limit)."""
HOST_SKILL_BYTES = 16 * MIB
"""Largest total size of one skill for an MCP host (the skills-over-MCP extension's limit)."""
BUNDLE_SKILLS = 256
"""How many skills at the host limits a default bundle may carry: the bundle defaults are the
host limits times this count, 131,072 members and 4 GiB (see docs/limits-and-errors.md)."""

MAX_LOCK_FILE_BYTES = 64 * MIB
"""Largest lock file read (``skills.lock``: about 300 bytes a skill, 3 MB at 10,000 skills)."""
MAX_APPROVALS_FILE_BYTES = 8 * MIB
"""Largest ``approvals.json`` read (about 200 bytes an approval: some 40,000 approvals)."""
MAX_KEY_FILE_BYTES = 64 * KIB
"""Largest key file read (``--trust``, ``--sign``; an Ed25519 PEM key is about 120 bytes)."""


@dataclass(frozen=True, slots=True)
class Limits:
    """The storage limits: how much skillfs reads, downloads and unpacks.

    The format's limits (frontmatter size, YAML aliases and depth) are
    ``skills_core._format.models.FormatLimits``; the tools' are in
    ``skills_core.tools._factory``.

    Attributes:
        max_skill_md_bytes: Largest SKILL.md accepted, checked before it is read where the
            listing knows its size.
        max_read_bytes: Largest resource file a backend read returns (the tools hand a model
            less: their own ``max_resource_bytes``).
        max_bundle_bytes: Largest zip bundle accepted, checked from its size before any
            download (``HOST_SKILL_BYTES`` x ``BUNDLE_SKILLS``).
        bundle_download_bytes: Bundles up to this size are downloaded whole and served from
            memory; larger ones are read member by member with ranged requests, and refused
            when their HTTP server ignores ``Range``. It also bounds the central directory
            and the manifest, which are always read whole.
        max_bundle_entries: Most members one zip bundle may declare, read from its end record
            before anything else is downloaded (``HOST_SKILL_FILES`` x ``BUNDLE_SKILLS``).
        max_bundle_entry_bytes: Largest uncompressed size one zip member may declare (one
            skill's host limit, ``HOST_SKILL_BYTES``).
        max_bundle_unpacked_bytes: Largest uncompressed size all members together may declare
            (``HOST_SKILL_BYTES`` x ``BUNDLE_SKILLS``).
        max_compression_ratio: Highest declared uncompressed/compressed ratio of one member
            (a zip bomb's signature), checked for members over ``compression_ratio_floor``.
        compression_ratio_floor: Members up to this uncompressed size may compress at any ratio.
        max_index_bytes: Largest well-known skills index (``index.json``) accepted; it is read
            whole, and a skillfs publication carries every SKILL.md in it.
    """

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
    """Refuse ``what`` of ``size`` bytes when it is over ``max_bytes``.

    Raises:
        LimitExceededError: It is too large.
    """
    if size > max_bytes:
        raise too_large(what, size, max_bytes, location=location)
