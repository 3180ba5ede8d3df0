"""Options and credentials the remote tests share."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import boto3
from aiobotocore.session import AioSession
from botocore.config import Config

from backends import RetryPolicy
from tests.remote.servers import GcsServer, S3Server

FAST_RETRY = RetryPolicy(attempts=3, base_delay=0.001, max_delay=0.005)
"""Three attempts with millisecond backoff: fault tests stay fast and deterministic."""

S3_KEY = "AKIDLOOPBACKTESTING0"
S3_SECRET = "loopback-secret-never-shown-0123456789"

BOTOCORE_SESSION = AioSession()
"""One botocore session for every test's s3fs instance: loading its service models once saves
about half a second per backend (each backend still gets its own client and connections)."""


def s3_client(server: S3Server, **config: Any) -> Any:
    """A boto3 client for the tests' own writes; ``config`` goes to botocore's ``Config``."""
    return boto3.client(
        "s3",
        endpoint_url=server.url,
        region_name="us-east-1",
        aws_access_key_id=S3_KEY,
        aws_secret_access_key=S3_SECRET,
        config=Config(**config),
    )


def s3_options(server: S3Server, **extra: Any) -> dict[str, Any]:
    """Storage options reaching the moto server, with a fresh s3fs instance."""
    return {
        "endpoint_url": server.url,
        "key": S3_KEY,
        "secret": S3_SECRET,
        "client_kwargs": {"region_name": "us-east-1"},
        "session": BOTOCORE_SESSION,
        **extra,
    }


def gcs_options(server: GcsServer) -> dict[str, Any]:
    return {
        "endpoint_url": server.url,
        "token": "anon",
        "project": "test",
    }


CREDENTIAL_VARIABLES = ("AWS_", "FSSPEC_", "BOTO")
"""Prefixes of the variables that may hand botocore or fsspec credentials."""


def without_aws_credentials(home: Path) -> dict[str, str]:
    """What a process without AWS credentials anywhere sets, once it dropped every variable
    :data:`CREDENTIAL_VARIABLES` starts: no ``~/.aws`` files, never the instance metadata
    service (no network)."""
    return {
        "HOME": str(home),
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_CONFIG_FILE": str(home / "config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(home / "credentials"),
    }
