"""Each refresh and each skill tool call is a span, with google-adk's skill attributes."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from backends import LocalBackend, MemoryBackend, open_backend
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core.tools import ScriptPolicy
from skills_core.tools._factory import SkillTools
from tests.collections.shapes import k_dense
from tests.remote.harnesses import S3Harness
from tests.remote.servers import S3Server
from tests.support.backends import CountingBackend
from tests.support.processes import run_python


def named(spans: InMemorySpanExporter, name: str) -> list[ReadableSpan]:
    return [span for span in spans.get_finished_spans() if span.name == name]


def only(spans: InMemorySpanExporter, name: str) -> dict[str, Any]:
    (span,) = named(spans, name)
    return dict(span.attributes or {})


async def test_a_refresh_records_what_changed_and_what_it_read(
    spans: InMemorySpanExporter,
) -> None:
    documents = {name: skill_md(name) for name in ("alpha", "beta", "gamma")}
    memory = MemoryBackend({name: {"SKILL.md": data} for name, data in documents.items()})
    backend = CountingBackend(memory)
    catalog = SkillCatalog(backend)

    await catalog.refresh()
    first = only(spans, "skillfs.refresh")
    assert first["skillfs.source"] == "memory://"
    assert first["skillfs.refresh.added"] == 3
    assert first["skillfs.refresh.fetched"] == 3
    assert first["skillfs.refresh.bytes"] == sum(len(data) for data in documents.values())
    assert first["skillfs.refresh.reads"] == backend.listings + len(backend.fetched) == 4

    spans.clear()
    changed = skill_md("beta", "A longer description than before.")
    memory.put("beta", {"SKILL.md": changed})
    memory.remove("gamma")
    await catalog.refresh()
    second = only(spans, "skillfs.refresh")
    assert (second["skillfs.refresh.changed"], second["skillfs.refresh.removed"]) == (1, 1)
    assert second["skillfs.refresh.unchanged"] == 1
    assert (second["skillfs.refresh.fetched"], second["skillfs.refresh.bytes"]) == (1, len(changed))
    assert second["skillfs.refresh.reads"] == 2


async def test_requests_match_what_s3_served(
    spans: InMemorySpanExporter, s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    harness = S3Harness(s3_server, s3_client, bucket)
    harness.put_tree(k_dense().skills_tree())
    s3_server.log.reset()
    catalog = SkillCatalog(harness.backend())
    await catalog.refresh()
    await catalog.refresh()
    cold, warm = (dict(span.attributes or {}) for span in named(spans, "skillfs.refresh"))
    assert cold["skillfs.refresh.reads"] == 3  # one LIST, a GET per SKILL.md
    assert warm["skillfs.refresh.reads"] == 1
    assert len(s3_server.log.requests) == 4  # the listing also tells there is no index
    assert cold["skillfs.source"] == f"s3://{bucket}/skills"


async def test_reads_count_backend_reads_not_network_requests(tmp_path: Path) -> None:
    bundle = tmp_path / "skills.zip"
    with zipfile.ZipFile(bundle, "w") as archive:
        for name in ("alpha", "beta", "gamma"):
            archive.writestr(f"{name}/SKILL.md", skill_md(name))
    catalog = SkillCatalog(open_backend(str(bundle)))
    report = await catalog.refresh()
    assert (report.fetched, report.reads) == (3, 4)  # the listing and each SKILL.md: one archive
    assert report.to_dict()["reads"] == report.telemetry()["skillfs.refresh.reads"] == 4
    assert not hasattr(report, "requests")


async def test_a_failed_listing_is_an_error_span(spans: InMemorySpanExporter) -> None:
    backend = CountingBackend(MemoryBackend())
    backend.fail_listing = OSError("disk gone")
    await SkillCatalog(backend).refresh()
    (span,) = named(spans, "skillfs.refresh")
    assert span.status.status_code is StatusCode.ERROR
    assert span.attributes is not None
    assert span.attributes["error.type"] == "LIST_FAILED"


async def test_tool_calls_carry_adks_skill_attributes(
    spans: InMemorySpanExporter, tmp_path: Path
) -> None:
    root = k_dense().write(tmp_path)
    tools = SkillTools(SkillCatalog(LocalBackend(root)), scripts=ScriptPolicy(timeout=30))
    await tools.catalog.refresh()
    await tools.list_skills()
    await tools.search_skills("cheminformatics with rdkit")
    await tools.load_skill("perplexity-search")
    await tools.load_skill_resource("perplexity-search", "assets/.env.example")
    await tools.run_skill_script("rdkit", "scripts/molecular_properties.py")

    assert only(spans, "skillfs.list_skills")["skillfs.skills.count"] == 2
    assert only(spans, "skillfs.search_skills")["skillfs.skills.count"] == 1
    loaded = only(spans, "skillfs.load_skill")
    folder = (root / "perplexity-search").resolve()
    assert loaded == {
        "gen_ai.tool.name": "load_skill",
        "gen_ai.skill.name": "perplexity-search",
        "gen_ai.skill.description": "Web searches through Perplexity models.",
        "gen_ai.skill.source.uri": folder.as_uri(),
    }
    resource = only(spans, "skillfs.load_skill_resource")
    assert resource["gen_ai.skill.resource.name"] == "assets/.env.example"
    assert resource["gen_ai.skill.source.uri"] == folder.as_uri()
    script = only(spans, "skillfs.run_skill_script")
    assert (script["gen_ai.skill.name"], script["process.exit_code"]) == ("rdkit", 0)
    assert script["gen_ai.skill.resource.name"] == "scripts/molecular_properties.py"


async def test_a_failed_tool_call_is_an_error_span(spans: InMemorySpanExporter) -> None:
    tools = SkillTools(SkillCatalog(MemoryBackend({"a": {"SKILL.md": skill_md("a")}})))
    await tools.catalog.refresh()
    result = await tools.load_skill("no-such-skill")
    (span,) = named(spans, "skillfs.load_skill")
    assert span.status.status_code is StatusCode.ERROR
    assert span.attributes is not None
    assert span.attributes["error.type"] == result["error_code"] == "SKILL_NOT_FOUND"
    assert span.attributes["gen_ai.skill.name"] == "no-such-skill"  # as asked, like ADK
    assert "gen_ai.skill.source.uri" not in span.attributes


def test_without_opentelemetry_nothing_is_imported_and_everything_works(tmp_path: Path) -> None:
    code = (
        "import asyncio, sys\n"
        "sys.modules['opentelemetry'] = None  # as if it were not installed\n"
        "from backends import MemoryBackend\n"
        "from backends.testing import skill_md\n"
        "from skills_core import SkillCatalog\n"
        "from skills_core.tools._factory import SkillTools\n"
        "async def main():\n"
        "    tools = SkillTools(SkillCatalog(MemoryBackend({'a': {'SKILL.md': skill_md('a')}})))\n"
        "    report = await tools.catalog.refresh()\n"
        "    loaded = await tools.load_skill('a')\n"
        "    print(report.added, loaded['skill_name'], 'opentelemetry.trace' in sys.modules)\n"
        "asyncio.run(main())\n"
    )
    done = run_python("-c", code, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "('a',) a False"
