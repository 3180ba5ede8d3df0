"""Deterministic zip bundles of a catalog's skills, with a sha256 manifest."""
