"""Remote storage through fsspec (S3, GCS, GitHub, zip bundles, HTTP) for the backends."""
