"""Remote skills: the fsspec plumbing for S3, GCS, GitHub, zip bundles, memory and HTTP.

Modules, one concern each: :mod:`~backends.remote.urls` (what a URL names),
:mod:`~backends.remote.protocols` (what a protocol needs),
:mod:`~backends.remote.gcs_credentials` (Google credentials found, or refused, at once),
:mod:`~backends.remote.filesystem` (building and calling fsspec without blocking),
:mod:`~backends.remote.local_reads` (``file://`` reads of regular files only),
:mod:`~backends.remote.sessions` (closing sessions without blocking),
:mod:`~backends.remote.foreign_errors` and :mod:`~backends.remote.retry` (foreign errors, one retry
layer), :mod:`~backends.remote.deadline` (a deadline for every remote operation),
:mod:`~backends.remote.github` (one-request GitHub trees),
:mod:`~backends.remote.fingerprints` and :mod:`~backends.remote.layout` (listing to skill
folders), :mod:`~backends.remote.zipsafety` and :mod:`~backends.remote.tarsafety` (screened zip and
tar.gz archives),
:mod:`~backends.remote.zip_end` (an archive's end record, read first),
:mod:`~backends.remote.bundle_manifest` (a bundle's sizes and SHA-256s),
:mod:`~backends.remote.ranged` (large archives read with ranged requests),
:mod:`~backends.remote.http_ranges` (ranged GETs on servers that may ignore ``Range``),
:mod:`~backends.remote.sources` and :mod:`~backends.remote.bundle_source` (folder and bundle
sources), :mod:`~backends.remote.bundle_state` (a bundle's listing, kept across processes),
:mod:`~backends.remote.source_backend` (a source served as a backend),
:mod:`~backends.remote.upload` (writing files anywhere) and
:mod:`~backends.remote.output_folder` (a folder written, listed and pruned). The backends built
on them share :mod:`backends.store_backend`: :mod:`backends.bundle_backend` (zip bundles) and
:mod:`backends.fsspec_backend` (folders, which also reads published indexes:
:mod:`backends.index`, itself built on this layer).
"""
