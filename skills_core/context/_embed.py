"""Semantic retrieval: the :class:`Embedder` protocol, its ONNX adapter, each skill's vector.

docs/choosing-skills.md ("Semantic retrieval") tells the fusion rule and what it gained.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from backends._errors import install_command
from skills_core._catalog.cache import code_version
from skills_core._catalog.entries import entry_digest
from skills_core._format.models import SkillMetadata
from skills_core.context._derived import caller_loop

EXTRA = install_command("embeddings")

try:
    import numpy as np
    import numpy.typing as npt
except ImportError as exc:
    raise ImportError(f"semantic search needs numpy: {EXTRA}") from exc

if TYPE_CHECKING:
    from skills_core._catalog.catalog import SkillCatalog

BATCH = 8
"""Texts embedded in one call."""
MAX_PIECES = 256
"""Word pieces of a text the ONNX adapter embeds (the first)."""
KIND = "skill vectors " + code_version(__file__)
"""The persistent cache's kind of vectors, with this code's version (then the model's)."""


class Embedder(Protocol):
    """Texts in, one vector each out (a sentence-embedding model), e.g. :func:`load_embedder`'s.

    ``identity`` names the model: vectors kept under one identity are never used with another,
    so it must change whenever the vectors would (a digest of the weights).
    """

    identity: str

    def embed(self, texts: Sequence[str]) -> Sequence[Sequence[float]]:
        """One vector per text, all of one length (normalised or not)."""


def load_embedder(path: str | os.PathLike[str]) -> Embedder:
    """The embedder of a model folder: ``model.onnx`` (or ``onnx/model.onnx``), ``tokenizer.json``.

    Runs it with ``onnxruntime`` and ``tokenizers`` (the ``embeddings`` extra), imported now.

    Raises:
        ValueError: The folder holds no such model.
        ImportError: The extra is not installed.
    """
    folder = Path(path)
    tokenizer = folder / "tokenizer.json"
    for model in (folder / "model.onnx", folder / "onnx" / "model.onnx"):
        if model.is_file() and tokenizer.is_file():
            return _OnnxEmbedder(model, tokenizer)
    raise ValueError(f"{folder}: no model.onnx (or onnx/model.onnx) beside a tokenizer.json")


class _OnnxEmbedder:
    """An ONNX sentence-embedding model: per-piece outputs are mean-pooled over the real pieces."""

    def __init__(self, model: Path, tokenizer: Path) -> None:
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ImportError(
                f"ONNX embedding models need onnxruntime and tokenizers: {EXTRA}"
            ) from exc
        words = tokenizer.read_bytes()
        with model.open("rb") as weights:
            digest = hashlib.file_digest(weights, "sha256")
        digest.update(words)
        self.identity = "onnx " + digest.hexdigest()[:32]
        self._tokenizer = Tokenizer.from_str(words.decode())
        self._tokenizer.enable_truncation(MAX_PIECES)
        self._tokenizer.enable_padding()  # to the longest text of a batch
        self._session = onnxruntime.InferenceSession(str(model), providers=["CPUExecutionProvider"])
        self._inputs = {graph_input.name for graph_input in self._session.get_inputs()}

    def embed(self, texts: Sequence[str]) -> Any:
        """See :class:`Embedder`."""
        encoded = self._tokenizer.encode_batch(list(texts))
        ids = np.array([text.ids for text in encoded], dtype=np.int64)
        mask = np.array([text.attention_mask for text in encoded], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        out = self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0]
        if out.ndim == 3:  # one vector per piece
            out = (out * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1)
        return out


def embedding_text(metadata: SkillMetadata) -> str:
    """What a skill is embedded from: its name and description (docs/choosing-skills.md)."""
    return f"{metadata.name}: {metadata.description}"


class SkillVectors:
    """One embedder's unit vectors of a catalog's skills, by the text embedded (thread-safe)."""

    def __init__(self, catalog: SkillCatalog, embedder: Embedder) -> None:
        self.embedder = embedder
        self._catalog = catalog
        self._kind = f"{KIND} {embedder.identity}"
        self._vectors: dict[str, npt.NDArray[np.float32]] = {}
        self._matrix: tuple[int, list[str], npt.NDArray[np.float32]] | None = None
        self._completed: object = None  # the snapshot complete() last caught up with
        self._lock = threading.RLock()

    def prepare(self) -> None:
        """In a worker thread of an async search or selection: :meth:`complete` on its loop."""
        loop = caller_loop()
        if loop is not None and self._catalog.snapshot is not self._completed:
            asyncio.run_coroutine_threadsafe(self.complete(), loop).result()

    async def complete(self) -> None:
        """Hold a vector for every skill a model may choose, off the event loop.

        From the persistent cache by SKILL.md digest, else embedded in a worker thread in
        batches (and kept there).
        """
        snapshot = self._catalog.snapshot
        missing = {
            embedding_text(entry.metadata): entry
            for entry in snapshot.loaded.values()
            if entry.metadata is not None and entry.metadata.model_invocable
        }
        missing = {text: entry for text, entry in missing.items() if text not in self._vectors}
        store = self._catalog.derived_store
        digests: dict[bytes, str] = {}
        if store is not None and missing:
            pairs = await asyncio.to_thread(
                lambda: [(entry_digest(e), t) for t, e in missing.items()]
            )
            digests = {digest: text for digest, text in pairs if digest}
            for digest, kept in (await store.derived(self._kind, list(digests))).items():
                if isinstance(kept, bytes):
                    self._vectors.setdefault(digests[digest], np.frombuffer(kept, np.float32))
        made = await asyncio.to_thread(self.embed_missing, missing)
        if store is not None and made:
            keep = {
                digest: made[text].tobytes() for digest, text in digests.items() if text in made
            }
            await store.save_derived(self._kind, keep)
        self._completed = snapshot

    def embed_missing(self, texts: Iterable[str]) -> dict[str, npt.NDArray[np.float32]]:
        """Embed those of ``texts`` without a vector; the new vectors.

        :data:`BATCH` at a time, shortest first: a batch is padded to its longest text.
        """
        with self._lock:
            todo = sorted((t for t in dict.fromkeys(texts) if t not in self._vectors), key=len)
            made: dict[str, npt.NDArray[np.float32]] = {}
            for start in range(0, len(todo), BATCH):
                batch = todo[start : start + BATCH]
                made.update(zip(batch, _unit(self.embedder.embed(batch)), strict=True))
            self._vectors.update(made)
            return made

    def matrix(
        self, version: int, skills: Iterable[tuple[str, SkillMetadata]]
    ) -> tuple[list[str], Any]:
        """The names of ``skills`` and their vectors, one a row (kept while ``version`` is)."""
        with self._lock:
            if self._matrix is None or self._matrix[0] != version:
                texts = {name: embedding_text(metadata) for name, metadata in skills}
                self.embed_missing(texts.values())
                self._vectors = {text: self._vectors[text] for text in texts.values()}
                rows = np.array([self._vectors[text] for text in texts.values()], np.float32)
                self._matrix = version, list(texts), rows
            return self._matrix[1], self._matrix[2]

    def similarity(self, query: str, rows: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """The cosine similarity of ``query`` to each row."""
        similarity: npt.NDArray[np.float32] = rows @ _unit(self.embedder.embed([query]))[0]
        return similarity


def fuse(
    names: Sequence[str], lexical: Mapping[str, float], dense: Any, weight: float
) -> dict[str, float]:
    """``(1 - weight) * lexical + weight * dense`` of every skill, each min-max normalised."""
    lexical_scores = np.array([lexical.get(name, 0.0) for name in names])
    fused = (1 - weight) * _minmax(lexical_scores) + weight * _minmax(dense)
    return dict(zip(names, fused.tolist(), strict=True))


def _minmax(scores: npt.NDArray[np.floating[Any]]) -> npt.NDArray[np.floating[Any]]:
    span = scores.max() - scores.min()
    return (scores - scores.min()) / span if span > 0 else np.zeros_like(scores, np.float64)


def _unit(vectors: Sequence[Sequence[float]]) -> npt.NDArray[np.float32]:
    """``vectors`` as float32 rows of length 1 (a zero vector stays zero)."""
    rows = np.asarray(vectors, np.float32)
    unit: npt.NDArray[np.float32] = rows / np.maximum(
        np.linalg.norm(rows, axis=1, keepdims=True), 1e-12
    )
    return unit
