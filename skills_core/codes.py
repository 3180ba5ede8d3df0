"""Stable codes for every problem skillfs reports about a skill.

Codes are plain strings so they serialise to JSON unchanged; tests and scripts match on
them, never on message text.
"""

from __future__ import annotations

# Reading and parsing SKILL.md: the skill is refused.
READ_FAILED = "READ_FAILED"
TOO_LARGE = "TOO_LARGE"
NOT_UTF8 = "NOT_UTF8"
NO_FRONTMATTER = "NO_FRONTMATTER"
UNCLOSED_FRONTMATTER = "UNCLOSED_FRONTMATTER"
INVALID_YAML = "INVALID_YAML"
YAML_ALIASES = "YAML_ALIASES"
YAML_DEPTH = "YAML_DEPTH"
NOT_A_MAPPING = "NOT_A_MAPPING"

# The skill's identity: without these a catalog cannot serve it, so it is refused.
NAME_MISSING = "NAME_MISSING"
NAME_INVALID = "NAME_INVALID"
NAME_MISMATCH = "NAME_MISMATCH"
DESCRIPTION_MISSING = "DESCRIPTION_MISSING"
DESCRIPTION_INVALID = "DESCRIPTION_INVALID"

# Other spec violations: `validate` calls them errors; a catalog loads the skill with a
# warning unless it is strict.
TOO_LONG = "TOO_LONG"
WRONG_TYPE = "WRONG_TYPE"
INVALID_VALUE = "INVALID_VALUE"
UNKNOWN_FIELD = "UNKNOWN_FIELD"

# Advice: never makes a skill invalid.
EMPTY_BODY = "EMPTY_BODY"
LONG_BODY = "LONG_BODY"
SHADOWED = "SHADOWED"
FIELD_WITHHELD = "FIELD_WITHHELD"  # e.g. allowed-tools of a skill served over MCP, not approved

IDENTITY_CODES = frozenset(
    {NAME_MISSING, NAME_INVALID, NAME_MISMATCH, DESCRIPTION_MISSING, DESCRIPTION_INVALID}
)
"""Validation codes that make a skill unservable whatever the catalog's strictness."""

# Storage problems for one skill or the whole listing.
UNSAFE_PATH = "UNSAFE_PATH"
LIST_FAILED = "LIST_FAILED"
