"""The skills extension's entries for a catalog: frontmatter, and every file with its digest.

Digests come from the catalog (kept per file version, and by its persistent cache), and the
frontmatter from the text it holds, so an unchanged source publishes without a GET. Warnings
go in an entry's ``_meta``; skills the extension cannot carry are left out with the reason
(docs/mcp.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, NamedTuple

from backends._base import FileEntry
from backends._digests import digest_of
from backends._errors import StorageError
from backends._limits import HOST_SKILL_BYTES, HOST_SKILL_FILES
from backends._mcp.extension import (
    SKILL_MD,
    resource_uri,
)
from skills_core._catalog.catalog import SkillCatalog
from skills_core._catalog.entries import CatalogEntry, frontmatter_of
from skills_core._catalog.snapshot import CatalogSnapshot
from skills_core._errors import SkillParseError
from skills_core._format.parsing import frontmatter_json
from skills_core._format.validation import is_plain_name

_CONCURRENCY = 16

Entry = dict[str, Any]
"""A ``Skill`` entry as it goes on the wire."""

WARNINGS_META = "skillfs/warnings"
"""The ``_meta`` key of an entry's warnings: ``[{"code", "message"}]``, as the catalog gives
them (codes from :mod:`skills_core._codes`)."""

LEFT_OUT_META = "skillfs/leftOut"
"""The ``_meta`` key of a ``skills/list`` page naming every skill the extension leaves out:
``[{"name", "reason"}]`` (the plain tools still serve them)."""


class Published(NamedTuple):
    """One skill as published: its name, wire entry, and each file's storage path by URI."""

    name: str
    entry: Entry
    paths: Mapping[str, str]


class Manifests:
    """Builds the entries of a catalog's skills, reusing those whose files did not change."""

    def __init__(self, catalog: SkillCatalog) -> None:
        self._catalog = catalog
        self._built: dict[str, tuple[CatalogEntry, tuple[FileEntry, ...], Published]] = {}

    async def build(self) -> tuple[dict[str, Published], dict[str, str]]:
        """Every publishable skill by its ``SKILL.md`` URI, and why each other one is not."""
        gate = asyncio.Semaphore(_CONCURRENCY)
        snapshot = self._catalog.snapshot

        async def one(name: str) -> Published | str:
            async with gate:
                try:
                    return await self._publish(name, snapshot)
                except StorageError as exc:
                    return str(exc)

        names = [meta.name for meta in snapshot.skills]
        results = await asyncio.gather(*(one(name) for name in names))
        published = {r.entry["uri"]: r for r in results if isinstance(r, Published)}
        left_out = {n: r for n, r in zip(names, results, strict=True) if isinstance(r, str)}
        await self._catalog.save_file_digests()
        kept = {p.name for p in published.values()}
        self._built = {name: built for name, built in self._built.items() if name in kept}
        return published, left_out

    async def _publish(self, name: str, snapshot: CatalogSnapshot) -> Published | str:
        if not is_plain_name(name):
            return "its name breaks the extension's naming rules (lowercase letters, digits, '-')"
        entry = snapshot.loaded[name]
        files = await self._catalog.files(name)
        built = self._built.get(name)
        # Reused only while every file's fingerprint is as it was (none unknown).
        if built and built[0] is entry and built[1] == files and all(f.fingerprint for f in files):
            return built[2]
        frontmatter = self._frontmatter(name, entry)
        if isinstance(frontmatter, str):
            return frontmatter
        main = SKILL_MD if any(file.path == SKILL_MD for file in files) else "skill.md"
        others = [file for file in files if file.path != main]
        if len(others) + 1 > HOST_SKILL_FILES:
            return f"it has {len(others) + 1} files, over the extension's {HOST_SKILL_FILES}"
        digest, size = await self._skill_md(name, entry, files, main)
        total = size + sum(file.size for file in others)
        if total > HOST_SKILL_BYTES:
            return f"its files hold {total} bytes, over the extension's {HOST_SKILL_BYTES}"
        root = skill_root(name)
        uri = f"{root}/{SKILL_MD}"
        resources = [{"uri": uri, "digest": digest, "size": size}]
        paths = {uri: main}
        digests = await self._catalog.file_digests(name, others, max_bytes=HOST_SKILL_BYTES)
        for file, (file_digest, file_size) in zip(others, digests, strict=True):
            file_uri = resource_uri(root, file.path)
            resources.append({"uri": file_uri, "digest": file_digest, "size": file_size})
            paths[file_uri] = file.path
        wire = {"uri": uri, "frontmatter": frontmatter, "resources": resources}
        warnings = snapshot.advice.get(name, ())
        if warnings:
            notes = [{"code": problem.code, "message": problem.message} for problem in warnings]
            wire["_meta"] = {WARNINGS_META: notes}
        published = Published(name, wire, paths)
        self._built[name] = (entry, files, published)
        return published

    def _frontmatter(self, name: str, entry: CatalogEntry) -> dict[str, Any] | str:
        """The file's frontmatter as JSON, or why the extension cannot carry it identical."""
        try:
            frontmatter = frontmatter_json(
                frontmatter_of(entry), location=entry.location, limits=self._catalog.format_limits
            )
        except SkillParseError as exc:
            return f"its frontmatter has no JSON form identical to the file's: {exc.message}"
        identity = frontmatter.get("name"), frontmatter.get("description")
        if identity[0] != name or not isinstance(identity[1], str):
            return "YAML 1.2 reads its name and description as {!r} and {!r}".format(*identity)
        return frontmatter

    async def _skill_md(
        self, name: str, entry: CatalogEntry, files: tuple[FileEntry, ...], main: str
    ) -> tuple[str, int]:
        """The SKILL.md's digest and size: the catalog's, read only if its file changed since."""
        listed = next((file for file in files if file.path == main), None)
        if listed is not None and listed.fingerprint == entry.fingerprint:
            return self._catalog.skill_md_digest(name), listed.size
        raw = await self._catalog.read_skill_md(name)
        return digest_of(raw), len(raw)


def skill_root(name: str) -> str:
    """The root URI of the skill ``name``: its files are ``<root>/<path>``."""
    return f"skill://{name}"
