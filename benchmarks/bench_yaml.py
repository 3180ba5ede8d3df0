"""CPU time of the YAML limits: hostile frontmatter refused, and what the checks cost the rest.

Run: ``python -m benchmarks.bench_yaml [--repeat 15]``. For each hostile document of
``tests/core/test_yaml_limits.py`` and each loader present (libyaml, pure Python), prints the
median CPU time of its verdict; then the cost of loading an ordinary frontmatter outside the
fast path with the limits checked against loading it with PyYAML alone (the checks' overhead).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import yaml

from benchmarks.timing import cpu_median
from skills_core._errors import SkillParseError
from skills_core._format import yaml_loader
from skills_core._format.models import DEFAULT_FORMAT_LIMITS
from tests.core.test_yaml_limits import HOSTILE, LOADERS

ORDINARY = """name: pdf-forms
description: "Fill PDF forms: text fields, check boxes and signatures."
allowed-tools: [Read, Write, "Bash(python:*)"]
metadata:
  tags: [pdf, forms, documents]
  version: 1.2
  owners:
    - name: docs-team
      since: 2025
"""


def verdict(text: str) -> Callable[[], object]:
    def run() -> object:
        try:
            return yaml_loader.load_yaml(text, limits=DEFAULT_FORMAT_LIMITS, location="bench")
        except SkillParseError as exc:
            return exc.code

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    print(f"PyYAML {yaml.__version__}, libyaml: {yaml.__with_libyaml__}")
    print(f"| {'document':<16} | {'loader':<8} | {'verdict':<13} | {'CPU ms':>8} |")
    print(f"|{'-' * 18}|{'-' * 10}|{'-' * 15}|{'-' * 10}|")
    for case, (text, _) in HOSTILE.items():
        for name, loader in LOADERS.items():
            yaml_loader.LOADER = loader
            code = verdict(text)()
            cpu = cpu_median(verdict(text), args.repeat)
            print(f"| {case:<16} | {name:<8} | {code!s:<13} | {cpu * 1000:>8.3f} |")
    yaml_loader.LOADER = LOADERS.get("libyaml", yaml_loader.PythonLoader)
    checked = cpu_median(verdict(ORDINARY), args.repeat * 20)
    plain = cpu_median(lambda: yaml.load(ORDINARY, Loader=yaml_loader.LOADER), args.repeat * 20)
    print(
        f"\nordinary frontmatter outside the fast path: {checked * 1e6:.1f} us checked, "
        f"{plain * 1e6:.1f} us PyYAML alone ({checked / plain:.2f}x)"
    )


if __name__ == "__main__":
    main()
