"""Content digests as the skills standards write them: ``sha256:`` and 64 lowercase hex digits.

The MCP skills extension lists one per file, the well-known index one per artifact; both are
checked and produced here. Coroutines hash with :func:`digest_off_loop`, which moves data over
:data:`INLINE_HASH_BYTES` to a worker thread, never stalling the event loop.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import Mapping
from typing import TypeGuard

from backends._base import Backend
from backends._limits import KIB
from backends._paths import skill_md_name

_DIGEST = re.compile(r"sha256:[0-9a-f]{64}\Z")

INLINE_HASH_BYTES = 64 * KIB
"""Data up to this size is hashed where it is (tens of microseconds); larger data in a thread."""


def digest_of(data: bytes) -> str:
    """The digest of ``data``: ``sha256:`` and 64 lowercase hex digits."""
    return digest_text(hashlib.sha256(data).digest())


def digest_text(sha256: bytes) -> str:
    """A SHA-256 already computed (32 bytes) as a digest: ``sha256:`` and its hex."""
    return "sha256:" + sha256.hex()


async def digest_off_loop(data: bytes) -> str:
    """:func:`digest_of` for coroutines: over :data:`INLINE_HASH_BYTES`, in a worker thread."""
    if len(data) <= INLINE_HASH_BYTES:
        return digest_of(data)
    return await asyncio.to_thread(digest_of, data)


def is_digest(value: object) -> TypeGuard[str]:
    """True when ``value`` is a well-formed ``sha256:`` digest."""
    return isinstance(value, str) and _DIGEST.match(value) is not None


def files_digest(digests: Mapping[str, str]) -> str:
    """One digest for a set of files: of the JSON list of its ``[path, digest]`` pairs.

    The pairs are sorted by path (code point order) and written as
    ``json.dumps(pairs, separators=(",", ":"))`` does (ASCII; quotes, backslashes and control
    characters escaped): a text that reads back as exactly one set of files, so two different
    sets never share a digest, whatever their names hold. The ``sha256sum``-style lines used
    before did not (a name holding a newline could spell another file's line); approvals given
    to those digests are dropped (:mod:`skills_core._trust.approvals`, schema 2). The MCP
    skills extension's per-file digests give the same value without a read.
    """
    pairs = sorted(digests.items())
    return digest_of(json.dumps(pairs, separators=(",", ":")).encode())


async def skill_digest(backend: Backend, name: str, *, skill_md: str | None = None) -> str:
    """The digest of every file of skill ``name`` (see :func:`backends._digests.files_digest`).

    Reads each file once; a changed byte in any of them changes the digest. ``skill_md``, the
    digest of a SKILL.md already read (the one a user was shown), is used instead of reading
    it again, and so is a fingerprint that is a digest (an MCP entry's, which every read is
    checked against): over MCP nothing is read.
    """
    entries = await backend.files(name)
    known = {} if skill_md is None else {skill_md_name([e.path for e in entries]): skill_md}
    digests = {}
    for entry in entries:
        listed = entry.fingerprint if is_digest(entry.fingerprint) else None
        digests[entry.path] = (
            known.get(entry.path)
            or listed
            or await digest_off_loop(await backend.read(name, entry.path))
        )
    return files_digest(digests)
