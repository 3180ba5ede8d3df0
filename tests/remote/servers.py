"""Real storage servers on 127.0.0.1 that count every request and can inject faults.

- :class:`S3Server`: moto's S3 app behind a WSGI middleware (werkzeug, threaded).
- :class:`GcsServer`: gcp-storage-emulator with a deep listen backlog.
- :class:`FakeGithub`: the GitHub REST endpoints ``GithubFileSystem`` uses, over a repository
  held in memory.
- :class:`StaticServer`: plain files with ETags, for bundles over HTTP.
- :class:`FolderServer`: ``python -m http.server`` on a folder, which ignores ``Range``.
"""

from __future__ import annotations

import base64
import hashlib
import http.server
import io
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, ClassVar, Self
from urllib.parse import parse_qs, unquote, urlsplit

from gcp_storage_emulator.server import RequestHandler as GcsRequestHandler
from gcp_storage_emulator.storage import Storage as GcsStorage
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from werkzeug.serving import ThreadedWSGIServer

HOST = "127.0.0.1"

S3_ERRORS = {
    503: ("SlowDown", "Please reduce your request rate."),
    500: ("InternalError", "We encountered an internal error. Please try again."),
    403: ("AccessDenied", "Access Denied"),
}


@dataclass(frozen=True)
class Request:
    """One request as the server saw it."""

    method: str
    path: str
    query: str
    range: str = ""

    @property
    def kind(self) -> str:
        """LIST for an object listing, else the HTTP method."""
        if self.method == "GET" and "list-type" in self.query:
            return "LIST"
        return self.method


@dataclass
class Fault:
    """Answer matching requests with ``status`` (``None``: drop the connection), ``times`` times.

    ``times=None`` fails forever. With ``keep`` set, the request is answered as usual but the
    body is cut to its first ``keep`` bytes, with a matching ``Content-Length``: a short,
    self-consistent response (``status`` is then ignored). With ``stall``, the request is
    accepted and never answered until :meth:`release` (the request log's ``reset`` releases
    every stalled request).
    """

    method: str
    contains: str
    status: int | None
    times: int | None = None
    hits: int = 0
    keep: int | None = None
    stall: bool = False
    released: threading.Event = field(default_factory=threading.Event)
    matched: threading.Event = field(default_factory=threading.Event)
    """Set once a request has matched."""

    def hold(self) -> None:
        """Block the request's thread until released (at most a minute)."""
        self.released.wait(60)

    def release(self) -> None:
        """Stop matching, and let every held request go."""
        self.times = self.hits
        self.released.set()

    def matches(self, request: Request) -> bool:
        if request.method != self.method or self.contains not in f"{request.path}?{request.query}":
            return False
        if self.times is not None and self.hits >= self.times:
            return False
        self.hits += 1
        self.matched.set()
        return True


@dataclass
class RequestLog:
    """Thread-safe record of requests, and the faults to inject into them."""

    requests: list[Request] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, method: str, path: str, query: str, range: str = "") -> Fault | None:
        request = Request(method, unquote(path), unquote(query), range)
        with self.lock:
            self.requests.append(request)
            return next((fault for fault in self.faults if fault.matches(request)), None)

    def fail(
        self, method: str, contains: str, *, status: int | None = 503, times: int | None = None
    ) -> Fault:
        fault = Fault(method, contains, status, times)
        with self.lock:
            self.faults.append(fault)
        return fault

    def truncate(self, method: str, contains: str, *, keep: int, times: int | None = None) -> Fault:
        fault = Fault(method, contains, None, times, keep=keep)
        with self.lock:
            self.faults.append(fault)
        return fault

    def stall(self, method: str, contains: str) -> Fault:
        fault = Fault(method, contains, None, stall=True)
        with self.lock:
            self.faults.append(fault)
        return fault

    def reset(self) -> None:
        with self.lock:
            for fault in self.faults:
                fault.released.set()
            self.requests.clear()
            self.faults.clear()

    def count(self, kind: str | None = None, contains: str = "") -> int:
        with self.lock:
            return sum(
                1
                for request in self.requests
                if (kind is None or request.kind == kind)
                and contains in f"{request.path}?{request.query}"
            )

    def kinds(self) -> dict[str, int]:
        with self.lock:
            found: dict[str, int] = {}
            for request in self.requests:
                found[request.kind] = found.get(request.kind, 0) + 1
            return found


