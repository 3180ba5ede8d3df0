"""Local storage never blocks on, reads, or crashes over a file that is not a regular file.

Issue #8.3: a SKILL.md that was a FIFO (or a symlink to one inside the skill) hung the first
load of a local folder for ever; one that was a directory or a device node made the skill
vanish without a word. Issue #8.5: a sub-folder that could not be listed during a walk raised a
bare OSError out of ``catalog.get()``, and ``skillfs list`` on an unreadable folder printed a
traceback. Issue #8.10: a too-long resource path gave ``READ_FAILED`` locally and
``RESOURCE_NOT_FOUND`` elsewhere.
"""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from backends import LocalBackend
from backends._errors import ResourceNotFoundError, StorageError
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core import _codes as codes
from skills_core._codes import READ_FAILED, RESOURCE_NOT_FOUND
from skills_core.tools._factory import SkillTools

pytestmark = pytest.mark.timeout(60)  # a regression hangs: fail it well before the suite's limit


def make_fifo(path: Path) -> None:
    os.mkfifo(path)


def make_fifo_link(path: Path) -> None:
    os.mkfifo(path.parent / "pipe")
    path.symlink_to("pipe")


def make_directory(path: Path) -> None:
    path.mkdir()


def make_device(path: Path) -> None:
    try:
        os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 3))  # /dev/null's numbers
    except PermissionError:  # the socket case takes the same path through the code
        pytest.skip("creating a device node needs CAP_MKNOD (root)")


def make_socket(path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))


ODD_FILES: dict[str, tuple[Callable[[Path], None], str]] = {
    "fifo": (make_fifo, "a named pipe (FIFO)"),
    "symlink-to-fifo": (make_fifo_link, "a named pipe (FIFO)"),
    "directory": (make_directory, "a directory"),
    "device": (make_device, "a character device"),
    "socket": (make_socket, "a socket"),
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    for name in ("alpha", "beta"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "SKILL.md").write_bytes(skill_md(name))
    (tmp_path / "odd").mkdir()
    return tmp_path


def expected_line(root: Path, kind: str) -> tuple[str, str, str]:
    location = str(root / "odd" / "SKILL.md")
    return location, codes.READ_FAILED, f"SKILL.md is {kind}, not a regular file; not read"


@pytest.mark.parametrize("odd", ODD_FILES)
async def test_a_skill_md_that_is_no_file_is_refused_on_the_first_load(
    root: Path, odd: str
) -> None:
    make, kind = ODD_FILES[odd]
    make(root / "odd" / "SKILL.md")
    catalog = SkillCatalog(LocalBackend(root))

    report = await catalog.refresh()

    assert report.added == ("alpha", "beta")
    assert [(p.location, p.code, p.message) for p in report.errors] == [expected_line(root, kind)]
    again = await catalog.refresh()  # the listing path says the same, without reading
    assert again.errors == report.errors
    assert again.fetched == 0


@pytest.mark.parametrize("odd", ODD_FILES)
async def test_a_skill_md_replaced_by_no_file_is_refused_on_a_later_load(
    root: Path, odd: str
) -> None:
    (root / "odd" / "SKILL.md").write_bytes(skill_md("odd"))
    catalog = SkillCatalog(LocalBackend(root))
    assert (await catalog.refresh()).added == ("alpha", "beta", "odd")
    make, kind = ODD_FILES[odd]
    (root / "odd" / "SKILL.md").unlink()
    make(root / "odd" / "SKILL.md")

    report = await catalog.refresh()

    assert report.removed == ("odd",)
    assert [(p.location, p.code, p.message) for p in report.errors] == [expected_line(root, kind)]
    with pytest.raises(StorageError, match="not a regular file"):
        await LocalBackend(root).get("odd")


@pytest.mark.parametrize("odd", ["fifo", "symlink-to-fifo", "directory", "socket"])
async def test_a_resource_that_is_no_file_is_not_found_and_never_read(root: Path, odd: str) -> None:
    make, kind = ODD_FILES[odd]
    make(root / "alpha" / "data.txt")
    catalog = SkillCatalog(LocalBackend(root))
    await catalog.refresh()

    assert [entry.path for entry in (await catalog.get("alpha")).files] == ["SKILL.md"]
    with pytest.raises(ResourceNotFoundError) as raised:
        await catalog.read_resource("alpha", "data.txt")
    assert str(raised.value) == f"{root / 'alpha' / 'data.txt'}: {kind}, not a regular file"


async def test_a_too_long_path_is_not_found_like_on_every_other_backend(root: Path) -> None:
    catalog = SkillCatalog(LocalBackend(root))
    await catalog.refresh()
    tools = SkillTools(catalog)

    for path in ("x" * 300, "/".join(["y" * 250] * 20)):
        result = await tools.load_skill_resource("alpha", path)
        assert result["error_code"] == RESOURCE_NOT_FOUND
        assert result["error"] == "no such file"
    assert (await tools.load_skill("z" * 300))["error_code"] == "SKILL_NOT_FOUND"


@pytest.fixture
def deep_folder(root: Path) -> Iterator[str]:
    """A sub-folder of alpha nested past PATH_MAX: no path can reach what it holds."""
    fd = os.open(root / "alpha", os.O_RDONLY)
    depth = 0
    try:
        while depth < 20:
            os.mkdir("d" * 250, dir_fd=fd)
            inner = os.open("d" * 250, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd, depth = inner, depth + 1
        yield "/".join(["d" * 250] * 20)
    finally:
        os.close(fd)


async def test_a_folder_the_walk_cannot_list_is_a_coded_error(root: Path, deep_folder: str) -> None:
    catalog = SkillCatalog(LocalBackend(root))
    await catalog.refresh()

    with pytest.raises(StorageError, match="cannot list folder: File name too long") as raised:
        await catalog.get("alpha")
    assert raised.value.location is not None
    assert raised.value.location.startswith(str(root / "alpha" / "d"))
    result = await SkillTools(catalog).load_skill("alpha")
    assert result["error_code"] == READ_FAILED
    assert "beta" in catalog


def skillfs_without_root_powers(*argv: str | Path) -> subprocess.CompletedProcess[str]:
    """Run the CLI as a process that file permissions bind (root drops its override)."""
    command = [sys.executable, "-m", "skills_core.cli", *map(str, argv)]
    if os.geteuid() == 0:
        capabilities = ["--cap-drop", "CAP_DAC_OVERRIDE", "--cap-drop", "CAP_DAC_READ_SEARCH"]
        command = ["bwrap", "--dev-bind", "/", "/", *capabilities, *command]
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    return subprocess.run(command, capture_output=True, text=True, env=env, check=False)


def test_unreadable_folders_give_one_error_line_and_no_traceback(root: Path) -> None:
    (root / "beta" / "private").mkdir()
    (root / "beta" / "private").chmod(0)
    try:
        shown = skillfs_without_root_powers("show", root, "beta")
        assert (shown.returncode, shown.stdout) == (2, "")
        private = root / "beta" / "private"
        assert shown.stderr == f"error: {private}: cannot list folder: Permission denied\n"
        root.chmod(0)
        listed = skillfs_without_root_powers("list", root)
        assert (listed.returncode, listed.stdout) == (2, "")
        assert listed.stderr == f"error: {root}: cannot list skills folder: Permission denied\n"
    finally:
        root.chmod(0o755)
        (root / "beta" / "private").chmod(0o755)
