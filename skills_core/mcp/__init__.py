"""``skillfs serve``: a catalog over MCP (:mod:`skills_core.mcp.server`).

Needs the MCP SDK (``agent-skillfs[mcp]``).
"""

import backends.mcp  # noqa: F401 - without the SDK, fail here with the install hint