class Served:
    """A socketserver-style server run on a daemon thread; ``start`` returns ``self``."""

    def __init__(self, server: Any) -> None:
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self._server.server_address[1]}"

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


class _QuietWSGIServer(ThreadedWSGIServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """Injected connection drops are expected; keep test output clean."""


class S3Server(Served):
    """moto's S3 over HTTP on 127.0.0.1, counting and fault-injecting in front of it.

    ``latency`` seconds are slept before each answer, to stand in for a network round trip.
    """

    def __init__(self, latency: float = 0.0) -> None:
        self.log = RequestLog()
        self.latency = latency
        self._app = DomainDispatcherApplication(create_backend_app)
        super().__init__(_QuietWSGIServer(HOST, 0, self))

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        method = environ["REQUEST_METHOD"]
        path, query = environ["PATH_INFO"], environ.get("QUERY_STRING", "")
        fault = self.log.record(method, path, query, environ.get("HTTP_RANGE", ""))
        if self.latency:
            time.sleep(self.latency)
        if fault is None:
            return self._app(environ, start_response)
        if fault.keep is not None:
            return self._truncated(environ, start_response, fault.keep)
        if fault.stall:
            fault.hold()
            return self._app(environ, start_response)
        if fault.status is None:
            environ["werkzeug.socket"].shutdown(socket.SHUT_RDWR)
            raise ConnectionResetError("injected connection drop")
        code, message = S3_ERRORS[fault.status]
        body = (
            b""
            if method == "HEAD"
            else (
                f'<?xml version="1.0" encoding="UTF-8"?><Error><Code>{code}</Code>'
                f"<Message>{message}</Message><RequestId>injected</RequestId></Error>"
            ).encode()
        )
        reason = http.HTTPStatus(fault.status).phrase
        headers = [("Content-Type", "application/xml"), ("Content-Length", str(len(body)))]
        start_response(f"{fault.status} {reason}", headers)
        return [body]

    def _truncated(
        self, environ: dict[str, Any], start_response: Callable[..., Any], keep: int
    ) -> list[bytes]:
        """moto's answer with its body cut to ``keep`` bytes, headers (ETag...) unchanged."""
        answered: list[Any] = []
        body = b"".join(self._app(environ, lambda *args: answered.append(args)))[:keep]
        status, headers, *_ = answered[0]
        headers = [(k, v) for k, v in headers if k.lower() != "content-length"]
        start_response(status, [*headers, ("Content-Length", str(len(body)))])
        return [body]


class _CountingGcsHandler(GcsRequestHandler):
    def __init__(self, log: RequestLog, storage: GcsStorage, *args: Any, **kwargs: Any) -> None:
        self._log = log
        super().__init__(storage, *args, **kwargs)

    def parse_request(self) -> bool:
        parsed = super().parse_request()
        if parsed:
            parts = urlsplit(self.path)
            self._log.record(self.command, parts.path, parts.query)
        return parsed

    def log_message(self, format: str, *args: Any) -> None:
        """Silence per-request logging."""


class _DeepBacklogServer(http.server.HTTPServer):
    # The emulator's default backlog of 5 stalls concurrent clients for a second each.
    request_queue_size = 1024


class GcsServer(Served):
    """gcp-storage-emulator, in memory, on 127.0.0.1."""

    def __init__(self) -> None:
        self.log = RequestLog()
        self.storage = GcsStorage(use_memory_fs=True)
        handler = partial(_CountingGcsHandler, self.log, self.storage)
        super().__init__(_DeepBacklogServer((HOST, 0), handler))


Route = Callable[[str, str, dict[str, list[str]], Any], tuple[int, dict[str, str], bytes]]
"""(method, path, query, headers) -> (status, headers, body)."""


class _RouteHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    route: Route
    log: RequestLog

    def _answer(self) -> None:
        parts = urlsplit(self.path)
        fault = self.log.record(self.command, parts.path, parts.query)
        if fault is not None and fault.stall:
            fault.hold()
        if fault is not None and fault.status is None:
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        if fault is not None:
            status, headers, body = fault.status, {}, b'{"message": "injected"}'
        else:
            path, query = unquote(parts.path), parse_qs(parts.query)
            status, headers, body = self.route(self.command, path, query, self.headers)
        self.send_response(status)
        for name, value in {"Content-Length": str(len(body)), **headers}.items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    do_GET = do_HEAD = _answer

    def log_message(self, format: str, *args: Any) -> None:
        """Silence per-request logging."""


class _RouteServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Injected connection drops are expected; keep test output clean."""


class LoopbackHTTP(Served):
    """A threaded HTTP server on 127.0.0.1 answering through one route function."""

    def __init__(self, route: Route) -> None:
        self.log = RequestLog()
        handler = type("Handler", (_RouteHandler,), {"route": staticmethod(route), "log": self.log})
        super().__init__(_RouteServer((HOST, 0), handler))


def _json(status: int, payload: Any) -> tuple[int, dict[str, str], bytes]:
    return status, {"Content-Type": "application/json"}, json.dumps(payload).encode()


def git_blob_sha(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()


class FakeGithub(LoopbackHTTP):
    """The trees and contents endpoints of GitHub's REST API over in-memory repositories.

    ``repos[(org, repo, ref)]`` maps file paths to bytes. Tree shas are derived from content,
    so they change when anything below them changes, as in git.
    """

    def __init__(self) -> None:
        self.repos: dict[tuple[str, str, str], dict[str, bytes]] = {}
        self.symlinks: set[str] = set()
        self.truncated = False
        super().__init__(self._route)

    def _route(
        self, method: str, path: str, query: dict[str, list[str]], headers: Any
    ) -> tuple[int, dict[str, str], bytes]:
        parts = path.strip("/").split("/")
        if len(parts) < 5 or parts[0] != "repos":
            return _json(404, {"message": "Not Found"})
        org, repo, kind = parts[1], parts[2], parts[3]
        if kind == "git" and parts[4] == "trees" and len(parts) == 6:
            return self._tree(org, repo, parts[5], recursive="recursive" in query)
        if kind == "contents":
            ref = query.get("ref", [""])[0]
            return self._contents(org, repo, ref, "/".join(parts[4:]))
        return _json(404, {"message": "Not Found"})

    def _entries(self, files: dict[str, bytes]) -> list[dict[str, Any]]:
        folders: dict[str, list[str]] = {}
        entries = []
        for path, data in sorted(files.items()):
            mode = "120000" if path in self.symlinks else "100644"
            entries.append(
                {
                    "path": path,
                    "mode": mode,
                    "type": "blob",
                    "sha": git_blob_sha(data),
                    "size": len(data),
                }
            )
            pieces = path.split("/")
            for depth in range(1, len(pieces)):
                folders.setdefault("/".join(pieces[:depth]), []).append(git_blob_sha(data))
        for folder, shas in sorted(folders.items()):
            sha = hashlib.sha1("".join(shas).encode() + folder.encode()).hexdigest()
            entries.append({"path": folder, "mode": "040000", "type": "tree", "sha": sha})
        return entries

    def _tree(
        self, org: str, repo: str, sha: str, *, recursive: bool
    ) -> tuple[int, dict[str, str], bytes]:
        for (owner, name, ref), files in self.repos.items():
            if (owner, name) != (org, repo):
                continue
            entries = self._entries(files)
            if sha == ref:
                base = ""
            else:
                match = [e for e in entries if e["type"] == "tree" and e["sha"] == sha]
                if not match:
                    continue
                base = match[0]["path"] + "/"
            below = [e for e in entries if e["path"].startswith(base)]
            listed = [
                {**entry, "path": entry["path"][len(base) :]}
                for entry in below
                if recursive or "/" not in entry["path"][len(base) :]
            ]
            return _json(200, {"sha": sha, "tree": listed, "truncated": self.truncated})
        return _json(404, {"message": "Not Found"})

    def _contents(
        self, org: str, repo: str, ref: str, path: str
    ) -> tuple[int, dict[str, str], bytes]:
        files = self.repos.get((org, repo, ref), {})
        if path not in files:
            return _json(404, {"message": "Not Found"})
        data = files[path]
        return _json(
            200,
            {
                "type": "file",
                "encoding": "base64",
                "path": path,
                "sha": git_blob_sha(data),
                "size": len(data),
                "content": base64.b64encode(data).decode(),
                "download_url": None,
            },
        )


class StaticServer(LoopbackHTTP):
    """Files by path with strong ETags, as a CDN or object store's HTTP endpoint serves them.

    A request whose ``If-None-Match`` names the current ETag is answered 304, with no body.
    ``passwords[path] = (user, password)`` protects a file with HTTP basic auth;
    ``types[path]`` overrides the Content-Type guessed from the extension;
    ``redirects[path] = url`` answers ``302`` to ``url``.
    """

    TYPES: ClassVar[dict[str, str]] = {
        ".json": "application/json",
        ".zip": "application/zip",
        ".gz": "application/gzip",
        ".md": "text/markdown",
    }

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.passwords: dict[str, tuple[str, str]] = {}
        self.types: dict[str, str] = {}
        self.redirects: dict[str, str] = {}
        self.headers_seen: list[tuple[str, dict[str, str]]] = []
        super().__init__(self._route)

    def _route(
        self, method: str, path: str, query: dict[str, list[str]], headers: Any
    ) -> tuple[int, dict[str, str], bytes]:
        self.headers_seen.append((path, dict(headers)))
        if path in self.redirects:
            return 302, {"Location": self.redirects[path]}, b""
        data = self.files.get(path)
        if data is None:
            return 404, {}, b"not found"
        if path in self.passwords:
            expected = base64.b64encode(":".join(self.passwords[path]).encode()).decode()
            if headers.get("Authorization") != f"Basic {expected}":
                return 401, {"WWW-Authenticate": 'Basic realm="skills"'}, b"unauthorized"
        etag = f'"{hashlib.md5(data).hexdigest()}"'
        if headers.get("If-None-Match") == etag:
            return 304, {"ETag": etag}, b""
        extension = next((kind for end, kind in self.TYPES.items() if path.endswith(end)), None)
        kind = self.types.get(path, extension or "application/octet-stream")
        return 200, {"ETag": etag, "Content-Type": kind}, data


class _FolderHandler(http.server.SimpleHTTPRequestHandler):
    """The stdlib's file handler, reporting to its :class:`FolderServer`."""

    owner: FolderServer

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output clean."""

    def send_response(self, code: int, message: str | None = None) -> None:
        with self.owner.lock:
            self.owner.answers.append((self.command, code))
        super().send_response(code, message)

    def send_head(self) -> Any:
        wanted = self.headers.get("Range")
        if not (self.owner.ranges and wanted):
            return super().send_head()
        data = Path(self.translate_path(self.path)).read_bytes()
        first, last = wanted.removeprefix("bytes=").split("-")
        start, end = int(first), min(int(last) + 1, len(data))
        self.send_response(206)
        self.send_header("Content-Range", f"bytes {start}-{end - 1}/{len(data)}")
        self.send_header("Content-Length", str(end - start))
        self.end_headers()
        return io.BytesIO(data[start:end])

    def copyfile(self, source: Any, outputfile: Any) -> None:
        """``shutil.copyfileobj``'s loop, counting the bytes sent until the client hangs up."""
        try:
            while chunk := source.read(64 * 1024):
                outputfile.write(chunk)
                with self.owner.lock:
                    self.owner.sent += len(chunk)
        except OSError:
            pass  # the client closed the connection
        finally:
            self.owner.body_ended.set()


class FolderServer(Served):
    """``python -m http.server`` on ``folder``: the stdlib's threading server and file handler.

    Like the stdlib, it ignores ``Range`` and answers 200 with the whole file; with
    ``ranges=True`` a ranged GET gets 206 and those bytes, as object stores and CDNs answer.
    ``answers`` holds each request's ``(method, status)``, ``sent`` the body bytes written;
    ``body_ended`` is set once a body was sent whole or its client hung up.
    """

    def __init__(self, folder: Path, *, ranges: bool = False) -> None:
        self.ranges = ranges
        self.answers: list[tuple[str, int]] = []
        self.sent = 0
        self.body_ended = threading.Event()
        self.lock = threading.Lock()
        handler = type("Handler", (_FolderHandler,), {"owner": self})
        super().__init__(_RouteServer((HOST, 0), partial(handler, directory=str(folder))))

    def reset(self) -> None:
        """Forget the answers and bytes sent so far."""
        with self.lock:
            self.answers.clear()
            self.sent = 0
            self.body_ended.clear()
