"""Re-indexing from the stored original, and the embedding cache that makes it cheap."""

from __future__ import annotations

import numpy as np
import pytest

from core.index.embedding_cache import CacheStats, EmbeddingCache
from core.index.store import IndexStore
from core.ingest.pipeline import INDEX_VERSION, ingest_file, reindex_filing
from core.service import Workbench
from tests.conftest import REPO_ROOT

SMALL = REPO_ROOT / "tests" / "fixtures" / "small_filing.txt"


@pytest.fixture
def bench(settings):
    return Workbench(settings)


def _as_older_version(store: IndexStore, filing_id: str) -> None:
    filing = store.catalog.get_filing(filing_id)
    store.catalog.update_filing(filing.model_copy(update={"index_version": 1}))


def test_outdated_filing_is_listed_and_reindexed_in_place(bench) -> None:
    first = bench.ingest([(SMALL.name, SMALL.read_bytes())])[0]
    filing_id = first.filing.filing_id
    assert bench.outdated_filings() == []
    _as_older_version(bench.store, filing_id)
    assert [f.filing_id for f in bench.outdated_filings()] == [filing_id]

    events = []
    again = bench.reindex([filing_id], on_progress=events.append)[0]
    assert again.ok and again.filing.index_version == INDEX_VERSION
    assert again.filing.ingested_at == first.filing.ingested_at and again.filing.filename == SMALL.name
    assert bench.outdated_filings() == []
    assert [e.stage for e in events][-1] == "done"
    # Every store holds the filing's passages exactly once.
    store = bench.store
    assert store.catalog.count_chunks() == store.vectors.count() == len(store.keywords) == again.filing.chunks
    # The same passages with the same context: every vector came from the cache.
    assert again.reused_embeddings == again.filing.chunks
    assert bench.retrieve("driver turnover", top_n=1).chunks


def test_reindex_without_the_original_says_so_and_keeps_the_filing(bench) -> None:
    filing = bench.ingest([(SMALL.name, SMALL.read_bytes())])[0].filing
    for path in bench.settings.uploads_dir.glob(f"{filing.filing_id}.*"):
        path.unlink()
    result = reindex_filing(bench.store, filing.filing_id)
    assert not result.ok and "upload the file again" in result.error
    assert bench.filing(filing.filing_id) is not None and bench.store.vectors.count() == filing.chunks


def test_failed_reindex_keeps_the_original_file(bench, monkeypatch) -> None:
    filing = bench.ingest([(SMALL.name, SMALL.read_bytes())])[0].filing
    store = bench.store

    def explode(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(store.keywords, "add_filing", explode)
    result = reindex_filing(store, filing.filing_id)
    assert not result.ok and "re-index" in result.error
    monkeypatch.undo()
    original = list(store.settings.uploads_dir.glob(f"{filing.filing_id}.*"))
    assert original, "the stored original survives a failed re-index"
    assert ingest_file(store, original[0].read_bytes(), SMALL.name).ok


def test_embedding_cache_reuses_vectors_by_exact_text_and_model(tmp_path) -> None:
    class Counting:
        model_name = "counting"
        dimension = 3

        def __init__(self) -> None:
            self.calls: list[list[str]] = []

        def embed_documents(self, texts, on_batch=None):
            self.calls.append(list(texts))
            return np.array([[len(t), 1.0, 0.0] for t in texts], dtype=np.float32)

    cache = EmbeddingCache(tmp_path / "embeddings.sqlite")
    embedder = Counting()
    stats = CacheStats()
    first = cache.embed(embedder, ["alpha", "beta"], stats=stats)
    assert (stats.reused, stats.embedded) == (0, 2)
    second = cache.embed(embedder, ["beta", "gamma", "alpha"], stats=stats)
    assert (stats.reused, stats.embedded) == (2, 1) and embedder.calls[-1] == ["gamma"]
    assert np.array_equal(second[0], first[1]) and np.array_equal(second[2], first[0])
    embedder.model_name = "another model"
    cache.embed(embedder, ["alpha"], stats=stats)
    assert stats.embedded == 1, "another model never reuses a vector"
