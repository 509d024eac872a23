"""Statement pages join the candidates of a figure question, and the local scorer reads their rows."""

from __future__ import annotations

import pytest

from core.models import ScoredChunk, StageScores
from core.retrieval.analysis import analyze_query
from core.retrieval.local_rerank import LocalReranker, _table_match
from core.retrieval.retriever import Retriever
from tests.retrieval.conftest import _chunks, _filing

CASH_FLOW_PAGE = """ACME CORP
CONSOLIDATED STATEMENTS OF CASH FLOWS
(in millions) 2023 2022 2021
Net income 512 488 430
Depreciation and amortization 140 133 120
Net cash provided by operating activities 702 655 590
Purchases of property, plant and equipment (310) (280) (260)
Acquisitions, net of cash acquired (45) (12) —
Net cash used in investing activities (355) (292) (260)
Dividends paid (96) (90) (84)
Net cash used in financing activities (150) (140) (120)"""

PAGES = [
    ("Item 1", "Acme Corp designs industrial robots for factories and warehouses around the world."),
    ("Item 7", "Capital spending focused on new plants; we expect capital expenditures to rise next year."),
    ("Item 7", "Liquidity and capital resources: cash and investments fund operations and expansion plans."),
    ("Item 8", CASH_FLOW_PAGE),
    ("Item 8", "Notes: property, plant and equipment is stated at cost less accumulated depreciation."),
]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    from core.config import Settings
    from core.index.store import IndexStore

    store = IndexStore.open(Settings(data_dir=tmp_path_factory.mktemp("statements"), k=3, top_n=3))
    chunks = _chunks("acme", "Acme Corp", PAGES)
    with store.catalog.transaction() as conn:
        store.catalog.insert_filing(conn, _filing("acme", "Acme Corp", chunks), chunks)
    store.vectors.add(chunks, store.embedder.embed_documents([c.text for c in chunks]))
    store.keywords.add_filing("acme", chunks)
    return store


def _retriever(store) -> Retriever:
    return Retriever(store, reranker=LocalReranker(store.embedder, vectors=store.vectors))


def test_figure_question_names_its_statement_and_line_items() -> None:
    capex = analyze_query("What is the FY2023 capital expenditure amount (in USD millions) for Acme?")
    assert capex.statements == ["cash_flow"] and capex.line_items == ["capex"]
    named = analyze_query("Using the balance sheet, how did Acme's liquidity change in FY2023?")
    assert "balance" in named.statements
    assert analyze_query("What are Acme's main competition risks?").statements == []


def test_statement_page_joins_the_candidates_and_ranks_first(store) -> None:
    question = "What is the FY2023 capital expenditure amount (in USD millions) for Acme?"
    result = _retriever(store).search(question, strategy="vector", k=2, top_n=3, filings=["acme"])
    on_statement = [c for c in result.candidates if c.scores.statement_rank is not None]
    assert [c.chunk.page for c in on_statement] == [4]
    assert result.chunks[0].chunk.page == 4, [c.chunk.page for c in result.chunks]


def test_statement_pages_respect_another_item_filter_and_narrative_questions(store) -> None:
    retriever = _retriever(store)
    question = "What is the FY2023 capital expenditure amount for Acme?"
    in_mdna = retriever.search(question, strategy="vector", k=2, section="Item 7", filings=["acme"])
    assert all(c.scores.statement_rank is None for c in in_mdna.candidates)
    narrative = retriever.search("What does Acme make?", strategy="vector", k=2, filings=["acme"])
    assert all(c.scores.statement_rank is None for c in narrative.candidates)


def test_table_signal_reads_statement_and_row_label(store) -> None:
    analysis = analyze_query("What was Acme's FY2023 capital expenditure?")
    page, notes = _chunks("acme", "Acme Corp", [PAGES[3], PAGES[4]])
    on_page = ScoredChunk(chunk=page, score=0.0, scores=StageScores(statement_rank=1))
    row_only = ScoredChunk(chunk=page, score=0.0)
    assert _table_match(on_page, analysis) == 1.0
    assert _table_match(row_only, analysis) == 0.5  # a row labelled as capex, page not known as a statement
    assert _table_match(ScoredChunk(chunk=notes, score=0.0), analysis) == 0.0
    assert _table_match(on_page, analyze_query("What does Acme make?")) == 0.0


def test_statement_page_rank_is_a_first_stage_rank_for_the_prior() -> None:
    from core.retrieval.local_rerank import _prior

    page, notes = _chunks("acme", "Acme Corp", [PAGES[3], PAGES[4]])
    found = ScoredChunk(chunk=notes, score=0.1, scores=StageScores(fused_rank=2))
    statement = ScoredChunk(chunk=page, score=0.0, scores=StageScores(statement_rank=1))
    unranked = ScoredChunk(chunk=notes, score=0.0)
    assert _prior([found, statement, unranked]) == [0.5, 1.0, 0.0]


def test_statement_pages_are_found_again_after_the_filing_is_rewritten(store) -> None:
    """A re-index rewrites a filing's catalog rows (and drops its saved statement pages): a reader that had
    them in memory reads the new passages, not the ones it remembered."""
    from core.retrieval.pages import PageReader

    reader = PageReader(store.catalog)
    (page,) = reader.statement_pages("acme", "cash_flow")[:1]
    assert "702" in page.text
    chunks = _chunks(
        "acme", "Acme Corp", [*PAGES[:3], ("Item 8", CASH_FLOW_PAGE.replace("702", "703")), PAGES[4]]
    )
    with store.catalog.transaction() as conn:
        store.catalog.delete_filing_rows(conn, "acme")
        store.catalog.insert_filing(conn, _filing("acme", "Acme Corp", chunks), chunks)
    (page,) = reader.statement_pages("acme", "cash_flow")[:1]
    assert "703" in page.text and "702" not in page.text
