"""Google credentials for ``gs://``, found or refused at once.

Given no ``token``, gcsfs tries google-auth's default chain, its own token cache and the
metadata server again, then goes on anonymously: away from Google Cloud that takes 15-20 s
(google-auth retries the metadata server with back-off) and the request that follows fails as
a timeout, not as missing credentials. So when the caller chose no token, skillfs looks where
google-auth's default chain does -- ``GOOGLE_APPLICATION_CREDENTIALS``, gcloud's application
default credentials file, then Google Cloud's metadata server (this machine's DMI product name,
then one request with a short timeout) -- and either lets gcsfs use that chain
(``token="google_default"``) or refuses, as ``s3://`` does without credentials. A public
bucket is read with ``token="anon"`` (``FSSPEC_GS_TOKEN=anon``). The variables and paths are
google-auth's own, read here without importing it (backends import nothing of ``google``).
"""

from __future__ import annotations

import os
import urllib.request
from collections.abc import Mapping
from typing import Any

from backends.errors import StorageError
from backends.remote.protocols import GCS_PROTOCOLS

METADATA_TIMEOUT = 0.5
"""Seconds to wait for Google Cloud's metadata server, asked once (it answers in
milliseconds where it exists)."""

_METADATA_IP = "169.254.169.254"
_METADATA_FLAVOR = {"Metadata-Flavor": "Google"}
_DMI_PRODUCT_NAME = "/sys/class/dmi/id/product_name"

NO_CREDENTIALS = (
    "no Google credentials found: set GOOGLE_APPLICATION_CREDENTIALS to a key file, run "
    "'gcloud auth application-default login', or set FSSPEC_GS_TOKEN=anon for a public bucket"
)


def with_credentials(options: Mapping[str, Any], *, location: str) -> dict[str, Any]:
    """``options`` for gcsfs, with ``token="google_default"`` when the caller chose none.

    Blocking: reads files and may ask the metadata server once; run it in a worker thread.

    Raises:
        StorageError: No token was chosen (in ``options`` or fsspec's configuration) and no
            default credentials exist.
    """
    if "token" in options or _configured_token():
        return dict(options)
    if not _default_credentials_exist():
        raise StorageError(NO_CREDENTIALS, location=location)
    return {**options, "token": "google_default"}


def _configured_token() -> bool:
    """True when fsspec's configuration (``FSSPEC_GS_TOKEN``, its files) sets a token."""
    from fsspec.config import conf

    return any("token" in conf.get(protocol, {}) for protocol in GCS_PROTOCOLS)


def _default_credentials_exist() -> bool:
    """True where google-auth's default chain would find credentials (its order, its names)."""
    if os.environ.get("GOOGLE_APPLICATION_CREDENTIALS"):
        return True  # a missing or broken file is google-auth's to report
    if os.path.isfile(os.path.join(_gcloud_config(), "application_default_credentials.json")):
        return True
    return _on_google_cloud()


def _gcloud_config() -> str:
    """The folder of gcloud's configuration: ``CLOUDSDK_CONFIG``, else the platform's default."""
    configured = os.environ.get("CLOUDSDK_CONFIG")
    if configured:
        return configured
    if os.name == "nt":
        return os.path.join(os.environ.get("APPDATA", ""), "gcloud")
    return os.path.join(os.path.expanduser("~"), ".config", "gcloud")


def _on_google_cloud() -> bool:
    """True on Compute Engine (by its DMI product name) or where its metadata server answers.

    Honours google-auth's ``NO_GCE_CHECK`` and ``GCE_METADATA_IP``; the server is asked once,
    without a proxy (it is link-local).
    """
    if os.environ.get("NO_GCE_CHECK") == "true":
        return False
    try:
        with open(_DMI_PRODUCT_NAME) as product:
            if product.read().startswith("Google"):
                return True
    except OSError:
        pass
    host = os.environ.get("GCE_METADATA_IP", _METADATA_IP)
    request = urllib.request.Request(f"http://{host}/", headers=_METADATA_FLAVOR)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=METADATA_TIMEOUT) as response:
            return bool(response.headers.get("Metadata-Flavor") == "Google")
    except (OSError, ValueError):  # refused, unreachable, timed out, an HTTP error status
        return False
