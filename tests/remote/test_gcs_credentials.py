"""gs:// credentials: the caller's token kept; else Google's default chain, or a refusal."""

from __future__ import annotations

from pathlib import Path

import pytest
from fsspec.config import conf

from backends._errors import StorageError
from backends._remote.filesystem import NO_GCS_CREDENTIALS, with_credentials

LOCATION = "gs://bucket/skills"


@pytest.fixture(autouse=True)
def no_default_credentials(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No key file, no gcloud folder, no fsspec setting, no metadata server check."""
    for name in ("GOOGLE_APPLICATION_CREDENTIALS", "CLOUDSDK_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("NO_GCE_CHECK", "true")
    for protocol in ("gs", "gcs"):
        monkeypatch.delitem(conf, protocol, raising=False)


def test_a_token_in_the_options_is_kept() -> None:
    options = {"token": "anon", "project": "p"}
    assert with_credentials(options, location=LOCATION) == options


def test_a_token_in_fsspec_configuration_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(conf, "gs", {"token": "anon"})  # what FSSPEC_GS_TOKEN=anon sets
    assert with_credentials({}, location=LOCATION) == {}


def test_default_credentials_go_to_google_auth(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", "/keys/reader.json")
    assert with_credentials({}, location=LOCATION) == {"token": "google_default"}


def test_gcloud_application_default_credentials_count(tmp_path: Path) -> None:
    adc = tmp_path / ".config" / "gcloud" / "application_default_credentials.json"
    adc.parent.mkdir(parents=True)
    adc.write_text("{}")
    assert with_credentials({}, location=LOCATION) == {"token": "google_default"}


def test_no_credentials_is_refused_saying_so() -> None:
    with pytest.raises(StorageError) as caught:
        with_credentials({}, location=LOCATION)
    assert (caught.value.location, caught.value.message) == (LOCATION, NO_GCS_CREDENTIALS)
