"""Key pairs and signed publications for the signing tests; the HTTP site comes from tests/index."""

from __future__ import annotations

from pathlib import Path

import pytest

from backends.index.signing import new_key_pair
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
        """The public key's PEM, as ``trusted_keys`` takes it."""
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
