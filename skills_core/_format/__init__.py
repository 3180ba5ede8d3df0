"""The skill format: SKILL.md bytes to typed metadata and body, and the spec's rules.

``parsing`` splits SKILL.md and reads its frontmatter (bounded PyYAML: ``yaml_loader``);
``validation`` holds the table of fields and the agentskills.io rules; ``fast_path`` reads
simple YAML and clean skills without either; ``matching`` says what ``allowed-tools``,
``paths`` and ``hooks`` match; ``models`` holds the typed records and the format's limits.
"""
