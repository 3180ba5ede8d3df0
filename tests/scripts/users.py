"""Who runs the agent: root (as CI and many containers do) or a normal user.

The sandbox must hide the host's secrets from a script whoever runs skillfs. A test that runs as
root starts the normal user's agent with ``setpriv``. When this Python lives in a folder that
user may not enter (pyenv in root's private home), the agent gets a private mount namespace in
which only the Python's own folder shows through that home; everything else of it stays hidden.
"""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

NORMAL_USER = "skillfs-test"
"""The account a root test run creates (``useradd``) to run agents as a normal user."""

_SHOW_THROUGH = (  # sh -c SCRIPT sh FOLDER HIDDEN COMMAND...: FOLDER alone shows in HIDDEN
    'exec 3<"$1" && mount -t tmpfs -o mode=0755 skillfs-test "$2" && mkdir -p "$1" && '
    'mount --no-canonicalize --bind /proc/self/fd/3 "$1" && exec 3<&- && shift 2 && exec "$@"'
)


@dataclass(frozen=True)
class Agent:
    """An account that runs agents: its ids and the command prefix that runs as it."""

    name: str
    uid: int
    gid: int
    prefix: tuple[str, ...] = ()

    def command(self, argv: Sequence[str]) -> list[str]:
        """``argv`` run as this account."""
        return [*self.prefix, *argv]

    def own(self, path: Path) -> Path:
        """Hand ``path`` to this account (mode 0700), as its files would be."""
        os.chown(path, self.uid, self.gid)
        path.chmod(0o700)
        return path


def current() -> Agent:
    """Whoever runs the tests."""
    return Agent(pwd.getpwuid(os.getuid()).pw_name, os.getuid(), os.getgid())


def normal_user() -> Agent:
    """A normal user: the tester when not root, else :data:`NORMAL_USER` (created if absent)."""
    if os.getuid() != 0:
        return current()
    try:
        account = pwd.getpwnam(NORMAL_USER)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--user-group", "--no-create-home", NORMAL_USER],
            check=True,
            capture_output=True,
        )
        account = pwd.getpwnam(NORMAL_USER)
    setpriv = ["setpriv", f"--reuid={account.pw_uid}", f"--regid={account.pw_gid}"]
    prefix = [*setpriv, "--clear-groups", "--"]
    hidden = _hidden_ancestor(sys.base_prefix)
    if hidden is not None:
        python = os.path.realpath(sys.base_prefix)
        show = ["sh", "-c", _SHOW_THROUGH, "sh", python, hidden]
        prefix = ["unshare", "--mount", "--", *show, *prefix]
    return Agent(NORMAL_USER, account.pw_uid, account.pw_gid, tuple(prefix))


def can_switch_users() -> str | None:
    """Why this machine cannot run an agent as a normal user, or ``None`` when it can."""
    if os.getuid() != 0:
        return None
    missing = [tool for tool in ("useradd", "setpriv", "unshare") if shutil.which(tool) is None]
    if missing:
        return f"{', '.join(missing)} not installed (util-linux, passwd)"
    if _hidden_ancestor(sys.base_prefix) is not None:
        probe = subprocess.run(["unshare", "--mount", "true"], capture_output=True, check=False)
        if probe.returncode != 0:
            return f"this Python lies in a private folder, and unshare failed: {probe.stderr!r}"
    return None


def _hidden_ancestor(folder: str) -> str | None:
    """The outermost folder above ``folder`` that other users may not enter, if any."""
    path = os.path.realpath(folder)
    parts = path.split("/")
    for depth in range(2, len(parts)):
        ancestor = "/".join(parts[:depth])
        if not os.stat(ancestor).st_mode & stat.S_IXOTH:
            return ancestor
    return None
