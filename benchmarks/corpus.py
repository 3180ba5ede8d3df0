"""A generated corpus of realistic skills, shared by the benchmarks and the memory test.

Sizes follow published skills: 2-8 KB bodies, descriptions of one to three sentences, about a
third with references, a fifth with scripts, a tenth with assets, and one in ten written with
YAML the fast path leaves to PyYAML (a folded description and a tag list).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

_WORDS = (
    *[
        "extract",
        "tables",
        "forms",
        "documents",
        "review",
        "code",
        "commits",
        "release",
        "notes",
        "schema",
        "query",
    ],
    *[
        "data",
        "pipeline",
        "deploy",
        "service",
        "cluster",
        "metrics",
        "alert",
        "report",
        "chart",
        "summary",
        "api",
    ],
    *[
        "endpoint",
        "test",
        "fixture",
        "migration",
        "index",
        "cache",
        "bucket",
        "upload",
        "download",
        "validate",
    ],
)


def _sentence(rng: random.Random, words: int) -> str:
    text = " ".join(rng.choice(_WORDS) for _ in range(words))
    return text[0].upper() + text[1:] + "."


def _body(rng: random.Random, size: int) -> str:
    lines = [f"# {_sentence(rng, 3)}", ""]
    while sum(len(line) + 1 for line in lines) < size:
        lines += [
            f"## {_sentence(rng, 2)}",
            "",
            _sentence(rng, 30),
            "",
            f"- {_sentence(rng, 8)}",
            "",
        ]
    return "\n".join(lines) + "\n"


def skill_files(index: int, seed: int = 7) -> dict[str, bytes]:
    """The files of skill number ``index``: ``{relative_path: bytes}``."""
    rng = random.Random(seed * 1_000_003 + index)
    name = f"skill-{index:05d}"
    description = " ".join(_sentence(rng, rng.randint(8, 20)) for _ in range(rng.randint(1, 3)))
    if index % 10 == 9:
        frontmatter = (
            f"name: {name}\ndescription: >-\n  {description}\nlicense: Apache-2.0\n"
            f"tags:\n  - {rng.choice(_WORDS)}\n  - {rng.choice(_WORDS)}\n"
        )
    else:
        frontmatter = (
            f"name: {name}\ndescription: {description}\nlicense: Apache-2.0\n"
            f'metadata:\n  author: team-{index % 17}\n  version: "1.{index % 5}"\n'
        )
        if index % 4 == 0:
            frontmatter += "allowed-tools: Bash(python:*) Read Write\n"
    body = _body(rng, rng.randint(2048, 8192))
    files = {"SKILL.md": f"---\n{frontmatter}---\n\n{body}".encode()}
    if index % 3 == 0:
        files["references/guide.md"] = _body(rng, rng.randint(1024, 4096)).encode()
    if index % 5 == 0:
        files["scripts/run.py"] = b"import sys\nprint('ok', sys.argv[1:])\n"
    if index % 10 == 0:
        files["assets/template.txt"] = _sentence(rng, 40).encode()
    return files


def iter_corpus(count: int) -> Iterator[tuple[str, dict[str, bytes]]]:
    """``(name, files)`` for ``count`` skills."""
    for index in range(count):
        yield f"skill-{index:05d}", skill_files(index)


def write_corpus(root: Path, count: int) -> Path:
    """Write ``count`` skills under ``root`` (once: an existing complete corpus is reused)."""
    marker = root / f".complete-{count}"
    if marker.exists():
        return root
    for name, files in iter_corpus(count):
        for relative, data in files.items():
            path = root / name / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    marker.touch()
    return root
