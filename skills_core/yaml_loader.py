"""PyYAML, bounded: the C safe loader when present, aliases counted before anything is built."""

from __future__ import annotations

from typing import Any

import yaml

from skills_core import codes
from skills_core.errors import SkillParseError, YamlAliasError

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when PyYAML has it


def load_yaml(text: str, *, max_aliases: int, location: str, first_line: int = 1) -> Any:
    """Load one YAML document with the safe loader.

    Args:
        text: The YAML source.
        max_aliases: Most ``*alias`` references allowed; more is refused before expansion.
        location: Where the text came from, for errors.
        first_line: The line number of ``text``'s first line in its file, for errors.

    Raises:
        YamlAliasError: Too many aliases.
        SkillParseError: The YAML is invalid or nested too deeply.
    """
    try:
        if "*" in text:
            _count_aliases(text, max_aliases, location)
        return yaml.load(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        line = first_line + exc.problem_mark.line if exc.problem_mark else first_line
        problem = exc.problem or exc.context or "invalid YAML"
        raise SkillParseError(
            f"invalid YAML at line {line}: {problem}", location=location, code=codes.INVALID_YAML
        ) from exc
    except yaml.YAMLError as exc:
        raise SkillParseError(
            f"invalid YAML: {exc}", location=location, code=codes.INVALID_YAML
        ) from exc
    except RecursionError as exc:
        raise SkillParseError(
            "YAML is nested too deeply", location=location, code=codes.INVALID_YAML
        ) from exc


def _count_aliases(text: str, max_aliases: int, location: str) -> None:
    aliases = 0
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, yaml.AliasEvent):
            aliases += 1
            if aliases > max_aliases:
                raise YamlAliasError(
                    f"frontmatter uses more than {max_aliases} YAML aliases; refused unexpanded",
                    location=location,
                    code=codes.YAML_ALIASES,
                )
