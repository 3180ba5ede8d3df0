"""The skill format: SKILL.md bytes to typed metadata and body, and the spec's rules.

``parsing`` splits and parses SKILL.md (line-based fences, size and YAML limits, the
format's limits being ``format_limits``);
``simple_yaml`` and ``yaml_loader`` read the frontmatter; ``fields`` is the table of known
frontmatter fields; ``validation`` applies the agentskills.io rules; ``clean_skill`` is the
one-pass reader for skills with nothing to report; ``models`` holds the typed records.
"""
