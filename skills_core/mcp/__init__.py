"""``skillfs serve``: a catalog over MCP, as a server object and its two transports.

>>> from skills_core.mcp import SkillServer, http_server, serve_stdio

Needs the MCP SDK (``agent-skillfs[mcp]``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import backends._mcp  # noqa: F401 - without the SDK, fail here with the install hint
from backends._lazy import lazy_exports

if TYPE_CHECKING:
    from skills_core.mcp._server import SkillServer
    from skills_core.mcp._transports import http_server, serve_stdio

_EXPORTS = {
    "SkillServer": "skills_core.mcp._server",
    "http_server": "skills_core.mcp._transports",
    "serve_stdio": "skills_core.mcp._transports",
}

__all__ = ["SkillServer", "http_server", "serve_stdio"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
