"""The agentskills.io well-known skills index, read over HTTP or from any store."""
