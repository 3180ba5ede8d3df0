"""FsspecBackend: skills in a folder on any fsspec storage, with or without a published index.

It sits above :mod:`backends.remote` (the fsspec plumbing) and :mod:`backends.index`
(published indexes, read through that plumbing): neither imports it, and the remote layer
never imports the index. Zip bundles have their own backend, :mod:`backends.bundle_backend`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from backends.base import Backend, SkillRef
from backends.capabilities import IndexVerifier
from backends.errors import ResourceNotFoundError, SignatureError, UnsupportedSourceError
from backends.index.document import INDEX_PATH
from backends.index.reader import IndexBackend
from backends.index.store import published_index
from backends.remote.filesystem import RemoteFS
from backends.remote.source_backend import SourceBackend
from backends.remote.sources import FolderSource
from backends.store_backend import StoreBackend


class FsspecBackend(StoreBackend):
    """A folder of skill folders on any storage fsspec can open.

    ``s3://bucket/skills``, ``gs://…``, ``github://org:repo@ref/skills``, ``memory://…``,
    ``file://…`` and any other fsspec URL name a folder whose first-level subfolders are
    skills. One refresh costs one recursive listing (s3fs: one LIST per 1,000 keys; GitHub:
    one trees request); SKILL.md files are then fetched concurrently, one GET each, and
    resources on demand. ``files()`` is served from the last listing.

    A folder holding a published index (``.well-known/agent-skills/index.json``, as
    ``skillfs publish`` writes it), or a URL naming an ``index.json``, is read through the index
    instead (:class:`~backends.index.reader.IndexBackend`): one HEAD per refresh, one GET when
    it changed, whatever the number of skills. It stays this backend's kind, a folder in a
    store, because only the store tells the two apart: the folder is checked for an index once,
    by the listing made when it is first opened, which then serves the first refresh (a plain
    folder costs no request more, a published one a LIST more), and read as a folder again
    when its index disappears. Given the state an earlier process exported (the catalog cache
    keeps it), a published folder skips that check: its first refresh is one HEAD.

    A ``.zip`` URL or a ``zip://`` chain is still served, as by
    :class:`~backends.bundle_backend.BundleBackend` (the class ``open_backend`` gives it),
    for compatibility.

    Told to require signatures (:meth:`require_signatures`, as a catalog trusting ``keys``
    does), only a published index its verifier accepts is served: a folder without an index is
    refused, not listed.

    Args:
        url: The folder, an ``index.json`` in it, or (for compatibility) a bundle.
        **options: The arguments of :class:`~backends.store_backend.StoreBackend`.

    Raises:
        UnsupportedSourceError: fsspec knows no filesystem for the URL.
        MissingDependencyError: The filesystem's package is not installed.
    """

    def __init__(self, url: str, **options: Any) -> None:
        super().__init__(url, **options)
        self._verifier: IndexVerifier | None = None

    def require_signatures(self, verifier: IndexVerifier) -> None:
        """Serve only a published index ``verifier`` accepts, from the next listing on.

        Raises:
            UnsupportedSourceError: This source is a bundle.
        """
        if self.is_bundle:
            raise UnsupportedSourceError(
                "trusted keys verify published indexes: a bundle is not one",
                location=self.location,
            )
        self._verifier = verifier
        if isinstance(self._served, IndexBackend):
            self._served.require_signatures(verifier)

    async def list(self) -> Sequence[SkillRef]:
        """List the folder (or its index) once: every skill, refused ones with their reason."""
        served = await self._opened()
        try:
            return await served.list()
        except ResourceNotFoundError:
            if not isinstance(served, IndexBackend):
                raise
        await self.aclose()  # the index is gone: look again, the folder may stay
        return await (await self._opened()).list()

    async def _serve(self, fs: RemoteFS, location: str, imported: bytes | None) -> Backend:
        if self._spec.bundle:
            return self._bundle(fs, location)
        verifier = self._verifier
        if imported is not None and IndexBackend.recognises(imported):
            known = await published_index(
                fs, location=location, limits=self._limits, verifier=verifier, known=True
            )
            if known is not None:
                return known
        folder = FolderSource(fs, location=location, concurrency=self._max_concurrency)
        if (
            verifier is not None
            or fs.path.rstrip("/").endswith(".json")
            or await folder.holds(INDEX_PATH)
        ):
            index = await published_index(
                fs, location=location, limits=self._limits, verifier=verifier
            )
            if index is not None:
                return index
        if verifier is not None:
            raise SignatureError(
                f"refused: trusted keys are set, and the folder holds no published index "
                f"({INDEX_PATH})",
                location=location,
            )
        return SourceBackend(folder, location=self._location)  # its first listing is made
