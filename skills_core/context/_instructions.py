"""A project's instruction files (AGENTS.md, CLAUDE.md, ``.skills/``) as skills.

``SkillCatalog(instruction_skills("."))``; :func:`instruction_documents` describes each loaded
document as adk-rust's index does.
"""

from __future__ import annotations

import os
import re
from typing import NamedTuple

from backends._instruction_files import InstructionFilesBackend
from skills_core._catalog.catalog import SkillCatalog
from skills_core._format.parsing import convention_skill_md

_NOT_ID = re.compile(r"[^a-z0-9 _-]")


class InstructionDocument(NamedTuple):
    """One loaded instruction file."""

    id: str  # the normalised name and the first 12 hex digits of hash ("agents-1f2e...")
    name: str
    description: str
    tags: tuple[str, ...]
    path: str  # relative to the project root
    hash: str  # SHA-256 of the file's bytes, as hex
    modified: float  # seconds since the epoch


def instruction_skills(root: str | os.PathLike[str]) -> InstructionFilesBackend:
    """The instruction files under the project ``root``, served as skills."""
    return InstructionFilesBackend(root, prepare_convention=convention_skill_md)


def instruction_documents(catalog: SkillCatalog) -> list[InstructionDocument]:
    """The loaded documents of a catalog over :func:`instruction_skills`, by name and path.

    Raises:
        TypeError: The catalog reads another kind of backend.
    """
    source = catalog.backend
    if not isinstance(source, InstructionFilesBackend):
        raise TypeError(f"the catalog reads {source!r}, not instruction files")
    documents = []
    for key, entry in catalog.snapshot.entries.items():
        item = source.describe(key)
        digest = source.file_hash(key, entry.fingerprint)
        if entry.metadata is None or item is None or digest is None:
            continue
        meta = entry.metadata
        identity = f"{normalize_id(meta.name)}-{digest[:12]}"
        documents.append(
            InstructionDocument(
                identity, meta.name, meta.description, meta.tags, item.path, digest, item.modified
            )
        )
    return sorted(documents, key=lambda document: (document.name, document.path))


def normalize_id(name: str) -> str:
    """adk-rust's id stem: ASCII letters and digits lowercased, spaces and ``_`` as ``-``."""
    kept = _NOT_ID.sub("", name.lower()).replace(" ", "-").replace("_", "-")
    return kept or "skill"
