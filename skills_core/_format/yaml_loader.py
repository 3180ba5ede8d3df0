"""PyYAML, bounded: alias bombs, deep nesting, huge integers and duplicate keys refused.

The limits are judged the same whichever PyYAML build is installed (docs/limits-and-errors.md);
plain scalars are read by YAML 1.1, as PyYAML does, or by the YAML 1.2 core schema.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from skills_core import _codes as codes
from skills_core._errors import SkillParseError, YamlLimitError
from skills_core._format.models import FormatLimits

_MERGE_TAG = "tag:yaml.org,2002:merge"
_INT_TAG = "tag:yaml.org,2002:int"
MAX_INT_DIGITS = 4300
"""Longest integer accepted, in characters and digits: ``sys.get_int_max_str_digits()``."""
_INT_BOUND = 10**MAX_INT_DIGITS


class _IntegerTooLong(Exception):
    """An integer scalar over :data:`MAX_INT_DIGITS`; its argument, the 0-based line."""


class _UniqueKeyConstructor(yaml.constructor.SafeConstructor):
    """The safe constructor, refusing duplicate keys (PyYAML keeps the last) and huge integers."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[tuple[str, str]] = set()
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.tag != _MERGE_TAG:
                key = (key_node.tag, key_node.value)
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        problem=f"duplicate key {key_node.value!r}",
                        problem_mark=key_node.start_mark,
                    )
                seen.add(key)
        mapping: dict[Any, Any] = super().construct_mapping(node, deep=deep)
        return mapping

    def construct_bounded_int(self, node: yaml.ScalarNode) -> int:
        """An integer, unless its text or its value is longer than Python can print."""
        if len(node.value) > MAX_INT_DIGITS:  # also bounds the cost of building it
            raise _IntegerTooLong(node.start_mark.line)
        value: int = self.construct_yaml_int(node)
        if abs(value) >= _INT_BOUND:
            raise _IntegerTooLong(node.start_mark.line)
        return value


# types-PyYAML expects a whole loader here; the mixin hands the table to both loaders below.
_UniqueKeyConstructor.add_constructor(_INT_TAG, _UniqueKeyConstructor.construct_bounded_int)  # type: ignore[type-var]


class PythonLoader(_UniqueKeyConstructor, yaml.SafeLoader):
    """PyYAML's pure-Python safe loader with skillfs's constructor; always available."""


CORE_RESOLVERS: dict[str | None, list[tuple[str, re.Pattern[str]]]] = {}
"""By first character, the plain scalars the YAML 1.2 core schema reads as non-strings."""
for _kind, _pattern, _firsts in (
    ("bool", r"true|True|TRUE|false|False|FALSE", "tTfF"),
    ("int", r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+", "-+0123456789"),
    (
        "float",
        r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)",
        "-+.0123456789",
    ),
    ("null", r"~|null|Null|NULL|", ["~", "n", "N", ""]),
):
    for _first in _firsts:
        _regexp = re.compile(f"^(?:{_pattern})$")
        CORE_RESOLVERS.setdefault(_first, []).append((f"tag:yaml.org,2002:{_kind}", _regexp))


class _CoreSchema(_UniqueKeyConstructor):
    """Reads plain scalars as the YAML 1.2 core schema does."""

    yaml_implicit_resolvers = CORE_RESOLVERS

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        """``0o17`` is octal and ``0755`` decimal, as YAML 1.2 reads them."""
        text = str(self.construct_scalar(node))
        base = {"0o": 8, "0x": 16}.get(text[:2], 10)
        try:
            return int(text if base == 10 else text[2:], base)
        except ValueError:
            raise yaml.constructor.ConstructorError(
                problem=f"{text!r} is not a YAML 1.2 integer", problem_mark=node.start_mark
            ) from None


class CorePythonLoader(_CoreSchema, yaml.SafeLoader):
    """:class:`PythonLoader`, reading scalars by the YAML 1.2 core schema."""


LOADER: Any = PythonLoader
"""The loader documents within the limits are built with (libyaml's when present)."""
CORE_LOADER: Any = CorePythonLoader
if yaml.__with_libyaml__:

    class LibyamlLoader(_UniqueKeyConstructor, yaml.CSafeLoader):
        """libyaml's safe loader with skillfs's constructor."""

    class CoreLibyamlLoader(_CoreSchema, yaml.CSafeLoader):
        """:class:`LibyamlLoader`, reading scalars by the YAML 1.2 core schema."""

    LOADER, CORE_LOADER = LibyamlLoader, CoreLibyamlLoader

_ALIAS_CANDIDATE = re.compile(r"(?:^|(?<=[\s\[{,:]))\*[^\s,\[\]{}]", re.MULTILINE)
_OPENING_EVENTS = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_CLOSING_EVENTS = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


def load_yaml(
    text: str, *, limits: FormatLimits, location: str, first_line: int = 1, core: bool = False
) -> Any:
    """Load one YAML document with the safe loader, within ``limits``' aliases and depth.

    ``location`` and ``first_line`` (of ``text`` in its file) are for errors; ``core`` reads
    plain scalars by the YAML 1.2 core schema (``yes`` a string, ``0755`` 755).

    Raises:
        YamlLimitError: Too many aliases, too deep, or an integer too long.
        SkillParseError: The YAML is invalid.
    """
    try:
        if (
            len(_ALIAS_CANDIDATE.findall(text)) > limits.max_yaml_aliases
            or _depth_bound(text) > limits.max_yaml_depth
        ):
            _check_events(text, limits, location)
        return yaml.load(text, Loader=CORE_LOADER if core else LOADER)
    except _IntegerTooLong as exc:
        raise YamlLimitError(
            f"integer at line {first_line + exc.args[0]} is longer than {MAX_INT_DIGITS:,} digits; "
            "refused",
            location=location,
            code=codes.YAML_NUMBER,
        ) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.context_mark or exc.problem_mark
        line = first_line + mark.line if mark else first_line
        problem = ", ".join(part for part in (exc.context, exc.problem) if part)
        raise SkillParseError(
            f"invalid YAML at line {line}: {problem or 'syntax error'}",
            location=location,
            code=codes.INVALID_YAML,
        ) from exc
    except yaml.YAMLError as exc:
        raise SkillParseError(
            f"invalid YAML: {exc}", location=location, code=codes.INVALID_YAML
        ) from exc


def _depth_bound(text: str) -> int:
    """An upper bound on nesting: flow brackets, plus indent and ``-``/``?`` indicators."""
    block = max(
        len(line) - len(stripped) + stripped.count("-") + stripped.count("?")
        for line in text.split("\n")
        for stripped in (line.lstrip(" "),)
    )
    return text.count("[") + text.count("{") + block + 2


def _check_events(text: str, limits: FormatLimits, location: str) -> None:
    """Count aliases and depth exactly, from the pure-Python parser's events."""
    aliases = depth = 0
    for event in yaml.parse(text, Loader=PythonLoader):
        if isinstance(event, _OPENING_EVENTS):
            depth += 1
            if depth > limits.max_yaml_depth:
                raise YamlLimitError(
                    f"YAML nests deeper than {limits.max_yaml_depth} levels; refused",
                    location=location,
                    code=codes.YAML_DEPTH,
                )
        elif isinstance(event, _CLOSING_EVENTS):
            depth -= 1
        elif isinstance(event, yaml.AliasEvent):
            aliases += 1
            if aliases > limits.max_yaml_aliases:
                raise YamlLimitError(
                    f"frontmatter uses more than {limits.max_yaml_aliases} YAML aliases; "
                    "refused unexpanded",
                    location=location,
                    code=codes.YAML_ALIASES,
                )
