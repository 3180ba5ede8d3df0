"""Every ``pip install`` a page tells users to run installs this project, with real extras.

``skillfs`` on the package index is somebody else's project; this one is ``agent-skillfs``.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

import pytest

from backends._errors import DISTRIBUTION, install_command
from tests.docs.pages import ROOT, page_id, user_pages

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
EXTRAS = set(PYPROJECT["project"]["optional-dependencies"])
_INSTALL = re.compile(r"pip install ([^`\n#&;|]+)")
_REQUIREMENT = re.compile(r"^(?P<name>[A-Za-z0-9._-]+)(?:\[(?P<extras>[^\]]*)\])?$")


def install_targets(text: str) -> list[str]:
    """The packages and paths of every ``pip install`` command in ``text``, options dropped."""
    targets = []
    for match in _INSTALL.finditer(text):
        words = shlex.split(match.group(1))
        targets += [word for word in words if not word.startswith("-")]
    return targets


def test_the_package_is_named_as_the_hints_say() -> None:
    assert PYPROJECT["project"]["name"] == DISTRIBUTION == "agent-skillfs"
    assert PYPROJECT["project"]["scripts"] == {"skillfs": "skills_core.cli:main"}
    assert install_command("s3") == 'pip install "agent-skillfs[s3]"'
    for extra in ("all", "test", "dev"):
        for requirement in PYPROJECT["project"]["optional-dependencies"][extra]:
            if requirement.startswith(DISTRIBUTION):
                assert _REQUIREMENT.match(requirement), requirement


@pytest.mark.parametrize("page", user_pages(), ids=page_id)
def test_every_install_line_names_the_real_distribution(page: Path) -> None:
    for target in install_targets(page.read_text()):
        local = re.fullmatch(r"\.(?:\[(?P<extras>[^\]]*)\])?", target)
        found = local or _REQUIREMENT.match(target)
        assert found, f"{page_id(page)}: cannot read `pip install {target}`"
        if not local:
            assert found["name"] == DISTRIBUTION, f"{page_id(page)}: `pip install {target}`"
        extras = {extra.strip() for extra in (found["extras"] or "").split(",") if extra.strip()}
        assert extras <= EXTRAS, f"{page_id(page)}: no extra {extras - EXTRAS} in pyproject.toml"


def test_the_reader_sees_what_a_user_would_type() -> None:
    text = 'run `pip install "agent-skillfs[s3]"` or\n```\npip install -e ".[test]" && pytest\n```'
    assert install_targets(text) == ["agent-skillfs[s3]", ".[test]"]
    assert install_targets("pip install skillfs   # core") == ["skillfs"]


@pytest.mark.parametrize("page", user_pages(), ids=page_id)
def test_every_install_line_works_from_a_checkout(page: Path) -> None:
    """The distribution is not on the package index yet: ``pip install agent-skillfs`` fails."""
    targets = install_targets(page.read_text())
    assert all(re.fullmatch(r"\.(\[[a-z0-9,-]+\])?", target) for target in targets), targets


@pytest.mark.parametrize("name", ["README.md", "docs/getting-started.md"])
def test_the_pages_a_new_user_reads_first_name_the_distribution_to_come(name: str) -> None:
    text = (ROOT / name).read_text()
    assert install_targets(text)
    assert f"`{DISTRIBUTION}`" in text  # the name it will be published under


def test_getting_started_names_every_package_the_core_installs() -> None:
    install = (ROOT / "docs" / "getting-started.md").read_text().split("\n## ", 2)[1]
    for requirement in PYPROJECT["project"]["dependencies"]:
        name = re.split(r"[^A-Za-z0-9._-]", requirement, maxsplit=1)[0]
        assert name.lower() in install.lower(), requirement
