"""BundleBackend: skills in a zip bundle, on any storage fsspec opens."""

from __future__ import annotations

from backends.base import Backend
from backends.errors import UnsupportedSourceError
from backends.remote.filesystem import RemoteFS
from backends.remote.urls import SourceSpec
from backends.store_backend import StoreBackend


class BundleBackend(StoreBackend):
    """A zip bundle whose root (or single top folder) holds the skill folders.

    ``./skills.zip`` (read through fsspec), ``s3://bucket/skills.zip``,
    ``https://host/skills.zip``, or fsspec's chained ``zip://[folder]::<archive URL>``, whose
    folder names the skills root inside the archive. ``open_backend`` gives one for every URL
    that names a bundle.

    One refresh costs one HEAD, and nothing more while the archive's fingerprint stays put (in
    a new process too, given the state an earlier one exported, with the catalog cache);
    a changed archive is screened from its end record, then downloaded whole or, over
    ``limits.bundle_download_bytes``, read with ranged requests
    (:mod:`backends.remote.bundles`). SKILL.md files and resources are inflated from
    the archive of the last listing.

    Takes the arguments of :class:`~backends.store_backend.StoreBackend`.

    Raises:
        UnsupportedSourceError: The URL names no zip bundle (no ``.zip`` path, no ``zip://``
            chain), or fsspec knows no filesystem for it.
        MissingDependencyError: The filesystem's package is not installed.
    """

    def _check_kind(self, spec: SourceSpec) -> None:
        if not spec.bundle:
            raise UnsupportedSourceError(
                "not a zip bundle: name a .zip file or a zip://::<URL> chain "
                "(FsspecBackend serves folders)",
                location=self._location,
            )

    async def _serve(self, fs: RemoteFS, location: str, imported: bytes | None) -> Backend:
        return self._bundle(fs, location)
