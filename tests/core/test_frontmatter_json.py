"""The frontmatter as the MCP skills extension carries it: read as YAML 1.2 readers read it.

Each expected value is what the npm ``yaml`` package (the conformance suite's reader, YAML 1.2
core schema) gives for the same text; PyYAML's YAML 1.1 reading differs on every line marked.
"""

from __future__ import annotations

from typing import Any

import pytest

from skills_core import _codes as codes
from skills_core._errors import SkillParseError
from skills_core._format.parsing import frontmatter_json

FORMS = """name: forms
description: Every form. Use for: tests
allowed-tools: Read, Grep
tags: one, two
released: 2024-01-05
stamp: 2001-12-14t21:59:43.10-05:00
enabled: yes
mode: off
octal: 0755
octal12: 0o17
hex: 0x1F
sexagesimal: 1:30
grouped: 1_000
exponent: 1e3
half: +.5
nothing: ~
equals: =
metadata:
  team: tools
  nested: {list: [1, two, {three: 3}]}
  2024: year
  true: flag
  ~: empty
  1.5: ratio
<<: {kept: as a key}
"""
EXPECTED: dict[str, Any] = {
    "name": "forms",
    "description": "Every form. Use for: tests",  # an unquoted colon, quoted as a catalog does
    "allowed-tools": "Read, Grep",
    "tags": "one, two",
    "released": "2024-01-05",  # YAML 1.1: a date
    "stamp": "2001-12-14t21:59:43.10-05:00",  # YAML 1.1: a datetime
    "enabled": "yes",  # YAML 1.1: True
    "mode": "off",  # YAML 1.1: False
    "octal": 755,  # YAML 1.1: 493
    "octal12": 15,  # YAML 1.1: a string
    "hex": 31,
    "sexagesimal": "1:30",  # YAML 1.1: 90
    "grouped": "1_000",  # YAML 1.1: 1000
    "exponent": 1000.0,  # YAML 1.1: a string
    "half": 0.5,  # YAML 1.1: a string
    "nothing": None,
    "equals": "=",  # YAML 1.1: no constructor, an error
    "metadata": {
        "team": "tools",
        "nested": {"list": [1, "two", {"three": 3}]},
        "2024": "year",
        "true": "flag",
        "": "empty",
        "1.5": "ratio",
    },
    "<<": {"kept": "as a key"},  # YAML 1.1: a merge
}


def test_every_form_reads_as_yaml_1_2_does() -> None:
    assert frontmatter_json(FORMS, location="forms/SKILL.md") == EXPECTED


def test_lists_stay_lists_and_maps_maps() -> None:
    text = "name: a\ndescription: d\nallowed-tools: [Read, Grep]\ntags:\n  - x\nmetadata: {}\n"
    assert frontmatter_json(text, location="a") == {
        "name": "a",
        "description": "d",
        "allowed-tools": ["Read", "Grep"],
        "tags": ["x"],
        "metadata": {},
    }


@pytest.mark.parametrize(
    ("text", "held"),
    [
        ("x: .inf", "inf"),
        ("x: -.Inf", "-inf"),
        ("x: .nan", "nan"),
        ("x: !!binary aGk=", "b'hi'"),
        ("x: !!timestamp 2001-01-01", "datetime.date(2001, 1, 1)"),
        ("x: !!set {a}", "{'a'}"),
        ("m: {1: a, '1': b}", "keys that are the same once written as JSON"),
    ],
)
def test_what_json_cannot_carry_is_refused(text: str, held: str) -> None:
    with pytest.raises(SkillParseError) as caught:
        frontmatter_json(f"name: a\ndescription: d\n{text}", location="a/SKILL.md")
    assert caught.value.code == codes.INVALID_VALUE
    assert held in caught.value.message
    assert str(caught.value).startswith("a/SKILL.md")
