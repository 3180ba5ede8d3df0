"""The skill format: SKILL.md bytes to typed metadata and body, and the spec's rules."""
