"""Skill trees the remote tests store and count requests over."""

from __future__ import annotations

from backends.testing import skill_md

SKILLS = 12
RESOURCES = 2


def skills_tree(count: int = SKILLS, *, description: str = "Counts requests.") -> dict[str, bytes]:
    tree: dict[str, bytes] = {}
    for index in range(count):
        name = f"skill-{index:02d}"
        tree[f"{name}/SKILL.md"] = skill_md(name, description)
        for resource in range(RESOURCES):
            tree[f"{name}/references/r{resource}.md"] = f"# {name} {resource}\n".encode()
    return tree
