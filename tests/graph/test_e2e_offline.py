"""Offline end-to-end research on real indexes (real Chroma, BM25, MiniLM): plan -> review -> steps ->
cited answer, every citation checked against the catalog."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from core.config import Settings
from core.graph.deps import build_deps
from core.graph.nodes_step import SHORT_ITEM_PASSAGES
from core.graph.runner import ResearchRunner
from core.index.catalog import Catalog
from core.models import RunRecord
from core.text.sentences import normalise_ws


def _runner(data_dir, *, facts: bool = True) -> tuple[ResearchRunner, Settings]:
    settings = Settings(data_dir=data_dir, web_search_enabled=False)

    def deps():
        built = build_deps(settings)
        return (
            built if facts else replace(built, facts=None)
        )  # as for a filing indexed before facts were kept

    return ResearchRunner(settings, deps), settings


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
    plan = record.plan.steps
    # The anchor (the question as asked), the figures (segment revenue in MD&A, R&D in the income
    # statement), a calculator step for the filing's figures, and the risks in Item 1A.
    assert plan[0].is_anchor and plan[0].sub_question == question
    assert [s.tool for s in plan].count("calculator") == 1  # both figures of the filing, computed together
    assert any(s.document_section == "Item 1A" and "competition" in s.sub_question for s in plan)
    assert any("Fleet Software" in s.sub_question and s.document_section is None for s in plan)
    record = runner.approve_plan(record.run_id)
    assert record.status == "finished", record.error
    _check_citations(record, settings)
    anchor = record.steps[0]
    assert len(anchor.evidence) == 10  # as much as one plain search of the question keeps
    risks = next(s for s in record.steps if s.document_section == "Item 1A")
    assert all(e.section == "Item 1A" for e in risks.evidence)
    assert any("competit" in c.claim.lower() for c in risks.cards)
    # Every candidate carries its first-stage and rerank scores; the kept ones are the reranker's top.
    kept = {e.chunk_id for e in risks.evidence}
    assert len(risks.candidates) > len(kept) == settings.top_n
    assert all(c.scores and c.scores.rerank is not None for c in risks.candidates)
    assert {c.chunk_id for c in risks.candidates if c.scores.rerank_rank <= settings.top_n} == kept
    claims = " ".join(c.claim for s in record.steps if s.tool == "calculator" for c in s.cards)
    assert "+44.0%" in claims and "+20.0%" in claims
    # The answer states the figures first, each computed from cited table rows.
    head = record.answer.replace("\\$", "$").split("### ")[0]
    assert "$112.5" in head and "+44.0%" in head and "+20.0%" in head
    assert record.plan_history[0].author == "planner" and record.timings["retrieve_evidence"] > 0
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
    competition = next(s for s in record.steps if s.document_section == "Item 1A")
    assert len(competition.cards) >= 2 and sum("compet" in c.claim.lower() for c in competition.cards) >= 2
    cards = " ".join(c.claim for s in record.steps for c in s.cards).lower()
    assert "research and development" in cards and "data center" in cards
    claims = [c.claim for s in record.steps for c in s.cards]
    assert len(claims) == len(set(claims))
    lowered = record.answer.lower()
    assert "forward-looking" not in lowered and "table of contents" not in lowered
    runner.close()


@pytest.mark.slow
def test_a_narrative_search_reads_on_past_the_passages_it_found(sample_index) -> None:
    """After a prose search, reflection adds a step that reads the passages following the best hits in the
    same section, or the whole of a short one (they may share no word with the question); it searches nothing
    and repeats nothing."""
    data_dir, filing_id = sample_index
    runner, settings = _runner(data_dir)
    record = runner.approve_plan(
        runner.start("What competition risks does Northwind face?", [filing_id]).run_id
    )
    assert record.status == "finished", record.error
    read_on = next(s for s in record.steps if s.reads_on_from)
    assert read_on.origin == "reflection" and read_on.strategy is None and read_on.evidence
    catalog = Catalog(settings.catalog_path)
    starts = catalog.get_chunks(read_on.reads_on_from)
    before = {e.chunk_id for s in record.steps[: read_on.index] for e in s.evidence}
    assert set(read_on.reads_on_from) <= before
    for chunk in catalog.get_chunks([e.chunk_id for e in read_on.evidence]):
        assert chunk.chunk_id not in before
        # What follows a hit (three passages at most), or a short Item's other passages (read whole).
        assert any(
            chunk.section == s.section
            and (0 < chunk.chunk_index - s.chunk_index <= 3 or catalog.section_chunks(s, SHORT_ITEM_PASSAGES))
            for s in starts
        ), chunk.chunk_id
    _check_citations(record, settings)
    runner.close()


@pytest.mark.slow
def test_reflection_follow_up_finds_what_the_first_search_missed(sample_index) -> None:
    """Where the calculator reads only the pages the research found (a filing indexed before its table rows
    were kept as facts), an input the planned search did not reach becomes a follow-up search of the whole
    filing; the calculation re-runs after it and states the figure. Step mode lets the analyst see and edit
    the steps reflection added. (With facts, the figure is found at once: see the next test.)"""
    from core.models import Plan, PlanStep

    data_dir, filing_id = sample_index
    runner, settings = _runner(data_dir, facts=False)
    question = "What was Northwind's Fleet Software gross margin in FY2025?"
    record = runner.start(question, [filing_id], step_mode=True)
    # The analyst drops the anchor and points the search at the wrong Item: the table is in Item 7.
    plan = Plan(
        steps=[
            PlanStep(
                step_id="",
                sub_question="Northwind Fleet Software gross margin FY2025",
                document_section="Item 1A",
                filing_id=filing_id,
            ),
            PlanStep(
                step_id="",
                sub_question="Calculate the Fleet Software gross margin for FY2025.",
                tool="calculator",
                filing_id=filing_id,
            ),
        ]
    )
    record = runner.approve_plan(record.run_id, plan)
    record = runner.continue_run(record.run_id)  # past the search step
    # A search for figures only is not read on from: the calculator comes next.
    assert record.status == "paused_after_step" and len(record.steps) == 2
    calc = record.steps[1]
    assert calc.missing == ["Fleet Software gross margin for FY2025"] and not calc.cards
    added = [s for s in record.plan.steps if s.origin == "reflection"]
    assert [s.reason for s in added] == [
        "added by reflection: Fleet Software gross margin for FY2025 not found",
        "re-run after the follow-up searches",
    ]
    assert added[0].document_section is None and "Fleet Software gross margin" in added[0].sub_question
    assert record.plan_history[-1].author == "reflection"
    # The added steps are part of the remaining plan the analyst may edit at the pause.
    assert [s["step_id"] for s in record.pending["remaining_plan"]["steps"]] == [s.step_id for s in added]
    remaining = Plan(steps=[added[0].model_copy(update={"keywords": ["gross margin by segment"]}), added[1]])
    record = runner.continue_run(record.run_id, remaining)
    while record.status == "paused_after_step":
        record = runner.continue_run(record.run_id)
    assert record.status == "finished", record.error
    follow_up, rerun = record.steps[2], record.steps[3]
    assert follow_up.keywords == ["gross margin by segment"] and follow_up.origin == "reflection"
    assert any(e.section == "Item 7" for e in follow_up.evidence)
    assert rerun.cards and "81.0%" in rerun.cards[0].claim and rerun.missing == []
    assert "81.0%" in record.answer.split("### ")[0]
    _check_citations(record, settings)
    runner.close()


@pytest.mark.slow
def test_a_figure_outside_the_pages_searched_is_read_from_the_filing_s_facts(sample_index) -> None:
    """The same misdirected plan with the filing's facts: the calculator finds the row wherever it is printed,
    cites it, and no follow-up is needed; the answer's paragraph states it first."""
    from core.models import Plan, PlanStep

    data_dir, filing_id = sample_index
    runner, settings = _runner(data_dir)
    record = runner.start("What was Northwind's Fleet Software gross margin in FY2025?", [filing_id])
    plan = Plan(
        steps=[
            PlanStep(
                step_id="", sub_question="Northwind Fleet Software gross margin FY2025", document_section="Item 1A",
                filing_id=filing_id,
            ),
            PlanStep(
                step_id="", sub_question="Calculate the Fleet Software gross margin for FY2025.", tool="calculator",
                filing_id=filing_id,
            ),
        ]
    )  # fmt: skip
    record = runner.approve_plan(record.run_id, plan)
    assert record.status == "finished", record.error
    calc = record.steps[1]
    assert calc.missing == [] and "81.0%" in calc.cards[0].claim
    assert not [s for s in record.plan.steps if s.origin == "reflection"]
    lead = record.answer.split("## Answer", 1)[1].strip().split("\n", 1)[0]
    assert lead.startswith("Fleet Software gross margin was 81.0% in FY2025")
    _check_citations(record, settings)
    runner.close()
