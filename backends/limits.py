"""Size and complexity limits that protect skillfs from hostile or broken input."""

from __future__ import annotations

from dataclasses import dataclass

from backends.errors import LimitExceededError

KIB = 1024
MIB = 1024 * KIB


@dataclass(frozen=True, slots=True)
class Limits:
    """Every limit skillfs enforces, configurable in one place.

    Attributes:
        max_skill_md_bytes: Largest SKILL.md accepted.
        max_frontmatter_bytes: Largest YAML frontmatter accepted.
        max_yaml_aliases: Most YAML aliases (``*ref``) in one frontmatter; refuses
            "billion laughs" documents before they are expanded.
        max_yaml_depth: Deepest YAML nesting accepted; libyaml's composer recurses in C and
            crashes the process on ~30,000 nested brackets, which fit in 64 KiB.
        max_resource_bytes: Largest resource file returned by a read.
    """

    max_skill_md_bytes: int = 1 * MIB
    max_frontmatter_bytes: int = 64 * KIB
    max_yaml_aliases: int = 16
    max_yaml_depth: int = 64
    max_resource_bytes: int = 10 * MIB


DEFAULT_LIMITS = Limits()


def check_size(size: int, max_bytes: int, *, location: str) -> None:
    """Refuse a file of ``size`` bytes when it is over ``max_bytes``.

    Raises:
        LimitExceededError: The file is too large.
    """
    if size > max_bytes:
        raise LimitExceededError(
            f"file is {size} bytes, over the {max_bytes}-byte limit", location=location
        )
