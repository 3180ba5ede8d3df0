"""A whole GitHub tree in one request, for fsspec's GithubFileSystem.

``GithubFileSystem.find`` asks the trees API once per folder, and its listings cache never
expires. ``git/trees/<ref>?recursive=1`` returns every blob of the commit with its sha (a
perfect fingerprint) in one response, so a refresh costs one request whatever the repository
holds. The request goes to the filesystem's own ``url`` with its own credentials and timeout.
"""

from __future__ import annotations

from typing import Any

from backends.errors import LimitExceededError

SYMLINK_MODE = "120000"


def recursive_tree(fs: Any, root: str) -> dict[str, dict[str, Any]]:
    """List every file below ``root`` (a repository path) at the filesystem's ref.

    Blocking: call it from a worker thread. Entries look like fsspec's detailed listings
    (``name``, ``size``, ``type``) plus the blob ``sha`` and git ``mode``.

    Raises:
        FileNotFoundError: No such repository or ref.
        LimitExceededError: GitHub truncated the listing (over 100,000 entries or 7 MB).
        requests.HTTPError: Any other failed response.
    """
    import requests

    url = fs.url.format(org=fs.org, repo=fs.repo, sha=fs.root)
    response = requests.get(url, params={"recursive": "1"}, timeout=fs.timeout, **fs.kw)
    if response.status_code == 404:
        raise FileNotFoundError(f"{fs.org}/{fs.repo}@{fs.root}")
    response.raise_for_status()
    body = response.json()
    if body.get("truncated"):
        raise LimitExceededError(
            "GitHub truncated the tree listing (over 100,000 entries or 7 MB)",
            location=f"github://{fs.org}:{fs.repo}@{fs.root}",
        )
    prefix = f"{root.strip('/')}/" if root.strip("/") else ""
    return {
        entry["path"]: {
            "name": entry["path"],
            "size": entry.get("size", 0),
            "type": "file",
            "sha": entry["sha"],
            "mode": entry.get("mode", ""),
        }
        for entry in body.get("tree", ())
        if entry.get("type") == "blob" and entry["path"].startswith(prefix)
    }
