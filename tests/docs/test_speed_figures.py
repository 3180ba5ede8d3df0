"""Every speed figure of the benchmark pages and of README's Speed section names its benchmark.

A figure is a time (``290 ms``, ``3.5 us``, ``1.2 s``) or a ratio (``1.8x``, ``13 times``). It
sits in a section (a heading and the text up to the next heading) that names the
``python -m benchmarks.…`` command printing it, or under a heading whose own text does.
"""

from __future__ import annotations

import re

import pytest

from tests.docs.pages import ROOT

_FIGURE = re.compile(r"\b\d[\d,]*(?:\.\d+)?(?: ?(?:ms|us|µs|s)\b|x\b| times\b)")
_COMMAND = "python -m benchmarks."
_HEADING = re.compile(r"^(#+) ", re.MULTILINE)
_FENCED = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)


def sections(text: str) -> list[tuple[int, str]]:
    """Each heading's level and its own text (up to the next heading), in order."""
    starts = [(0, 0)] + [(len(m[1]), m.start()) for m in _HEADING.finditer(text)]
    ends = [start for _, start in starts[1:]] + [len(text)]
    return [(level, text[start:end]) for (level, start), end in zip(starts, ends, strict=True)]


def unnamed_figures(text: str) -> list[str]:
    """The figures of ``text`` whose section, and every section above it, name no benchmark."""
    missing: list[str] = []
    named_above: list[tuple[int, bool]] = []  # the enclosing headings: level, names a command
    for level, section in sections(_FENCED.sub("", text)):
        while named_above and named_above[-1][0] >= level > 0:
            named_above.pop()
        named = _COMMAND in section or any(named for _, named in named_above)
        named_above.append((level, _COMMAND in section))
        if not named:
            title = section.split("\n", 1)[0]
            missing += [f"{title}: {figure}" for figure in _FIGURE.findall(section)]
    return missing


def readme_speed() -> str:
    return "## Speed" + (ROOT / "README.md").read_text().split("\n## Speed", 1)[1].split("\n## ")[0]


@pytest.mark.parametrize(
    "name", ["README.md", *sorted(p.name for p in (ROOT / "docs").glob("benchmarks*.md"))]
)
def test_every_speed_figure_names_its_benchmark(name: str) -> None:
    text = readme_speed() if name == "README.md" else (ROOT / "docs" / name).read_text()
    assert _COMMAND in text
    assert unnamed_figures(text) == []


def test_a_figure_without_its_command_is_found() -> None:
    text = "# Page\n\n## Cold\n\n`python -m benchmarks.bench_cold`: 290 ms, 1.8x.\n\n### Detail\n\n"
    assert unnamed_figures(text + "3.5 us\n## Other\n\n13 times faster, 2 s\n") == [
        "## Other: 13 times",
        "## Other: 2 s",
    ]
