"""The import layers of docs/api.md hold: data flows from storage up to agents, never back.

Every import statement of the packages counts, module-level or inside a function, read from
the source with ``ast``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

ABOVE_FORMAT = (
    "skills_core.catalog",
    "skills_core.context",
    "skills_core.tools",
    "skills_core.bundle",
    "skills_core.adk",
    "skills_core.cli",
    "google",
)
"""Everything above the skill format (and the error tree), which sit under the catalog."""

FORBIDDEN = {
    "backends": ("skills_core", "yaml", "google"),
    "backends.index": ("mcp", "backends.mcp", "backends.local", "backends.composite"),
    "skills_core.errors": ABOVE_FORMAT,
    "skills_core.codes": ("skills_core.", "backends", "google"),
    "skills_core.telemetry": ("skills_core.", "backends", "google"),
    "skills_core.tool_table": ("skills_core.", "backends", "google"),
    "skills_core.format": ABOVE_FORMAT,
    "skills_core.skeleton": ABOVE_FORMAT,  # a new skill's files: written from the format alone
    "skills_core.catalog": (
        "skills_core.context",
        "skills_core.tools",
        "skills_core.bundle",
        "skills_core.adk",
        "skills_core.cli",
        "google",
    ),
    "skills_core.context": ("skills_core.adk", "skills_core.cli", "google"),
    "skills_core.tools": ("skills_core.adk", "skills_core.cli", "google"),
    "skills_core.bundle": ("skills_core.adk", "skills_core.cli", "google"),
    "skills_core.mcp": ("skills_core.adk", "skills_core.cli", "google"),
    "skills_core.cli": ("skills_core.adk", "google"),
    "skills_core.adk": ("skills_core.cli",),
}
"""What each layer (a package or module, by dotted prefix) must never import."""


def modules() -> list[tuple[str, Path]]:
    found = []
    for package in ("backends", "skills_core"):
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).with_suffix("")
            if "examples" in relative.parts:
                continue  # skills shipped as data, not part of the library
            found.append((".".join(relative.parts).removesuffix(".__init__"), path))
    return found


def imported(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def rules_for(module: str) -> tuple[str, ...]:
    return tuple(
        banned
        for layer, bans in FORBIDDEN.items()
        if module == layer or module.startswith(layer + ".")
        for banned in bans
    )


@pytest.mark.parametrize(("module", "path"), modules(), ids=[name for name, _ in modules()])
def test_no_module_imports_a_layer_above_it(module: str, path: Path) -> None:
    bans = rules_for(module)
    wrong = sorted(name for name in imported(path) for ban in bans if _within(name, ban))
    assert not wrong, f"{module} must not import {wrong}"


def test_the_rules_cover_every_package() -> None:
    uncovered = {module for module, _ in modules() if not rules_for(module)}
    assert uncovered <= {"skills_core"}


def test_nothing_outside_the_cli_imports_it() -> None:
    importers = {
        module: sorted(name for name in imported(path) if _within(name, "skills_core.cli"))
        for module, path in modules()
        if not _within(module, "skills_core.cli")
    }
    assert not {module: names for module, names in importers.items() if names}


def test_the_checker_sees_imports_inside_functions(tmp_path: Path) -> None:
    source = tmp_path / "lazy.py"
    source.write_text("def late():\n    from google.adk.agents import LlmAgent\n")
    assert any(_within(name, "google") for name in imported(source))


def _within(name: str, ban: str) -> bool:
    return name == ban.rstrip(".") or name.startswith(ban if ban.endswith(".") else ban + ".")
