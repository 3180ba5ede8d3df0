"""Stable codes, plain strings: every problem reported about a skill, every tool error a model sees.

docs/limits-and-errors.md tells what each means.
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
YAML_NUMBER = "YAML_NUMBER"
NOT_A_MAPPING = "NOT_A_MAPPING"

# The skill's name and description (a missing name falls back to the folder's).
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

# Frontmatter YAML refuses that lenient catalogs repair (agentskills.io's client guide).
UNQUOTED_COLON = "UNQUOTED_COLON"

# Advice: never makes a skill invalid.
EMPTY_BODY = "EMPTY_BODY"
LONG_BODY = "LONG_BODY"
SHADOWED = "SHADOWED"
BROAD_PATHS = "BROAD_PATHS"
FIELD_WITHHELD = "FIELD_WITHHELD"  # e.g. allowed-tools of a skill served over MCP, not approved

# Two skills claim one name: the first by folder order is served, the other refused.
DUPLICATE_NAME = "DUPLICATE_NAME"

# Judging one skill raised an unexpected exception: that skill alone is refused.
LOAD_FAILED = "LOAD_FAILED"

# A catalog with a lock (skills_core._trust.lock): a skill or file unlike its locked digest
# (also a tool's error), a skill the lock does not name, a locked skill the source lost.
LOCK_MISMATCH = "LOCK_MISMATCH"
NOT_LOCKED = "NOT_LOCKED"
LOCK_MISSING = "LOCK_MISSING"

# A SKILL.md unlike what its source's listing (MCP) gave: refused (also a tool's error).
ENTRY_MISMATCH = "ENTRY_MISMATCH"

# Storage problems for one skill or the whole listing.
UNSAFE_PATH = "UNSAFE_PATH"
LIST_FAILED = "LIST_FAILED"
REFRESH_FAILED = "REFRESH_FAILED"
# A signed index refused (unsigned, untrusted key, bad signature, rollback).
SIGNATURE_REFUSED = "SIGNATURE_REFUSED"
# A watch's change events stopped: refreshed, and asked for again.
WATCH_INTERRUPTED = "WATCH_INTERRUPTED"

# Tool results: the error values a model sees (skills_core.tools._content.tool_error).
INVALID_ARGUMENTS = "INVALID_ARGUMENTS"
SKILL_NOT_FOUND = "SKILL_NOT_FOUND"
RESOURCE_NOT_FOUND = "RESOURCE_NOT_FOUND"
SECTION_NOT_FOUND = "SECTION_NOT_FOUND"
INVALID_PATH = "INVALID_PATH"
RESOURCE_TOO_LARGE = "RESOURCE_TOO_LARGE"
SCRIPTS_DISABLED = "SCRIPTS_DISABLED"
SCRIPT_NOT_FOUND = "SCRIPT_NOT_FOUND"
UNSUPPORTED_SCRIPT = "UNSUPPORTED_SCRIPT"
SCRIPT_TIMEOUT = "SCRIPT_TIMEOUT"
SCRIPT_FAILED = "SCRIPT_FAILED"
SCRIPT_NOT_APPROVED = "SCRIPT_NOT_APPROVED"  # its source grants no scripts; content not approved
RUNNER_UNAVAILABLE = "RUNNER_UNAVAILABLE"
CONFIRMATION_REQUIRED = "CONFIRMATION_REQUIRED"
CONFIRMATION_REJECTED = "CONFIRMATION_REJECTED"
FORK_FAILED = "FORK_FAILED"
AGENT_NOT_FOUND = "AGENT_NOT_FOUND"
MODEL_NOT_FOUND = "MODEL_NOT_FOUND"
STATE_VARIABLE_MISSING = "STATE_VARIABLE_MISSING"
TOOL_NOT_PERMITTED = "TOOL_NOT_PERMITTED"
INTERNAL_ERROR = "INTERNAL_ERROR"
