"""The retrieval funnel on a real small index: filters, widening, stage scores, reranking."""

from __future__ import annotations

import pytest

from core.models import STRATEGIES
from core.retrieval.local_rerank import LocalReranker
from core.retrieval.retriever import Retriever


@pytest.fixture(scope="module")
def retriever(small_store) -> Retriever:
    return Retriever(small_store, reranker=LocalReranker(small_store.embedder, vectors=small_store.vectors))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_section_and_filing_filters_apply_to_every_search(retriever: Retriever, strategy: str) -> None:
    result = retriever.strategy_search(strategy, "competition risk", k=3, section="Item 1A", filings=["acme"])
    assert result.candidates, "the filtered slice has matching passages"
    assert all(c.chunk.filing_id == "acme" and c.chunk.section == "Item 1A" for c in result.candidates)
    assert not result.widened and result.widen_note is None
    assert result.section_filter == "Item 1A" and result.filing_filter == ["acme"]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_filing_filter_alone(retriever: Retriever, strategy: str) -> None:
    result = retriever.strategy_search(strategy, "Beta robot sales competition", k=3, filings=["beta"])
    assert result.candidates and all(c.chunk.filing_id == "beta" for c in result.candidates)
    unfiltered = retriever.strategy_search(strategy, "competition", k=15)
    assert {c.chunk.filing_id for c in unfiltered.candidates} == {"acme", "beta"}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_section_filter_across_all_filings(retriever: Retriever, strategy: str) -> None:
    result = retriever.strategy_search(strategy, "competition risk factors", k=5, section="Item 1A")
    assert len(result.candidates) == 5
    assert all(c.chunk.section == "Item 1A" for c in result.candidates)
    assert {c.chunk.filing_id for c in result.candidates} == {"acme", "beta"}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_too_few_section_chunks_widens_to_the_filing(retriever: Retriever, strategy: str) -> None:
    result = retriever.strategy_search(strategy, "competition", k=6, section="Item 1A", filings=["acme"])
    assert result.widened and "Item 1A" in result.widen_note and "3 passages" in result.widen_note
    sections = [c.chunk.section for c in result.candidates]
    assert len(sections) == 6 and all(c.chunk.filing_id == "acme" for c in result.candidates)
    # The Item the analyst asked for comes first; the rest fills from the same filing.
    assert sections[:3] == ["Item 1A"] * 3 and "Item 1A" not in sections[3:]
    assert [c.widened for c in result.candidates] == [False] * 3 + [True] * 3


@pytest.mark.parametrize("strategy", ["vector", "keyword", "hybrid"])
def test_widened_candidates_are_evidence_only_when_the_item_runs_out(
    retriever: Retriever, strategy: str
) -> None:
    # A query that favours passages outside Item 1A: the reranker may prefer them, the filter still wins.
    query = "competition, revenue growth in fiscal 2023 and operating margin"
    for top_n in (2, 5):
        result = retriever.search(
            query, strategy=strategy, k=6, top_n=top_n, section="Item 1A", filings=["acme"]
        )
        inside = sum(1 for c in result.candidates if not c.widened)
        assert result.widened and 1 <= inside < len(result.candidates)
        expected = [False] * min(inside, top_n) + [True] * max(0, top_n - inside)
        assert [c.widened for c in result.chunks] == expected
        assert all(c.chunk.section == "Item 1A" for c in result.chunks if not c.widened)
        assert [c.scores.rerank_rank for c in result.chunks] == list(range(1, top_n + 1))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_missing_section_searches_that_filing_whole(retriever: Retriever, strategy: str) -> None:
    result = retriever.strategy_search(
        strategy, "revenue in fiscal 2023", k=2, section="Item 7", filings=["beta"]
    )
    assert result.widened and "Beta Inc" in result.widen_note and "Item 7" in result.widen_note
    assert result.candidates and all(c.chunk.filing_id == "beta" for c in result.candidates)


def test_mixed_filings_keep_the_filter_where_it_exists(retriever: Retriever) -> None:
    result = retriever.strategy_search(
        "keyword", "revenue fiscal 2023", k=3, section="Item 7", filings=["acme", "beta"]
    )
    assert result.widened and "Beta Inc" in result.widen_note
    for c in result.candidates:
        assert c.chunk.filing_id == "beta" or c.chunk.section == "Item 7"
    assert {c.chunk.filing_id for c in result.candidates} == {"acme", "beta"}


