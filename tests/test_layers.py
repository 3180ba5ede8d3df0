"""The import layers of docs/api.md hold: data flows from storage up to agents, never back.

Every import statement of the packages counts, module-level or inside a function, read from
the source with ``ast``. The rules live here once; docs/api.md's "Layers" tables must equal
them (a failure prints the tables to paste).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

ONLY = {
    "google": ("skills_core.adk",),
    "skills_core.cli": ("skills_core.cli",),
    "argcomplete": ("skills_core.cli",),
}
"""What only these layers may import: google-adk in its adapter, nothing imports the CLI, and
only the CLI completes shells."""

ADAPTERS = ("skills_core.mcp", "skills_core.adk")
ABOVE_CATALOG = ("skills_core.context", "skills_core.tools", "skills_core._bundle", *ADAPTERS)
ABOVE_FORMAT = ("skills_core._catalog", *ABOVE_CATALOG)
"""Everything above the skill format (and the error tree), which sit under the catalog."""

FORBIDDEN = {
    "backends": ("skills_core", "yaml"),
    "backends._remote": ("backends._index", "backends._fsspec_backend"),
    "backends._index": ("mcp", "backends._mcp", "backends._local", "backends._composite"),
    "skills_core.__init__": ("skills_core.context", "skills_core.tools", *ADAPTERS),
    "skills_core._codes": ("skills_core", "backends"),
    "skills_core._telemetry": ("skills_core", "backends"),
    "skills_core._errors": ABOVE_FORMAT,
    "skills_core._tool_table": ("skills_core", "backends"),
    "skills_core._format": ABOVE_FORMAT,
    "skills_core._skeleton": ABOVE_FORMAT,
    "skills_core._trust": ABOVE_FORMAT,
    "skills_core._catalog": ABOVE_CATALOG,
    "skills_core.context": ADAPTERS,
    "skills_core.tools": ADAPTERS,
    "skills_core._bundle": ADAPTERS,
    "skills_core.mcp": ("skills_core.adk",),
    "skills_core.adk": ("skills_core.mcp",),
    "skills_core.cli": ("skills_core.adk",),
}
"""What each layer never imports. A layer is a dotted prefix; ``pkg.__init__`` is that module
alone (``skills_core.__init__``: the package's own names come from its lower layers)."""

ONE_LAYER = {"skills_core._errors": "skills_core._format"}
"""Parts counted as one layer by the no-cycle rule: the error tree carries the format's report."""


def modules() -> list[tuple[str, Path]]:
    found = []
    for package in ("backends", "skills_core"):
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).with_suffix("")
            if "examples" in relative.parts:
                continue  # skills shipped as data, not part of the library
            found.append((".".join(relative.parts).removesuffix(".__init__"), path))
    return found


MODULES = modules()
NAMES = {name for name, _ in MODULES}


_BY_STRING = re.compile(r"(?:backends|skills_core)(?:\.\w+)+(?::\w+)?")
"""A string naming one of the packages' modules (or ``module:attribute``): an import by string."""


def imported_by_string(path: Path) -> set[str]:
    """The strings of ``path`` that name a module of the packages: imports by string."""
    return {
        node.value
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and _BY_STRING.fullmatch(node.value)
        and _module_of(node.value) in NAMES
    }


