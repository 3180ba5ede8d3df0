"""The MCP skills extension (SEP-2640) as the wire carries it: entries, requests and results.

Entries stay raw in the results: :func:`parse_entry` checks each on its own, so one malformed
entry never fails a page. URIs read ``skill://<skill-path>/<file-path>``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Literal, NamedTuple
from urllib.parse import quote, unquote

import mcp_types

from backends._digests import is_digest
from backends._errors import UnsafePathError
from backends._paths import check_relative_path

SKILLS_EXTENSION = "io.modelcontextprotocol/skills"  # under capabilities.extensions

SKILL_MD = "SKILL.md"


class SkillFile(NamedTuple):
    """One file of a skill as its entry describes it."""

    uri: str
    digest: str
    size: int


class SkillEntry(NamedTuple):
    """One skill as a server describes it: its SKILL.md's URI, name, path prefix, files."""

    uri: str
    name: str
    prefix: str
    frontmatter: Mapping[str, Any]
    files: Mapping[str, SkillFile]

    @property
    def skill_md(self) -> SkillFile:
        """The entry's ``SKILL.md``."""
        return self.files[SKILL_MD]

    @property
    def total_size(self) -> int:
        """The size of all its files together."""
        return sum(file.size for file in self.files.values())


def parse_entry(raw: Any) -> SkillEntry:
    """Check one raw ``Skill`` entry; ValueError says what is wrong (``"dynamic"`` included)."""
    if not isinstance(raw, Mapping):
        raise ValueError("the entry is not an object")
    uri, frontmatter, resources = raw.get("uri"), raw.get("frontmatter"), raw.get("resources")
    if not isinstance(uri, str) or not uri.endswith("/" + SKILL_MD):
        raise ValueError(f"the entry's uri must name a SKILL.md, not {uri!r}")
    root = uri[: -len(SKILL_MD) - 1]
    prefix, _, name = skill_path_of(root).rpartition("/")
    if not isinstance(frontmatter, Mapping) or frontmatter.get("name") != name:
        raise ValueError(f"the frontmatter name must be {name!r}, the last segment of {uri}")
    if resources == "dynamic":
        raise ValueError("its files are generated (resources: dynamic): no digest to check")
    if not isinstance(resources, list):
        raise ValueError("the entry lists no resources")
    files: dict[str, SkillFile] = {}
    for resource in resources:
        path, file = _resource(resource, root)
        if path in files:
            raise ValueError(f"{file.uri} is listed twice")
        files[path] = file
    if SKILL_MD not in files:
        raise ValueError(f"the resources do not list {uri}")
    return SkillEntry(uri, name, prefix, MappingProxyType(dict(frontmatter)), files)


def skill_path_of(root: str) -> str:
    """``skill://acme/refunds`` gives ``acme/refunds``; ValueError for an unsafe segment."""
    scheme, separator, path = root.partition("://")
    if not separator or not scheme:
        raise ValueError(f"not a URI: {root!r}")
    segments = [unquote(segment) for segment in path.split("/")]
    if any(segment in ("", ".", "..") or "/" in segment for segment in segments):
        raise ValueError(f"not a skill path: {root!r}")
    return "/".join(segments)


def resource_uri(root: str, path: str) -> str:
    """The URI of the file at ``path`` (relative POSIX) in the skill rooted at ``root``."""
    return f"{root}/{quote(path, safe='/')}"


def _resource(raw: Any, root: str) -> tuple[str, SkillFile]:
    if not isinstance(raw, Mapping):
        raise ValueError("a resource is not an object")
    uri, digest, size = raw.get("uri"), raw.get("digest"), raw.get("size")
    if not isinstance(uri, str) or not uri.startswith(root + "/"):
        raise ValueError(f"resource {uri!r} lies outside the skill {root}")
    try:
        path = check_relative_path(unquote(uri[len(root) + 1 :]))
    except UnsafePathError as exc:
        raise ValueError(f"resource {uri!r}: {exc}") from None
    if not is_digest(digest):
        raise ValueError(f"resource {uri} has no sha256 digest")
    if type(size) is not int or size < 0:
        raise ValueError(f"resource {uri} has no valid size")
    return path, SkillFile(uri, digest, size)


LIST_METHOD = "skills/list"
GET_METHOD = "skills/get"
DIRECTORY_READ_METHOD = "resources/directory/read"


class ListSkillsParams(mcp_types.PaginatedRequestParams):
    """Parameters of ``skills/list``: an optional cursor."""


class GetSkillParams(mcp_types.RequestParams):
    """Parameters of ``skills/get``: the URI of a skill's ``SKILL.md``."""

    uri: str


class ReadDirectoryParams(mcp_types.PaginatedRequestParams):
    """Parameters of ``resources/directory/read``: a directory resource's URI, and a cursor."""

    uri: str


class ListSkillsRequest(mcp_types.Request[ListSkillsParams, Literal["skills/list"]]):
    """One page of the server's skills."""

    method: Literal["skills/list"] = "skills/list"
    params: ListSkillsParams


class GetSkillRequest(mcp_types.Request[GetSkillParams, Literal["skills/get"]]):
    """One skill's entry, by URI."""

    method: Literal["skills/get"] = "skills/get"
    params: GetSkillParams


class ListSkillsResult(mcp_types.PaginatedResult, mcp_types.CacheableResult):
    """A page of raw skill entries."""

    skills: list[Any]
    result_type: Literal["complete"] = "complete"


class GetSkillResult(mcp_types.CacheableResult):
    """One raw skill entry."""

    skill: Any
    result_type: Literal["complete"] = "complete"


class ReadDirectoryResult(mcp_types.PaginatedResult):
    """A page of a directory's direct children (``mimeType: inode/directory`` for directories)."""

    resources: list[mcp_types.Resource]
    result_type: Literal["complete"] = "complete"
