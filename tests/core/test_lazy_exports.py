"""skills_core's public names load on first use, so its submodules import cheaply."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import skills_core

ROOT = Path(__file__).resolve().parents[2]


def printed_by(code: str) -> str:
    """What ``code`` prints in a fresh interpreter (it must succeed)."""
    result = subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_importing_the_package_loads_no_catalog_or_backend() -> None:
    code = (
        "import sys, skills_core._codes\n"
        "heavy = [m for m in sys.modules if m == 'skills_core._catalog.catalog'"
        " or m.startswith('backends.') and m not in ('backends._lazy', 'backends._errors')]\n"
        "print(','.join(heavy))"
    )
    assert printed_by(code) == ""


def test_both_packages_export_lazily_with_one_helper() -> None:
    import backends

    assert skills_core.__getattr__.__module__ == "backends._lazy"
    assert backends.__getattr__.__module__ == "backends._lazy"  # type: ignore[attr-defined]


def test_importing_backends_loads_no_backend() -> None:
    code = (
        "import sys, backends\n"
        "print(','.join(m for m in sys.modules if m.startswith(('backends.', 'asyncio'))"
        " and m not in ('backends._lazy', 'backends._errors')))"
    )
    assert printed_by(code) == ""


def test_every_public_name_resolves_to_its_defining_object() -> None:
    assert set(skills_core.__all__) == {*skills_core._EXPORTS, "codes"}
    assert skills_core._codes is importlib.import_module("skills_core._codes")
    for name, module in skills_core._EXPORTS.items():
        assert getattr(skills_core, name) is getattr(importlib.import_module(module), name)
    assert set(skills_core.__all__) <= set(dir(skills_core))


def test_from_import_of_names_and_submodules_still_works() -> None:
    from skills_core import SkillCatalog
    from skills_core import _codes as codes

    assert SkillCatalog.__module__ == "skills_core._catalog.catalog"
    assert codes.TOO_LONG == "TOO_LONG"


def test_unknown_names_raise_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = skills_core.no_such_name
