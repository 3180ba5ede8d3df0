"""Remote storage through fsspec: S3, GCS, GitHub, zip bundles, memory and HTTP.

:mod:`~backends.remote.urls` (what a URL names), :mod:`~backends.remote.filesystem` (fsspec
driven without blocking), :mod:`~backends.remote.local_reads` (``file://`` reads of regular
files only), :mod:`~backends.remote.failures` (foreign errors, retries, deadlines),
:mod:`~backends.remote.layout` (a listing as skill folders), :mod:`~backends.remote.archives`
(zip and tar.gz archives, screened), :mod:`~backends.remote.bundles` (zip bundles on any store)
and :mod:`~backends.remote.output_folder` (writing files anywhere). The backends built on them
are in :mod:`backends.fsspec_backend`.
"""
