"""The funnel end to end on the sample 10-K, ingested through the real pipeline."""

from __future__ import annotations

import pytest

from tests.conftest import SAMPLE_DOCS

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    from core.config import Settings
    from core.index.store import IndexStore
    from core.ingest.pipeline import ingest_file
    from core.retrieval.retriever import Retriever

    path = SAMPLE_DOCS / "northwind_10k_fy2025.html"
    if not path.exists():
        pytest.skip("sample filing not present")
    store = IndexStore.open(Settings(data_dir=tmp_path_factory.mktemp("sample")))
    result = ingest_file(store, path.read_bytes(), path.name)
    assert result.ok and result.filing is not None, result.error
    return Retriever(store), result.filing


def test_small_item_is_widened_but_comes_first(sample) -> None:
    retriever, filing = sample
    count = filing.sections.get("Item 1C", 0)
    assert 0 < count < 10, "the sample's cybersecurity Item is short"
    result = retriever.search(
        "How is cybersecurity risk managed?", section="Item 1C", filings=[filing.filing_id]
    )
    assert result.widened and "Item 1C" in result.widen_note
    assert [c.chunk.section for c in result.candidates[:count]] == ["Item 1C"] * count
    assert result.chunks[0].chunk.section == "Item 1C"


@pytest.mark.parametrize("strategy", ["vector", "keyword", "hybrid", "auto"])
def test_every_strategy_respects_the_item_filter(sample, strategy: str) -> None:
    retriever, _ = sample
    result = retriever.search("competition", strategy=strategy, section="Item 1A", k=5)
    assert not result.widened
    assert result.candidates and all(c.chunk.section == "Item 1A" for c in result.candidates)
    assert result.reranker and result.chunks


def test_risk_question_finds_risk_factors_without_a_filter(sample) -> None:
    retriever, _ = sample
    result = retriever.search("What are the main risks from competition?", k=10, top_n=3)
    assert any(c.chunk.section == "Item 1A" for c in result.chunks)
