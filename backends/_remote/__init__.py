"""Remote storage through fsspec: S3, GCS, GitHub, zip bundles, memory and HTTP.

:mod:`~backends._remote.urls` (what a URL names), :mod:`~backends._remote.filesystem` (fsspec
driven without blocking), :mod:`~backends._remote.local_reads` (``file://`` reads of regular
files only), :mod:`~backends._remote.failures` (foreign errors, retries, deadlines),
:mod:`~backends._remote.layout` (a listing as skill folders), :mod:`~backends._remote.archives`
(zip and tar.gz archives, screened), :mod:`~backends._remote.bundles` (zip bundles on any store)
and :mod:`~backends._remote.output_folder` (writing files anywhere). The backends built on them
are in :mod:`backends._fsspec_backend`.
"""
