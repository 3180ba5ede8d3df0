"""Script runners: where a skill script runs and how it is isolated."""
