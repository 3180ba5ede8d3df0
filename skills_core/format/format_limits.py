"""The limits of the SKILL.md format: how large and how complex a frontmatter may be.

The size of the whole SKILL.md is a storage limit (``backends.limits.Limits.max_skill_md_bytes``):
storage checks it before any read, and the parsers take it as their ``max_skill_md_bytes``.
"""

from __future__ import annotations

from dataclasses import dataclass

from backends.limits import KIB


@dataclass(frozen=True, slots=True)
class FormatLimits:
    """The limits of parsing a SKILL.md's frontmatter.

    Attributes:
        max_frontmatter_bytes: Largest YAML frontmatter accepted.
        max_yaml_aliases: Most YAML aliases (``*ref``) in one frontmatter; refuses
            "billion laughs" documents before they are expanded.
        max_yaml_depth: Deepest YAML nesting accepted; libyaml's composer recurses in C and
            crashes the process on ~30,000 nested brackets, which fit in 64 KiB.
    """

    max_frontmatter_bytes: int = 64 * KIB
    max_yaml_aliases: int = 16
    max_yaml_depth: int = 64


DEFAULT_FORMAT_LIMITS = FormatLimits()
