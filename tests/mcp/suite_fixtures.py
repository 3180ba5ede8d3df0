"""Skills written in every frontmatter form users write, for the official conformance suite.

``python -m tests.mcp.suite_fixtures DIR`` writes them to ``DIR`` (``skillfs serve DIR``
serves them); :func:`write_fixtures` does the same for tests. Between them the skills hold
``allowed-tools`` in space, comma and list form; ``tags`` as a string and as a list; dates and
timestamps; booleans and YAML 1.1's ``yes``/``off``; octal-looking numbers; nested
``metadata`` maps; a description over 1,024 characters; a folded block and quoted strings;
CRLF line ends; files deep in nested folders and a nested ``SKILL.md``; a skill only a user may
invoke; and binary assets. Every skill has a folder with a file in it, which the suite's
directory scenario needs to descend into.
"""

from __future__ import annotations

import sys
from pathlib import Path

PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452") + bytes(range(256))
LONG = "Reviews long design documents section by section and reports open questions. " * 15
SKILLS: dict[str, dict[str, str | bytes]] = {
    "space-tools": {
        "SKILL.md": "---\nname: space-tools\ndescription: Tools as a space-separated string, "
        "tags as a comma-separated one.\nallowed-tools: Read Grep Bash(git log:*)\n"
        "tags: git, history\n---\n# Space tools\n\nSee references/usage.md.\n",
        "references/usage.md": "# Usage\n",
    },
    "comma-tools": {
        "SKILL.md": "---\nname: comma-tools\ndescription: Tools comma-separated, tags as a "
        "list.\nallowed-tools: Read, Grep, Edit\ntags:\n  - review\n  - style\n---\n# Comma\n",
        "references/usage.md": "# Usage\n",
    },
    "list-tools": {
        "SKILL.md": "---\nname: list-tools\ndescription: Tools as a block list, tags as a "
        "flow list.\nallowed-tools:\n  - Read\n  - Bash(npm test)\ntags: [ci, tests]\n"
        "---\n# List\n",
        "scripts/run.sh": "npm test\n",
    },
    "dates-and-flags": {
        "SKILL.md": "---\nname: dates-and-flags\ndescription: Dates, timestamps and booleans "
        "of both YAML versions.\ncreated: 2024-01-05\nupdated: 2024-03-01T10:30:00Z\n"
        "beta: yes\ndeprecated: off\nstable: true\nuser-invocable: true\nversion: 0755\n"
        "ratio: 1e3\nrevision: 1:30\nbuild: 0o17\n---\n# Dates\n",
        "references/changelog.md": "# Changelog\n",
    },
    "nested-metadata": {
        "SKILL.md": "---\nname: nested-metadata\ndescription: Metadata holding maps, lists "
        "and numbers.\nlicense: 'MIT'\nmetadata:\n  team: tools\n  owners: [ana, bo]\n"
        '  limits:\n    max: 3\n    sizes: {small: 1, large: 9}\n  version: "2.1.0"\n'
        "  reviewed: 2025-06-30\n---\n# Metadata\n",
        "assets/template.md": "# Template\n",
    },
    "long-description": {
        "SKILL.md": f"---\nname: long-description\ndescription: {LONG.strip()}\n---\n# Long\n",
        "references/sections.md": "# Sections\n",
    },
    "folded-crlf": {
        "SKILL.md": "---\r\nname: folded-crlf\r\ndescription: >-\r\n  A folded description\r\n"
        '  over two lines, written with CRLF line ends.\r\ncompatibility: "Needs git 2.40+"\r\n'
        "---\r\n# Folded\r\n",
        "references/notes.md": "# Notes\r\n",
    },
    "nested-paths": {
        "SKILL.md": "---\nname: nested-paths\ndescription: Files deep in nested folders, and a "
        "skill nested inside this one.\n---\n# Nested\n\nSee references/a/b/c/deep.md.\n",
        "references/a/b/c/deep.md": "# Deep\n",
        "references/a/sibling file.md": "# Sibling\n",
        "inner/SKILL.md": "---\nname: inner\ndescription: A skill nested in another.\n---\n# In\n",
        "inner/references/guide.md": "# Guide\n",
    },
    "user-only": {
        "SKILL.md": "---\nname: user-only\ndescription: Rotates the signing keys when a user "
        "asks.\ndisable-model-invocation: true\nargument-hint: '[key-id]'\n---\n# Rotate\n",
        "scripts/rotate.sh": "echo rotated\n",
    },
    "binary-assets": {
        "SKILL.md": "---\nname: binary-assets\ndescription: Binary files beside the text "
        "ones.\n---\n# Binary\n\nUse assets/logo.png.\n",
        "assets/logo.png": PNG,
        "assets/data.bin": bytes(range(256)) * 4,
    },
}


def write_fixtures(root: Path) -> list[str]:
    """Write every skill under ``root``; their names, sorted."""
    for name, files in SKILLS.items():
        for path, data in files.items():
            target = root / name / path
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(data, bytes):
                target.write_bytes(data)
            else:
                target.write_bytes(data.encode())
    return sorted(SKILLS)


if __name__ == "__main__":
    write_fixtures(Path(sys.argv[1]))
