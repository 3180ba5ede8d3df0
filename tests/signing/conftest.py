"""Key pairs and signed publications for the signing tests; the HTTP site comes from tests/index."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TypeVar

import pytest

from backends import Backend, MemoryBackend
from backends.capabilities import require_signatures
from backends.testing import skill_md
from skills_core._bundle.publish import build_publication
from skills_core._trust.signing import IndexVerifier, SequenceMemory, new_key_pair, private_key
from tests.index.conftest import site, web

__all__ = ["site", "web"]


class Keys:
    """A key pair written as ``skillfs keygen`` writes it: ``private`` and ``private.pub``."""

    def __init__(self, folder: Path, name: str) -> None:
        self.private = folder / name
        self.public = folder / f"{name}.pub"
        secret, shared = new_key_pair()
        self.private.write_bytes(secret)
        self.public.write_bytes(shared)

    @property
    def pem(self) -> bytes:
        """The public key's PEM, as ``TrustPolicy(keys=...)`` takes it."""
        return self.public.read_bytes()


@pytest.fixture
def keys(tmp_path: Path) -> Keys:
    return Keys(tmp_path, "release")


@pytest.fixture
def other_keys(tmp_path: Path) -> Keys:
    return Keys(tmp_path, "other")


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder of the test's own, where sequences already seen are remembered."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("SKILLFS_CACHE_DIR", str(folder))
    return folder


B = TypeVar("B", bound=Backend)


def trusting(backend: B, *keys: Keys, sequences: SequenceMemory | None = None) -> B:
    """``backend`` serving only indexes ``keys`` signed, as a catalog trusting them makes it."""
    require_signatures(backend, IndexVerifier([key.pem for key in keys], sequences=sequences))
    return backend


SKILLS = {
    "alpha": {"SKILL.md": skill_md("alpha"), "references/guide.md": b"# Guide\n"},
    "beta": {"SKILL.md": skill_md("beta")},
}
"""One skill published as an archive, one as its SKILL.md alone."""


async def signed(
    keys: Keys | None, skills: Mapping[str, Mapping[str, bytes]] = SKILLS
) -> dict[str, bytes]:
    """The files of a publication of ``skills``, signed with ``keys`` (unsigned for ``None``)."""
    key = None if keys is None else private_key(keys.private.read_bytes())
    publication = await build_publication(MemoryBackend(skills), signing_key=key)
    return dict(publication.files)
