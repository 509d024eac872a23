"""Offline end-to-end research on real indexes (real Chroma, BM25, MiniLM): plan -> review -> steps ->
cited answer, every citation checked against the catalog."""

from __future__ import annotations

import re

import pytest

from core.config import Settings
from core.graph.deps import build_deps
from core.graph.records import RunRecord
from core.graph.runner import ResearchRunner
from core.index.catalog import Catalog
from core.tools.sentences import normalise_ws


def _runner(data_dir) -> tuple[ResearchRunner, Settings]:
    settings = Settings(data_dir=data_dir, web_search_enabled=False)
    return ResearchRunner(settings, lambda: build_deps(settings)), settings


def _check_citations(record: RunRecord, settings: Settings) -> None:
    catalog = Catalog(settings.catalog_path)
    chunks = {c.chunk_id: c for c in catalog.get_chunks([c.chunk_id for c in record.citations if c.chunk_id])}
    assert record.citations
    for citation in record.citations:
        chunk = chunks[citation.chunk_id]
        assert normalise_ws(citation.quote) in normalise_ws(chunk.text)
        assert citation.section == chunk.section and citation.page == chunk.page
    cited = {int(n) for n in re.findall(r"(?<!\\)\[(\d+)\]", record.answer)}
    assert cited <= {c.number for c in record.citations}
    assert record.unsupported_claims == []


@pytest.mark.slow
def test_sample_filing_multi_hop(sample_index) -> None:
    data_dir, filing_id = sample_index
    runner, settings = _runner(data_dir)
    question = (
        "What competition risks does Northwind list, and how did its Fleet Software segment revenue and R&D "
        "spending change in FY2025?"
    )
    record = runner.start(question, [filing_id])
    assert record.status == "awaiting_plan_review"
    assert [s.tool for s in record.plan.steps] == ["search_10k", "search_10k", "calculator"]
    record = runner.approve_plan(record.run_id)
    assert record.status == "finished", record.error
    _check_citations(record, settings)
    risks, figures, calc = record.steps
    assert all(e.section == "Item 1A" for e in risks.evidence)
    assert any("competit" in c.claim.lower() for c in risks.cards)
    assert all(e.section == "Item 7" for e in figures.evidence)
    # Every candidate carries its first-stage and rerank scores; the kept ones are the reranker's top.
    kept = {e.chunk_id for e in risks.evidence}
    assert len(risks.candidates) > len(kept) == settings.top_n
    assert all(c.scores and c.scores.rerank is not None for c in risks.candidates)
    assert {c.chunk_id for c in risks.candidates if c.scores.rerank_rank <= settings.top_n} == kept
    claims = " ".join(c.claim for c in calc.cards)
    assert "+44.0%" in claims and "+20.0%" in claims
    answer = record.answer.replace("\\$", "$")
    assert "$112.5 million" in answer and "+44.0%" in answer
    assert len(record.plan_history) == 1 and record.timings["retrieve_evidence"] > 0
    runner.close()


@pytest.mark.slow
def test_nvidia_quality_question(nvda_index) -> None:
    data_dir, filing_id = nvda_index
    runner, settings = _runner(data_dir)
    question = (
        "From NVIDIA's FY2023 10-K, what competition risks does it list, and how do its R&D and Data Center "
        "results relate to them?"
    )
    record = runner.approve_plan(runner.start(question, [filing_id]).run_id)
    assert record.status == "finished", record.error
    _check_citations(record, settings)
    competition, rnd, data_center = record.steps
    assert competition.document_section == "Item 1A" and len(competition.cards) >= 2
    assert sum("compet" in c.claim.lower() for c in competition.cards) >= 2
    assert any("research and development" in c.claim.lower() for c in rnd.cards)
    assert any("$15.01 billion" in c.claim for c in data_center.cards)
    claims = [c.claim for s in record.steps for c in s.cards]
    assert len(claims) == len(set(claims))
    lowered = record.answer.lower()
    assert "forward-looking" not in lowered and "table of contents" not in lowered
    runner.close()