def test_stage_scores_are_recorded(retriever: Retriever) -> None:
    vector = retriever.strategy_search("vector", "operating margin pressure", k=3, filings=["acme"])
    assert [c.scores.vector_rank for c in vector.candidates] == [1, 2, 3]
    assert vector.candidates[0].scores.vector >= vector.candidates[-1].scores.vector
    keyword = retriever.strategy_search("keyword", "operating margin", k=3, filings=["acme"])
    assert keyword.candidates[0].scores.keyword_rank == 1 and keyword.candidates[0].scores.bm25 > 0
    assert "margin" in keyword.candidates[0].chunk.text.lower()
    hybrid = retriever.strategy_search("hybrid", "operating margin", k=3, filings=["acme"])
    top = hybrid.candidates[0].scores
    assert top.fused_rank == 1 and top.fused > 0 and top.vector_rank and top.keyword_rank


def test_numbers_match_in_keyword_search(retriever: Retriever) -> None:
    result = retriever.strategy_search("keyword", "What was the 1,577 figure?", k=1)
    assert "$1,577" in result.candidates[0].chunk.text


def test_search_funnel_reranks_to_top_n(retriever: Retriever) -> None:
    result = retriever.search("What risks does competition pose?", strategy="hybrid", filings=["acme"], k=5)
    assert len(result.candidates) == 5 and len(result.chunks) == 2  # settings.top_n
    assert result.reranker == LocalReranker.name
    assert [c.scores.rerank_rank for c in result.chunks] == [1, 2]
    assert all(c.scores.rerank is None for c in result.candidates), "candidates stay pre-rerank"
    assert result.chunks[0].scores.fused_rank is not None, "earlier stage scores survive reranking"
    ids = {c.chunk.chunk_id for c in result.candidates}
    assert {c.chunk.chunk_id for c in result.chunks} <= ids


def test_auto_strategy_is_justified(retriever: Retriever) -> None:
    result = retriever.search('Find "supply chain disruption" in the risk factors', filings=["acme"])
    assert result.strategy == "keyword" and "quoted" in result.justification
    assert "supply chain disruption" in result.chunks[0].chunk.text


def test_no_rerank_keeps_first_stage_order(retriever: Retriever) -> None:
    result = retriever.search("cash flows", strategy="vector", rerank=False, k=3, top_n=2)
    assert result.reranker is None
    assert [c.chunk.chunk_id for c in result.chunks] == [c.chunk.chunk_id for c in result.candidates[:2]]


def test_default_reranker_is_named_and_fallback_recorded(small_store) -> None:
    retriever = Retriever(small_store)
    result = retriever.search("competition", k=3)
    assert result.reranker == retriever.reranker.name
    if retriever.fallback is not None:  # no cross-encoder on this machine: the fallback says so
        assert "local scorer" in result.reranker and retriever.fallback.component == "reranker"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_section_over_all_filings_when_one_lacks_it(retriever: Retriever, strategy: str) -> None:
    result = retriever.strategy_search(strategy, "revenue in fiscal 2023", k=3, section="Item 7")
    assert result.widened and "Beta Inc" in result.widen_note and "Acme" not in result.widen_note
    for c in result.candidates:
        assert c.chunk.filing_id == "beta" or c.chunk.section == "Item 7"


def test_unknown_filing_gives_an_empty_result(retriever: Retriever) -> None:
    result = retriever.search("competition", filings=["no-such-filing"], section="Item 1A")
    assert result.candidates == [] and result.chunks == []


def test_search_routes_to_the_named_company(retriever: Retriever) -> None:
    result = retriever.search("What competition risks does Beta Inc face?", k=3)  # routing is the default
    assert result.filing_filter == ["beta"] and "Beta Inc" in result.justification
    assert result.route_note and "Beta Inc" in result.route_note
    assert all(c.chunk.filing_id == "beta" for c in result.candidates)
    # Within a given list of filings too; one filing in scope is never narrowed further.
    within = retriever.search("What competition risks does Beta Inc face?", k=3, filings=["acme", "beta"])
    assert within.filing_filter == ["beta"]
    assert retriever.search("Beta Inc competition", k=3, filings=["acme"]).route_note is None
    unrouted = retriever.search("What competition risks does Beta Inc face?", k=15, route=False)
    assert unrouted.filing_filter is None and unrouted.route_note is None
    assert {c.chunk.filing_id for c in unrouted.candidates} == {"acme", "beta"}
