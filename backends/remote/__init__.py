"""Remote skills: one fsspec backend for S3, GCS, GitHub, zip bundles, memory and HTTP.

Modules, one concern each: :mod:`~backends.remote.urls` (what a URL names),
:mod:`~backends.remote.filesystem` (opening and calling fsspec without blocking),
:mod:`~backends.remote.errors` and :mod:`~backends.remote.retry` (foreign errors, one retry
layer), :mod:`~backends.remote.github` (one-request GitHub trees),
:mod:`~backends.remote.fingerprints` and :mod:`~backends.remote.layout` (listing to skill
folders), :mod:`~backends.remote.zipsafety` (screened zip bundles),
:mod:`~backends.remote.sources` (folder and bundle sources), :mod:`~backends.remote.backend`
(the backend) and :mod:`~backends.remote.upload` (writing a file anywhere).
"""

from backends.remote.backend import FsspecBackend
from backends.remote.retry import RetryPolicy
from backends.remote.upload import write_bytes

__all__ = ["FsspecBackend", "RetryPolicy", "write_bytes"]
