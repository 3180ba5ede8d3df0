"""Sites serving a well-known index: published by skillfs, or written by hand like other tools do.

A :class:`Site` lives below its own path (``/site-<id>``) of a shared :class:`StaticServer`, so
tests never see each other's files; its request log is the server's.
"""

from __future__ import annotations

import io
import json
import tarfile
import uuid
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from backends._digests import digest_of
from backends._index.document import INDEX_PATH, SCHEMA
from tests.remote.servers import RequestLog, StaticServer
from tests.remote.zips import zip_bytes

FOLDER = "/.well-known/agent-skills"


class Site:
    """One site: ``files`` by path below the site, served by ``server``."""

    def __init__(self, server: StaticServer) -> None:
        self.server = server
        self.root = f"/site-{uuid.uuid4().hex[:10]}"

    @property
    def url(self) -> str:
        """The site's base URL (the index is at ``url/.well-known/agent-skills/index.json``)."""
        return self.server.url + self.root

    @property
    def log(self) -> RequestLog:
        return self.server.log

    def put(self, path: str, data: bytes, *, content_type: str | None = None) -> None:
        """Serve ``data`` at ``path`` below the site (``.well-known/...``)."""
        full = f"{self.root}/{path.lstrip('/')}"
        self.server.files[full] = data
        if content_type is not None:
            self.server.types[full] = content_type

    def put_all(self, files: Mapping[str, bytes]) -> None:
        for path, data in files.items():
            self.put(path, data)

    def mirror(self, files: Mapping[str, bytes]) -> None:
        """Serve exactly ``files``: those of the site not among them are removed."""
        for path in [path for path in self.server.files if path.startswith(f"{self.root}/")]:
            if path[len(self.root) + 1 :] not in files:
                del self.server.files[path]
        self.put_all(files)

    def artifact(self, name: str) -> str:
        """The path below the site of the artifact its index lists for skill ``name``."""
        listed = json.loads(self.server.files[f"{self.root}/{INDEX_PATH}"])["skills"]
        (url,) = [item["url"] for item in listed if item["name"] == name]
        return f"{FOLDER}/{unquote(url)}"

    def index_requests(self) -> int:
        return self.log.count("GET", INDEX_PATH)

    def conditional(self) -> list[str | None]:
        """The If-None-Match each index request carried, in order."""
        return [
            headers.get("If-None-Match")
            for path, headers in self.server.headers_seen
            if path == f"{self.root}/{INDEX_PATH}"
        ]


def entry(name: str, kind: str, url: str, artifact: bytes, **extra: Any) -> dict[str, Any]:
    """An index entry as other publishers write it (no SKILL.md inside)."""
    return {
        "name": name,
        "type": kind,
        "description": f"The {name} skill.",
        "url": url,
        "digest": digest_of(artifact),
        **extra,
    }


def index(*entries: Mapping[str, Any], schema: str | None = SCHEMA) -> bytes:
    document: dict[str, Any] = {"skills": list(entries)}
    if schema is not None:
        document["$schema"] = schema
    return json.dumps(document, indent=2).encode()


def tar_gz(tree: Mapping[str, bytes], *, prefix: str = "") -> bytes:
    """A tar.gz of ``tree`` (``{path: bytes}``), each path under ``prefix``."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path, data in tree.items():
            info = tarfile.TarInfo(prefix + path)
            info.size = len(data)
            info.mode = 0o755 if path.startswith("scripts/") else 0o644
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def tar_gz_members(*members: tarfile.TarInfo | tuple[tarfile.TarInfo, bytes]) -> bytes:
    """A tar.gz of hand-made members: a header alone, or a header with its data."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for member in members:
            if isinstance(member, tuple):
                info, data = member
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
            else:
                archive.addfile(member)
    return buffer.getvalue()


ARCHIVERS = {"zip": zip_bytes, "tar.gz": tar_gz}
"""Archive writers by format, for tests run over both."""
