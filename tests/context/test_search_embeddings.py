"""Semantic retrieval: ranked search fused with an embedder's similarity.

``ConceptEmbedder`` is a deterministic embedder written here: each word counts on the axis of
its concept ("invoice" and "bill" share one), so it closes a vocabulary gap the lexical score
cannot. It records every batch it embeds and whether it ran on an event loop. The ONNX adapter
runs a tiny model the tests write (``onnx``'s helper and a WordLevel ``tokenizers`` file).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnx
import pytest
from google.adk.agents import LlmAgent
from onnx import TensorProto, helper, numpy_helper
from tokenizers import Tokenizer
from tokenizers.models import WordLevel
from tokenizers.pre_tokenizers import Whitespace

from backends import LocalBackend, MemoryBackend
from backends.testing import skill_md
from skills_core import CatalogCache, SkillCatalog
from skills_core.adk import Listing, SkillsToolset
from skills_core.context import SelectionPolicy, load_embedder, search_index
from tests.adk.scripted import Conversation, ScriptedLlm, call, responses, say

CONCEPTS = {
    "invoice": 0, "invoices": 0, "bill": 0, "bills": 0, "receipt": 0, "receipts": 0,
    "translate": 1, "translation": 1, "german": 1, "language": 1,
    "chart": 2, "charts": 2, "plot": 2, "graph": 2,
    "deploy": 3, "release": 3, "ship": 3,
}  # fmt: skip
SKILLS = {
    "bill-checker": "Checks bills and receipts for mistakes.",
    "invoice-charts": "Draws charts of invoice totals for a dashboard.",
    "translator": "Translate a document into German.",
    "release-helper": "Ship a release: tag, build and deploy.",
    "plotter": "Plot a graph from a table of numbers.",
}


class ConceptEmbedder:
    def __init__(self, identity: str = "concepts v1") -> None:
        self.identity = identity
        self.batches: list[list[str]] = []
        self.on_loop = 0

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        try:
            asyncio.get_running_loop()
            self.on_loop += 1
        except RuntimeError:
            pass
        self.batches.append(list(texts))
        return [vector(text) for text in texts]

    @property
    def skill_texts(self) -> list[str]:
        """What was embedded but requests (a skill's text holds its name and a colon)."""
        return [text for batch in self.batches for text in batch if ": " in text]


def vector(text: str) -> list[float]:
    counts = [0.0] * 5
    for word in text.lower().replace(".", " ").replace(":", " ").split():
        counts[CONCEPTS.get(word, 4)] += 1.0 if word in CONCEPTS else 0.1
    return counts


def catalog_of(skills: dict[str, str]) -> SkillCatalog:
    tree = {name: {"SKILL.md": skill_md(name, description)} for name, description in skills.items()}
    catalog = SkillCatalog(MemoryBackend(tree))
    asyncio.run(catalog.refresh())
    return catalog


def minmax(values: np.ndarray) -> np.ndarray:
    span = values.max() - values.min()
    return (values - values.min()) / span if span else np.zeros_like(values)


@pytest.mark.parametrize("weight", [0.0, 0.3, 0.5, 0.7, 1.0])
@pytest.mark.parametrize("query", ["check my invoice", "graph of invoices", "ship a release"])
def test_fusion_ranks_by_the_weighted_normalised_scores(weight: float, query: str) -> None:
    catalog = catalog_of(SKILLS)
    index = search_index(catalog)
    every = SelectionPolicy(top_k=len(SKILLS), min_score=0.0)
    lexical = {m.name: (m.score, m.strength) for m in index.search(query, every)}
    hybrid = SelectionPolicy(top_k=len(SKILLS), embedder=ConceptEmbedder(), dense_weight=weight)
    found = index.search(query, hybrid)

    names = sorted(SKILLS)
    unit = [np.array(vector(f"{name}: {SKILLS[name]}")) for name in names]
    asked = np.array(vector(query))
    cosine = np.array([u @ asked / np.linalg.norm(u) / np.linalg.norm(asked) for u in unit])
    scores = np.array([lexical.get(name, (0.0, None))[0] for name in names])
    fused = (1 - weight) * minmax(scores) + weight * minmax(cosine)
    expected = sorted(
        ((name, value) for name, value in zip(names, fused, strict=True) if value > 0),
        key=lambda pair: (-pair[1], pair[0]),
    )
    assert [m.name for m in found] == [name for name, _ in expected]
    assert [m.score for m in found] == pytest.approx([value for _, value in expected], abs=1e-6)
    for match in found:  # the lexical score alone decides strength
        assert match.strength == lexical.get(match.name, (0.0, "weak"))[1]


def test_the_dense_half_closes_a_vocabulary_gap_and_stays_weak() -> None:
    catalog = catalog_of(SKILLS)
    embedder = ConceptEmbedder()
    lexical = search_index(catalog).search("verify my invoice")
    assert [m.name for m in lexical] == ["invoice-charts"]  # no word of bill-checker's
    policy = SelectionPolicy(top_k=2, embedder=embedder)
    found = search_index(catalog).search("verify my invoice", policy)
    assert [(m.name, m.strength) for m in found] == [
        ("invoice-charts", lexical[0].strength),
        ("bill-checker", "weak"),
    ]
    dense = SelectionPolicy(top_k=2, embedder=embedder, dense_weight=0.8)
    found = search_index(catalog).search("verify my invoice", dense)
    assert [(m.name, m.strength) for m in found] == [
        ("bill-checker", "weak"),
        ("invoice-charts", lexical[0].strength),
    ]
    assert search_index(catalog).search("language help") == []  # no skill shares a word
    found = search_index(catalog).search("language help", SelectionPolicy(embedder=embedder))
    assert [(m.name, m.strength) for m in found] == [("translator", "weak")]
    unfitting = SelectionPolicy(top_k=5, embedder=embedder)
    assert {
        m.strength for m in search_index(catalog).search("what about the weather", unfitting)
    } == {"weak"}
    assert embedder.on_loop == 0
    with pytest.raises(ValueError, match="dense_weight"):
        SelectionPolicy(dense_weight=1.5)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for name, description in SKILLS.items():
        (tmp_path / "skills" / name).mkdir(parents=True)
        (tmp_path / "skills" / name / "SKILL.md").write_bytes(skill_md(name, description))
    return tmp_path / "skills"


async def search_in_new_process(folder: Path, embedder: ConceptEmbedder) -> list[str]:
    catalog = SkillCatalog(LocalBackend(folder), cache=CatalogCache(folder.parent / "cache"))
    await catalog.refresh()
    found = await search_index(catalog).search_async(
        "check my invoice", SelectionPolicy(embedder=embedder)
    )
    return [m.name for m in found]


async def test_vectors_survive_a_restart_and_an_edit_embeds_one(folder: Path) -> None:
    first = ConceptEmbedder()
    ranked = await search_in_new_process(folder, first)
    assert len(first.skill_texts) == len(SKILLS)
    assert max(len(batch) for batch in first.batches) <= 8

    restarted = ConceptEmbedder()
    assert await search_in_new_process(folder, restarted) == ranked
    assert restarted.batches == [["check my invoice"]]  # the request alone

    edited = folder / "plotter" / "SKILL.md"
    edited.write_bytes(skill_md("plotter", "Plot a chart from a table of numbers."))
    after_edit = ConceptEmbedder()
    await search_in_new_process(folder, after_edit)
    assert after_edit.skill_texts == ["plotter: Plot a chart from a table of numbers."]

    other_model = ConceptEmbedder("concepts v2")
    assert await search_in_new_process(folder, other_model) == ranked
    assert len(other_model.skill_texts) == len(SKILLS)
    assert first.on_loop + restarted.on_loop + after_edit.on_loop + other_model.on_loop == 0


async def test_a_running_index_embeds_only_the_skill_a_refresh_changed(folder: Path) -> None:
    catalog = SkillCatalog(LocalBackend(folder))
    await catalog.refresh()
    embedder = ConceptEmbedder()
    policy = SelectionPolicy(embedder=embedder)
    await search_index(catalog).search_async("check my invoice", policy)
    (folder / "translator" / "SKILL.md").write_bytes(
        skill_md("translator", SKILLS["translator"], "# Steps\n\nA new body, same description.\n")
    )
    (folder / "plotter" / "SKILL.md").write_bytes(skill_md("plotter", "Plot a bar chart."))
    await catalog.refresh()
    embedder.batches.clear()
    await search_index(catalog).search_async("check my invoice", policy)
    assert embedder.skill_texts == ["plotter: Plot a bar chart."]  # a new body: same vector


# The ONNX adapter, on a tiny model written here.

VOCABULARY = ["[PAD]", "[UNK]", "invoice", "bill", "chart", "german"]
TABLE = np.array(
    [[0, 0, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 1, 0], [0, 2, 2]], dtype=np.float32
)  # "invoice" and "bill" share a row


def write_model(folder: Path, table: np.ndarray = TABLE, *, inside: str = "") -> Path:
    """An ONNX graph looking each piece up in ``table`` (``last_hidden_state``), a tokenizer."""
    ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "pieces"])
    mask = helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "pieces"])
    out = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, None)
    graph = helper.make_graph(
        [helper.make_node("Gather", ["table", "input_ids"], ["last_hidden_state"])],
        "lookup",
        [ids, mask],
        [out],
        [numpy_helper.from_array(table, "table")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    (folder / inside).mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(folder / inside / "model.onnx"))
    tokenizer = Tokenizer(WordLevel({w: i for i, w in enumerate(VOCABULARY)}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = Whitespace()
    tokenizer.save(str(folder / "tokenizer.json"))
    return folder


@pytest.mark.parametrize("inside", ["", "onnx"])
def test_the_onnx_adapter_mean_pools_the_real_pieces(tmp_path: Path, inside: str) -> None:
    embedder = load_embedder(write_model(tmp_path, inside=inside))
    vectors = np.asarray(embedder.embed(["invoice", "bill chart", "invoice german zebra"]))
    assert vectors.tolist() == [[1, 0, 0], [0.5, 0.5, 0], [pytest.approx(1 / 3), 2 / 3, 1]]
    assert load_embedder(tmp_path).identity == embedder.identity  # stable across loads
    other = load_embedder(write_model(tmp_path / "other", TABLE * 2))
    assert other.identity != embedder.identity


async def test_a_hybrid_search_with_the_onnx_adapter(tmp_path: Path) -> None:
    embedder = await asyncio.to_thread(load_embedder, write_model(tmp_path))
    tree = {
        "invoice-checker": {"SKILL.md": skill_md("invoice-checker", "Reads an invoice.")},
        "chart-maker": {"SKILL.md": skill_md("chart-maker", "Makes a chart for any check.")},
    }
    catalog = SkillCatalog(MemoryBackend(tree))
    await catalog.refresh()
    index = search_index(catalog)
    [lexical] = await index.search_async("check my bill")
    assert lexical.name == "chart-maker"
    policy = SelectionPolicy(top_k=2, embedder=embedder, dense_weight=0.7)
    found = await index.search_async("check my bill", policy)
    assert [(m.name, m.strength) for m in found] == [
        ("invoice-checker", "weak"),
        ("chart-maker", lexical.strength),
    ]


def test_a_folder_without_a_model_or_runtime_says_what_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ValueError, match=r"no model\.onnx"):
        load_embedder(tmp_path)
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(ImportError, match=r"agent-skillfs\[embeddings\]"):
        load_embedder(write_model(tmp_path))
    blocked = "import sys; sys.modules['numpy'] = None; import skills_core.context._embed"
    run = subprocess.run(
        [sys.executable, "-c", blocked], capture_output=True, text=True, check=False
    )
    assert run.returncode == 1
    assert "agent-skillfs[embeddings]" in run.stderr


async def test_the_agents_search_tool_ranks_by_the_listings_policy() -> None:
    """An ADK agent's ``search_skills`` fuses with the toolset's embedder and keeps its tags."""
    wip = (
        b"---\nname: wip-bills\ndescription: Checks bills.\nmetadata: {tags: [wip]}\n---\nDraft.\n"
    )
    tree = {name: {"SKILL.md": skill_md(name, text)} for name, text in SKILLS.items()}
    catalog = SkillCatalog(MemoryBackend({**tree, "wip-bills": {"SKILL.md": wip}}))
    await catalog.refresh()
    embedder = ConceptEmbedder()
    for listing, names in [
        (Listing(search=True), ["invoice-charts"]),  # the lexical ranking alone
        (
            Listing(search=True, ranking=SelectionPolicy(embedder=embedder)),
            ["invoice-charts", "wip-bills"],
        ),
        (
            Listing(
                search=True,
                ranking=SelectionPolicy(embedder=embedder),
                exclude_tags=["wip"],
            ),
            ["invoice-charts", "bill-checker"],
        ),
    ]:
        model = ScriptedLlm(
            steps=[call("search_skills", query="verify my invoice", limit=2), say("ok")]
        )
        toolset = SkillsToolset(catalog, listing=listing, refresh_every=None)
        chat = Conversation(LlmAgent(name="assistant", model=model, tools=[toolset]))
        events = await chat.send("Is my invoice right?")
        await chat.close()
        found = dict(responses(events))["search_skills"]["skills"]
        assert [skill["name"] for skill in found] == names
    assert embedder.on_loop == 0
