"""10,000 skills' metadata cost no more memory than google-adk's own models of the same."""

from __future__ import annotations

from google.adk.skills import Frontmatter

from benchmarks.bench_memory import retained
from benchmarks.corpus import iter_corpus
from skills_core import parse_skill_md
from skills_core.format.validation import analyze

COUNT = 10_000


def test_ten_thousand_skills_cost_less_than_adk_frontmatter() -> None:
    frontmatters = [
        (name, parse_skill_md(files["SKILL.md"], location=name).frontmatter)
        for name, files in iter_corpus(COUNT)
    ]
    ours = retained(lambda: [analyze(fm, folder_name=name).metadata for name, fm in frontmatters])
    adk = retained(lambda: [Frontmatter.model_validate(fm) for _, fm in frontmatters])
    assert ours < adk, (ours, adk)
    assert ours > 0
