"""A SKILL.md's frontmatter as JSON values, the way a YAML 1.2 reader reads it.

The MCP skills extension carries each skill's frontmatter "rendered verbatim as a JSON object",
identical in content to the file's, and hosts compare the two field by field. Hosts and the
official conformance suite read the file as JSON-minded YAML readers do (the npm ``yaml``
package: YAML 1.2, core schema), so that is how it is read here: strings stay strings, lists
lists, maps maps, and plain scalars follow the core schema, not PyYAML's YAML 1.1 (``yes`` and
``2024-01-05`` are strings, ``0755`` is 755, ``1e3`` is 1000.0; see
:func:`~skills_core.format.yaml_loader.load_yaml`). A key that is not a string is written as
such readers write it (``1`` as ``"1"``, ``true`` as ``"true"``, null as ``""``). A value JSON
cannot carry as the file means it (``.inf``, ``.nan``, an explicit ``!!binary`` or
``!!timestamp``, a ``!!set``) is refused, as are keys that collide once written. Unquoted
colons are quoted first, as a lenient catalog reads them.
"""

from __future__ import annotations

import math
from typing import Any

from skills_core import codes
from skills_core.errors import SkillParseError
from skills_core.format.format_limits import DEFAULT_FORMAT_LIMITS, FormatLimits
from skills_core.format.parsing import read_frontmatter

_KEYWORDS = {True: "true", False: "false", None: ""}


def frontmatter_json(
    text: str, *, location: str, limits: FormatLimits = DEFAULT_FORMAT_LIMITS
) -> dict[str, Any]:
    """The frontmatter ``text`` (between the fences) as JSON values.

    Raises:
        SkillParseError: Unreadable YAML, even with unquoted colons quoted, or a value JSON
            cannot carry (``INVALID_VALUE``).
    """
    mapping, _ = read_frontmatter(text, location=location, limits=limits, strict=False, core=True)
    result: dict[str, Any] = _json(mapping, location)
    return result


def _json(value: Any, location: str) -> Any:
    if value is None or isinstance(value, str | int) or _finite(value):
        return value
    if isinstance(value, list):
        return [_json(item, location) for item in value]
    if not isinstance(value, dict):
        raise _refused(f"{_shown(value)}, which JSON cannot carry as YAML reads it", location)
    result = {_key(key, location): _json(item, location) for key, item in value.items()}
    if len(result) < len(value):
        raise _refused(f"keys that are the same once written as JSON: {_shown(value)}", location)
    return result


def _key(key: Any, location: str) -> str:
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool):
        return _KEYWORDS[key]
    if isinstance(key, int) or (_finite(key) and key.is_integer()):
        return str(int(key))
    if _finite(key):
        return repr(key)
    raise _refused(f"the key {_shown(key)}, which JSON cannot carry", location)


def _refused(what: str, location: str) -> SkillParseError:
    return SkillParseError(
        f"the frontmatter holds {what}", location=location, code=codes.INVALID_VALUE
    )


def _finite(value: Any) -> bool:
    return isinstance(value, float) and math.isfinite(value)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
