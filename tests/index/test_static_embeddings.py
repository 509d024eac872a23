"""The static model distilled from the bundled MiniLM, and a library indexed with it (candidates rescored
by MiniLM at query time)."""

from __future__ import annotations

import numpy as np
import pytest

from core.config import BUNDLED_EMBEDDING_MODEL, Settings
from core.index import static_embeddings
from core.index.embeddings import get_embedder
from core.index.static_embeddings import STATIC_DIMENSIONS, STATIC_EMBEDDING_MODEL, StaticEmbedder
from core.index.store import IndexStore
from core.ingest.pipeline import ingest_file
from core.retrieval.retriever import Retriever
from tests.conftest import SAMPLE_DOCS


@pytest.fixture(scope="module")
def model_cache(tmp_path_factory):
    """A fresh folder for distilled tables, so the distillation itself runs in this module."""
    folder = tmp_path_factory.mktemp("model-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WORKBENCH_MODEL_CACHE", str(folder))
        yield folder


@pytest.fixture(scope="module")
def static(model_cache):
    embedder = StaticEmbedder(source=get_embedder)
    embedder.embed_query("warm")  # distils the table into model_cache
    return embedder


def test_distilled_from_the_bundled_model_and_kept_for_the_next_process(static, model_cache, monkeypatch):
    minilm = get_embedder(BUNDLED_EMBEDDING_MODEL)
    table = static._table
    assert table.shape == (minilm._model.tokenizer.vocab_size, STATIC_DIMENSIONS)
    assert np.isfinite(table).all()
    saved = list(model_cache.glob(f"{STATIC_EMBEDDING_MODEL}-v*.npy"))
    assert len(saved) == 1 and not list(model_cache.glob("*.partial"))

    def no_second_distillation(*_args, **_kwargs):
        raise AssertionError("the saved table should be read, not distilled again")

    monkeypatch.setattr(static_embeddings, "distil_token_table", no_second_distillation)
    again = StaticEmbedder(source=get_embedder)
    assert np.array_equal(again._table, table)


def test_passages_are_unit_vectors_that_keep_meaning(static):
    revenue, sales, board = static.embed_documents(
        [
            "Net revenue increased 12% driven by higher sales volume",
            "Total net sales grew because more units were sold",
            "The board of directors held four meetings during the year",
        ]
    )
    assert np.allclose(np.linalg.norm([revenue, sales, board], axis=1), 1.0, atol=1e-5)
    assert revenue @ sales > revenue @ board + 0.2
    assert revenue @ sales > sales @ board + 0.2
    # Text with no tokens embeds as zeros, never as NaN.
    assert not np.isnan(static.embed_query("")).any()
    assert static.embed_documents([]).shape == (0, STATIC_DIMENSIONS)


def test_chunks_are_sized_in_the_source_models_tokens(static):
    minilm = get_embedder(BUNDLED_EMBEDDING_MODEL)
    text = "Operating income rose to $4.2 billion, reflecting higher gross margin. " * 20
    assert static.count_tokens(text) == minilm.count_tokens(text)
    assert static.max_tokens == minilm.max_tokens


def test_a_static_library_is_searched_and_its_candidates_rescored_by_minilm(static, tmp_path):
    settings = Settings(data_dir=tmp_path / "data", embedding_model=STATIC_EMBEDDING_MODEL)
    store = IndexStore.open(settings)
    try:
        assert store.rescores and store.reader.model_name == BUNDLED_EMBEDDING_MODEL
        sample = SAMPLE_DOCS / "northwind_10k_fy2025.html"
        result = ingest_file(store, sample.read_bytes(), sample.name)
        assert result.ok, result.error
        assert store.vectors.count([result.filing.filing_id]) == result.filing.chunks
        retriever = Retriever(store)
        found = retriever.search("What risks does the company see from competition?", top_n=5)
        assert found.chunks, "a static library answers a search"
        assert any(c.chunk.section == "Item 1A" for c in found.chunks)
        # The rescoring read the candidates with MiniLM and kept their vectors for the next search.
        candidates = [c.chunk.indexed_text for c in found.candidates]
        kept = store.embedding_cache._get(
            [store.embedding_cache._key(BUNDLED_EMBEDDING_MODEL, text) for text in candidates]
        )
        assert len(kept) == len(set(candidates)) > 0
        assert all(vector.shape == (get_embedder().dimension,) for vector in kept.values())
        # The static vectors rank too coarsely to join the fusion: a hybrid pool is the keyword list's.
        hybrid = retriever.strategy_search("hybrid", "competition risks and pricing pressure", k=10)
        assert hybrid.candidates
        assert all(
            c.scores.keyword_rank is not None and c.scores.vector_rank is None for c in hybrid.candidates
        )
    finally:
        store.close()


def test_an_upload_to_a_static_library_gets_its_rescoring_vectors_in_the_background(static, tmp_path):
    from core.service import Workbench

    bench = Workbench(Settings(data_dir=tmp_path / "data", embedding_model=STATIC_EMBEDDING_MODEL))
    try:
        sample = SAMPLE_DOCS / "northwind_10k_fy2025.html"
        [result] = bench.ingest([(sample.name, sample.read_bytes())])
        assert result.ok, result.error
        assert bench.warming, "a background fill started for the new filing"
        for thread in bench.warming:
            thread.join(timeout=300)
        store = bench.store
        texts = [c.indexed_text for c in store.catalog.list_chunks(result.filing.filing_id)]
        keys = [store.embedding_cache._key(BUNDLED_EMBEDDING_MODEL, text) for text in texts]
        assert len(store.embedding_cache._get(keys)) == len(set(keys))
        assert store.warm_reader(result.filing.filing_id) == 0, "a second fill finds every vector kept"
    finally:
        bench.close()