def _module_of(target: str) -> str:
    """The module a string names: ``pkg.module``, ``pkg.module:name`` or ``pkg.module.name``."""
    module = target.split(":", 1)[0]
    return module if module in NAMES or ":" in target else module.rpartition(".")[0]


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports, by statement or by string; ``from pkg import module``
    counts as ``pkg.module``."""
    names = {_module_of(target) for target in imported_by_string(path)}
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert not node.level, f"{path}: a relative import hides from these rules"
            assert node.module
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                names.add(submodule if submodule in NAMES else node.module)
    return names


def governs(layer: str, module: str) -> bool:
    if layer.endswith(".__init__"):
        return module == layer.removesuffix(".__init__")
    return _within(module, layer)


def rules_for(module: str) -> tuple[str, ...]:
    return tuple(
        banned for layer, bans in FORBIDDEN.items() if governs(layer, module) for banned in bans
    )


@pytest.mark.parametrize(("module", "path"), MODULES, ids=[name for name, _ in MODULES])
def test_no_module_imports_a_layer_above_it(module: str, path: Path) -> None:
    bans = rules_for(module)
    wrong = sorted(name for name in imported(path) for ban in bans if _within(name, ban))
    assert not wrong, f"{module} must not import {wrong}"


@pytest.mark.parametrize(("module", "path"), MODULES, ids=[name for name, _ in MODULES])
def test_only_their_layers_import_these(module: str, path: Path) -> None:
    wrong = sorted(
        name
        for name in imported(path)
        for target, owners in ONLY.items()
        if _within(name, target) and not any(_within(module, owner) for owner in owners)
    )
    assert not wrong, f"{module} must not import {wrong}"


def test_no_two_layers_import_each_other() -> None:
    graph: dict[str, set[str]] = {}
    for module, path in MODULES:
        layer = _layer(module)
        others = {_layer(name) for name in imported(path) if name.split(".")[0] in _ROOTS}
        graph.setdefault(layer, set()).update(others - {layer})
    cycles = sorted(
        layer for layer, edges in graph.items() if any(layer in _reach(graph, e) for e in edges)
    )
    assert not cycles, f"these layers import each other, directly or through others: {cycles}"


def test_no_module_imports_itself_through_others() -> None:
    """No import circle between modules, type-only imports (``if TYPE_CHECKING:``) included."""
    graph = {module: {name for name in imported(path) if name in NAMES} for module, path in MODULES}
    circles = sorted(
        module for module, edges in graph.items() if any(module in _reach(graph, e) for e in edges)
    )
    assert not circles, f"these modules import each other, directly or through others: {circles}"


@pytest.mark.parametrize(("module", "path"), MODULES, ids=[name for name, _ in MODULES])
def test_strings_import_no_private_name(module: str, path: Path) -> None:
    """An import by string names no private function or class, and a private module only from
    inside the package that owns it."""
    wrong = sorted(
        target
        for target in imported_by_string(path)
        if _private_attribute(target) or not _within(module, _owner(_module_of(target)))
    )
    assert not wrong, f"{module} imports by string {wrong}"


def _private_attribute(target: str) -> bool:
    module = _module_of(target)
    attribute = target[len(module) + 1 :]
    return attribute.startswith("_")


def _owner(module: str) -> str:
    """The package a module is private to: the path before its first underscore component."""
    parts = module.split(".")
    private = next((i for i, part in enumerate(parts) if part.startswith("_")), len(parts))
    return ".".join(parts[:private]) if private < len(parts) else module


def test_the_string_rule_sees_private_names(tmp_path: Path) -> None:
    source = tmp_path / "table.py"
    source.write_text('OPENERS = {"s3": "backends._opener:_open_s3", "x": "backends._opener"}\n')
    found = imported_by_string(source)
    assert found == {"backends._opener:_open_s3", "backends._opener"}
    assert [target for target in found if _private_attribute(target)] == [
        "backends._opener:_open_s3"
    ]
    assert not _within("skills_core._catalog.catalog", _owner("backends._opener"))


def test_the_rules_cover_every_module() -> None:
    uncovered = {module for module, _ in MODULES if not rules_for(module)}
    assert not uncovered


def test_every_rule_names_a_module_that_exists() -> None:
    layers = {layer.removesuffix(".__init__") for layer in FORBIDDEN}
    owners = {owner for owners in ONLY.values() for owner in owners}
    assert {name for name in layers | owners if not any(governs(name, m) for m in NAMES)} == set()


def test_docs_api_lists_these_rules() -> None:
    page = (ROOT / "docs" / "api.md").read_text()
    section = page.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    documented = "\n".join(line for line in section.splitlines() if line.startswith("|"))
    assert documented == rules_table(), f"docs/api.md's Layers tables should read:\n{rules_table()}"


def rules_table() -> str:
    """The Layers tables of docs/api.md, written from the rules above."""
    return "\n".join(
        [
            "| module | imported only by |",
            "|---|---|",
            *(f"| {_code((target,))} | {_code(owners)} |" for target, owners in ONLY.items()),
            "| layer | never imports |",
            "|---|---|",
            *(f"| {_code((layer,))} | {_code(bans)} |" for layer, bans in FORBIDDEN.items()),
        ]
    )


def test_the_checker_sees_imports_inside_functions(tmp_path: Path) -> None:
    source = tmp_path / "lazy.py"
    source.write_text("def late():\n    from google.adk.agents import LlmAgent\n")
    assert any(_within(name, "google") for name in imported(source))


def test_the_checker_sees_submodules_imported_from_a_package(tmp_path: Path) -> None:
    source = tmp_path / "codes.py"
    source.write_text("from skills_core import _codes, SkillCatalog\n")
    assert imported(source) == {"skills_core._codes", "skills_core"}


def test_the_cycle_rule_sees_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert "a" in _reach(graph, "b")
    assert "d" not in _reach(graph, "a")


_ROOTS = ("backends", "skills_core")


def _layer(module: str) -> str:
    """A package's subpackage or top-level module: the unit no cycle may join."""
    layer = ".".join(module.split(".")[:2])
    return ONE_LAYER.get(layer, layer)


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    seen = {start}
    stack = [start]
    while stack:
        for nxt in graph.get(stack.pop(), set()) - seen:
            seen.add(nxt)
            stack.append(nxt)
    return seen


def _code(names: tuple[str, ...]) -> str:
    return ", ".join(f"`{name}`" for name in names)


def _within(name: str, ban: str) -> bool:
    return name == ban.rstrip(".") or name.startswith(ban if ban.endswith(".") else ban + ".")
