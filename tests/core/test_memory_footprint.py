"""Skills' metadata cost no more memory than google-adk's own models of the same.

2,000 skills by default (the ratio does not depend on the count); ``SKILLFS_EXAMPLES=5`` measures
10,000, as the benchmark does.
"""

from __future__ import annotations

from google.adk.skills import Frontmatter

from benchmarks.bench_memory import retained
from benchmarks.corpus import iter_corpus
from skills_core import parse_skill_md
from skills_core._format.validation import analyze
from tests.support.examples import examples

COUNT = examples(2_000)


def test_skills_cost_less_than_adk_frontmatter() -> None:
    frontmatters = [
        (name, parse_skill_md(files["SKILL.md"], location=name).frontmatter)
        for name, files in iter_corpus(COUNT)
    ]
    ours = retained(lambda: [analyze(fm, folder_name=name).metadata for name, fm in frontmatters])
    adk = retained(lambda: [Frontmatter.model_validate(fm) for _, fm in frontmatters])
    assert ours < adk, (ours, adk)
    assert ours > 0
