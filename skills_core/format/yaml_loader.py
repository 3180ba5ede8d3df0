"""PyYAML, bounded: hostile documents judged by skillfs before libyaml sees them.

Alias bombs, deep nesting (libyaml's composer recurses in C and crashes at about 30,000
levels) and integers longer than Python prints (4,300 digits, in any base YAML knows) are
refused before anything is built. Aliases and depth are bounded by a cheap scan of the text
and, only when that bound is over a limit, counted exactly from the events of PyYAML's
pure-Python parser, which has no nesting limit of its own; so a verdict is the same whichever
PyYAML build is installed, and a document within the limits is built by the fastest loader
present. Duplicate keys are refused (PyYAML would keep the last). Plain scalars are read by
YAML 1.1, as PyYAML does, or by the YAML 1.2 core schema (``core=True``, :data:`CORE_LOADER`).
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from skills_core import codes
from skills_core.errors import SkillParseError, YamlLimitError
from skills_core.format.models import FormatLimits

_MERGE_TAG = "tag:yaml.org,2002:merge"
_INT_TAG = "tag:yaml.org,2002:int"
MAX_INT_DIGITS = 4300
"""Longest integer accepted, in characters and in decimal digits: Python's default limit for
converting integers to text (``sys.get_int_max_str_digits()``)."""
_INT_BOUND = 10**MAX_INT_DIGITS


class _IntegerTooLong(Exception):
    """An integer scalar over :data:`MAX_INT_DIGITS`; ``line`` is 0-based in the document."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


class _UniqueKeyConstructor(yaml.constructor.SafeConstructor):
    """The safe constructor refusing duplicate mapping keys and over-long integers.

    YAML requires unique keys; PyYAML would silently keep the last one, so ``name: a`` then
    ``name: b`` would load a skill its author may not have meant.
    """

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
"""Plain scalars the YAML 1.2 core schema reads as other than strings, by first character:
no ``yes``/``on`` booleans, dates, sexagesimal or ``0``-prefixed octal, as YAML 1.1 has."""
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
    """Reads plain scalars as the YAML 1.2 core schema does (what JSON-minded readers give)."""

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
"""The loader documents within the limits are built with: libyaml's when PyYAML has it."""
CORE_LOADER: Any = CorePythonLoader
"""The same, reading scalars by the YAML 1.2 core schema."""
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
    """Load one YAML document with the safe loader.

    Args:
        text: The YAML source.
        limits: ``max_yaml_aliases`` and ``max_yaml_depth`` apply.
        location: Where the text came from, for errors.
        first_line: The line number of ``text``'s first line in its file, for errors.
        core: Read plain scalars by the YAML 1.2 core schema (:data:`CORE_LOADER`), not by
            YAML 1.1 as PyYAML does (``yes`` a string, ``2024-01-05`` a string, ``0755`` 755).

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
            f"integer at line {first_line + exc.line} is longer than {MAX_INT_DIGITS:,} digits; "
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
    """An upper bound on nesting, from the text alone.

    A flow level opens with ``[`` or ``{``; a block level needs a deeper indent than its parent
    or, on one line, a ``-`` or ``?`` indicator (a mapping and the sequence under it may share
    an indent only after a ``- ``, two columns).
    """
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
