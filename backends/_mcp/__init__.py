"""Skills from any MCP server that offers the skills extension (``io.modelcontextprotocol/skills``).

:class:`~backends._mcp.backend.McpSkillsBackend` is the client side; ``skillfs serve``
(:mod:`skills_core.mcp`) the server side. Both need the MCP SDK, ``agent-skillfs[mcp]``:
without it, importing this package raises a MissingDependencyError saying what to install.
"""

from __future__ import annotations

import importlib.util

from backends._errors import MissingDependencyError

if importlib.util.find_spec("mcp") is None:
    raise MissingDependencyError('MCP support needs the MCP SDK: pip install "agent-skillfs[mcp]"')
