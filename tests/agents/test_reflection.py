"""Reflection finds what the question still lacks; the policy turns each gap into exactly one follow-up."""

from __future__ import annotations

import os
import subprocess
import sys

from core.agents.base import AgentDeps
from core.agents.contracts import PolicyInput, ReflectInput, RewriteInput, StepDigest
from core.agents.policy import offline_decide
from core.agents.reflector import offline_reflect
from core.agents.rewriter import offline_rewrite
from core.config import Settings
from core.graph.answering import evidence_pool
from core.models import Evidence, Gap, KnowledgeCard, ResearchNote
from tests.conftest import REPO_ROOT

DEPS = AgentDeps(settings=Settings())


def test_missing_calculator_inputs_become_searches_of_the_whole_filing():
    note = offline_reflect(
        ReflectInput(
            sub_question="Calculate the quick ratio for FY2018.",
            tool="calculator",
            filing_id="f1",
            company="Acme",
            missing=["total current liabilities for FY2018", "Fleet Software revenue for FY2017"],
        ),
        DEPS,
    )
    first, second = note.gaps
    assert first.description == "total current liabilities for FY2018 not found"
    assert "Acme" in first.query and "2018" in first.query and "balance" in first.query.lower()
    assert first.document_section is None and first.filing_id == "f1"
    assert "Fleet Software revenue" in second.query and "2017" in second.query


def test_a_quarters_missing_input_is_searched_with_its_part_and_its_quarter():
    note = offline_reflect(
        ReflectInput(
            sub_question="What is the Cloud Services revenue amount for Q1 FY2023?",
            tool="calculator",
            filing_id="f1",
            company="Acme",
            missing=["Cloud Services revenue for Q1 FY2023"],
        ),
        DEPS,
    )
    [gap] = note.gaps
    assert gap.query.startswith("Acme Cloud Services revenue Q1 FY2023 ")
    # A quarter's name is not printed in its columns: no keyword asks for it.
    assert not any("Q1" in keyword for keyword in gap.keywords)


def test_an_empty_item_search_is_retried_over_the_whole_filing():
    note = offline_reflect(
        ReflectInput(
            sub_question="Who audits Acme?", document_section="Item 3", filing_id="f1", keywords=["auditor"]
        ),
        DEPS,
    )
    [gap] = note.gaps
    assert gap.document_section is None and gap.query == "Who audits Acme?" and "Item 3" in gap.description
    found = offline_reflect(
        ReflectInput(
            sub_question="Who audits Acme?",
            document_section="Item 9",
            evidence=[Evidence(evidence_id="S1-E1", text="KPMG LLP has audited ...")],
        ),
        DEPS,
    )
    assert found.gaps == []


def _policy(gaps, *, handled=(), planned=3, done=2, max_steps=10, remaining=()):
    return PolicyInput(
        question="q",
        steps_done=done,
        max_steps=max_steps,
        remaining=list(remaining),
        remaining_tools=["search_10k"] * len(remaining),
        new_claims_per_step=[1] * done,
        tools_done=["search_10k"] * done,
        last_note=ResearchNote(gaps=gaps),
        planned_steps=planned,
        handled_gaps=list(handled),
    )


def test_policy_follows_up_each_new_gap_once_within_the_budget():
    gaps = [Gap(description=f"gap {i}", query=f"q{i}") for i in range(5)]
    decision = offline_decide(_policy(gaps), DEPS)
    assert decision.action == "continue" and [g.description for g in decision.follow_ups] == [
        "gap 0",
        "gap 1",
        "gap 2",
    ]
    # Gaps that already have a follow-up are not researched again.
    decision = offline_decide(_policy(gaps[:2], handled=["gap 0", "gap 1"]), DEPS)
    assert decision.follow_ups == [] and decision.action == "finish" and "no gap remains" in decision.reason
    # The step budget bounds the follow-ups.
    decision = offline_decide(_policy(gaps, planned=9, done=8, max_steps=10), DEPS)
    assert len(decision.follow_ups) == 1
    decision = offline_decide(_policy(gaps, planned=10, done=10, max_steps=10), DEPS)
    assert decision.action == "finish" and decision.follow_ups == []


def test_rewriter_keeps_entities_years_and_adds_line_items():
    out = offline_rewrite(
        RewriteInput(
            question="What was Acme's FY2024 capex?",
            sub_question="What was Acme Tools' capex in FY2024?",
            company="Acme Tools Corp",
        ),
        DEPS,
    )
    assert "Acme" in out.query and "FY2024" in out.query
    assert "purchases of property plant and equipment" in out.query


def test_evidence_pool_deduplicates_and_credits_every_step():
    shared = Evidence(evidence_id="S1-E1", text="Revenue was $5.", chunk_id="c1")
    again = shared.model_copy(update={"evidence_id": "S2-E3"})
    other = Evidence(evidence_id="S2-E1", text="Costs were $3.", chunk_id="c2")
    quoted = shared.model_copy(update={"evidence_id": "S3-E2", "quote": "Revenue was $5."})
    digests = [
        StepDigest(index=0, sub_question="a", tool="search_10k", evidence=[shared]),
        StepDigest(index=1, sub_question="b", tool="search_10k", evidence=[other, again]),
        StepDigest(index=2, sub_question="c", tool="calculator", evidence=[quoted]),
    ]
    pool = evidence_pool(digests)
    assert [(e.evidence_id, e.found_by) for e in pool] == [("S1-E1", [0, 1]), ("S2-E1", [1]), ("S3-E2", [2])]


def test_units_and_currencies_are_not_missing_topics():
    from core.agents.reflector import missing_keywords

    text = "Purchases of property, plant and equipment were $1,577 million in fiscal 2023."
    keywords = ["USD", "millions", "USD millions", "percent", "capex", "FY2023", "Greater China"]
    assert missing_keywords(keywords, text) == ["Greater China"]
    # What the question asks a filing to have done is no topic either: filings "expect", they do not
    # "forecast".
    assert missing_keywords(["forecasting", "expected", "capex"], text) == []


def test_only_names_line_items_and_years_are_missing_topics_not_the_question_s_verbs():
    from core.agents.reflector import missing_keywords

    question = "What drove the fall in Gaming revenue at NVIDIA in Jan 2023? Take the revenue of FY2024 too."
    keywords = ["drove", "fall", "Gaming", "revenue", "NVIDIA", "Jan", "Take", "FY2024", "risks", "around"]
    text = "Revenue was $26,974 million in fiscal 2023."
    # The company's own name, a month and the word a sentence starts with are no names to find either.
    assert missing_keywords(keywords, text, question, "NVIDIA Corporation") == ["Gaming", "FY2024"]
    assert missing_keywords(["Amazon", "AWS"], text, "Amazon AWS sales?", "Amazon.com") == ["AWS"]


def _passage(n: int, text: str, page: int = 40) -> Evidence:
    return Evidence(evidence_id=f"S1-E{n}", text=text, chunk_id=f"f1-{n:05d}", page=page, section="Item 8")


def test_a_prose_search_is_followed_by_reading_on_from_its_best_passages():
    """What a legal matter or a risk says next is often in the passage after the one the search found."""
    from core.agents.reflector import read_on_gap

    table = "| | 2023 | 2022 |\n|---|---|---|\n| Litigation accrual | 12 | 10 |"
    inputs = ReflectInput(
        sub_question="Where does the securities class action stand?",
        keywords=["securities", "class action"],
        filing_id="f1",
        evidence=[
            _passage(1, table),
            _passage(2, "The plaintiffs in the putative securities class action filed an amended complaint."),
            _passage(3, "Plaintiffs also alleged that the executives violated Section 20(a).", page=41),
            _passage(4, "The derivative lawsuits remain stayed."),
        ],
    )
    cards = [
        KnowledgeCard(claim="Litigation accrual: 12", evidence_ids=["S1-E1"], confidence=0.9),
        KnowledgeCard(claim="Plaintiffs also alleged a violation.", evidence_ids=["S1-E3"], confidence=0.8),
        KnowledgeCard(
            claim="An amended complaint was filed.", evidence_ids=["S1-E2", "S1-E3"], confidence=0.7
        ),
    ]
    # Only passages the step drew claims from are read on from: nothing without claims.
    assert read_on_gap(inputs) is None
    inputs = inputs.model_copy(update={"cards": cards})
    gap = read_on_gap(inputs)
    # The prose passages of the best claims, in the claims' order, not the table; the question stays the step's.
    assert gap is not None and gap.reads_on_from == ["f1-00003", "f1-00002"]
    assert gap.query == inputs.sub_question and gap.keywords == inputs.keywords and gap.filing_id == "f1"
    assert "p. 40" in gap.description and "p. 41" in gap.description
    # Not after a read-on (no chains), a figure lookup, a calculation, or a step that found nothing.
    assert read_on_gap(inputs.model_copy(update={"reads_on": True})) is None
    assert read_on_gap(inputs.model_copy(update={"looks_up_figures": True})) is None
    assert read_on_gap(inputs.model_copy(update={"tool": "calculator"})) is None
    assert read_on_gap(inputs.model_copy(update={"evidence": [_passage(1, table)]})) is None


def test_a_why_with_no_reason_read_yet_is_followed_up_in_mdna():
    """A part asking why a figure moved gets a search worded as filings explain a change, until a claim
    gives a reason that names the figure."""
    from core.agents.reflector import reason_gap

    inputs = ReflectInput(
        sub_question="Apple's effective tax rate jumped in fiscal 2024 - what was it and why?",
        keywords=["effective tax rate"],
        filing_id="f1",
        company="Apple",
    )
    other_reason = "Operating expenses increased primarily due to higher headcount-related costs."
    gap = reason_gap(inputs, [(other_reason, other_reason)])
    assert gap is not None and gap.document_section == "Item 7" and gap.filing_id == "f1"
    assert gap.query.startswith("Apple effective tax rate 2024") and "due to" in gap.query
    assert "effective tax rate" in gap.description and gap.reads_on_from == []
    # Where the step read the table that prints the figure, the follow-up reads on from it: MD&A explains
    # a figure right after its table. A table of other figures is not read on from.
    table = (
        "Provision for Income Taxes\n| | 2024 | 2023 |\n|---|---|---|\n| Effective tax rate | 24.1% | 14.7% |"
    )
    others = (
        "Operating Expenses\n| | 2024 | 2023 |\n|---|---|---|\n| Research and development | 31,370 | 29,915 |"
    )
    evidence = [
        Evidence(evidence_id="S1-E1", text=table, chunk_id="c1"),
        Evidence(evidence_id="S1-E2", text=others, chunk_id="c2"),
    ]
    read = inputs.model_copy(update={"evidence": evidence})
    assert reason_gap(read, [(other_reason, other_reason)]).reads_on_from == ["c1"]
    # The figure's own explanation, once read, ends it.
    reason = (
        "The Company's effective tax rate for 2024 was higher compared to 2023 due primarily to a one-time "
        "income tax charge."
    )
    assert reason_gap(inputs, [(other_reason, other_reason), (reason, reason)]) is None
    # So does "The increase was due to …" right after the figure's own change, in its passage.
    passage = "Apple's effective tax rate rose to 24.1% in 2024. The increase was due to a one-time charge."
    assert reason_gap(inputs, [("The increase was due to a one-time charge.", passage)]) is None
    # Not for a question that asks no why, nor after a read-on or a calculation.
    assert (
        reason_gap(inputs.model_copy(update={"sub_question": "What was the effective tax rate?"}), []) is None
    )
    assert reason_gap(inputs.model_copy(update={"reads_on": True}), []) is None
    assert reason_gap(inputs.model_copy(update={"tool": "calculator"}), []) is None


def test_only_a_why_about_a_move_is_followed_up_for_its_reason():
    from core.finance.question import asks_why_it_moved

    assert asks_why_it_moved("How much did it spend on R&D in fiscal 2024 and what drove the increase?")
    assert asks_why_it_moved("Its effective tax rate jumped in fiscal 2024 - what was it and why?")
    # "attributable to", an instruction to explain the answer, a relation: no move to explain.
    assert not asks_why_it_moved("What is its FY2019 net income attributable to shareholders?")
    assert not asks_why_it_moved(
        "Has its quick ratio improved between FY2022 and FY2023? If the quick ratio is not useful, then state "
        "that and explain why."
    )
    assert not asks_why_it_moved("How do its R&D and Data Center results relate to the risks?")


def test_the_words_a_reason_search_uses_are_no_missing_topic():
    from core.agents.reflector import missing_keywords

    assert missing_keywords(
        ["adjusted EBITDA", "primarily due to", "driven by", "China"], "Adjusted EBITDA"
    ) == ["China"]


def test_a_narrative_step_does_not_report_its_filing_s_year_as_missing():
    """Passages of the FY2023 10-K on competitors need not print "FY2023"; a figure's year must be found."""

    card = KnowledgeCard(claim="Competition is intense.", evidence_ids=["S1-E1"], confidence=0.9)
    passage = Evidence(evidence_id="S1-E1", text="Competition is intense in every market we serve.")
    narrative = ReflectInput(
        sub_question="Who does NVIDIA name as its competitors in FY2023?",
        keywords=["competitors", "FY2023"],
        cards=[card],
        evidence=[passage],
    )
    assert offline_reflect(narrative, DEPS).open_questions == []
    figure = narrative.model_copy(update={"sub_question": "What was NVIDIA's revenue in FY2023?"})
    assert offline_reflect(figure, DEPS).open_questions == ["Not found in the evidence: FY2023"]


def test_a_why_follow_up_reads_on_from_the_table_that_prints_the_figure_in_the_filing_s_words():
    """ "Why did Services revenue grow?" at a company that prints "Services" and "Total net sales": the
    follow-up reads on from that table; a table of another product's figures is not read on from."""
    from core.agents.reflector import reason_gap

    sales = "| | 2024 | Change | 2023 |\n|---|---|---|---|\n| Services (1) | 96,169 | 13% | 85,200 |\n" + (
        "| Total net sales | $ 391,035 | 2% | $ 383,285 |"
    )
    other = "| | 2024 | 2023 |\n|---|---|---|\n| iPhone | 201,183 | 200,583 |\n| Total net sales | 391,035 | 383,285 |"
    inputs = ReflectInput(
        sub_question="Apple FY2024 Services: revenue, growth, and why it grew?",
        filing_id="f1",
        evidence=[
            Evidence(evidence_id="S1-E1", text=other, chunk_id="c1"),
            Evidence(evidence_id="S1-E2", text=sales, chunk_id="c2"),
        ],
    )
    gap = reason_gap(inputs, [])
    assert gap is not None and "Services revenue" in gap.query and gap.reads_on_from == ["c2"]


def test_the_words_earlier_findings_share_are_the_same_in_every_process() -> None:
    """Words tied on count keep the order the findings give them, whatever the interpreter's string hashing:
    a search, and the research after it, is the same on every run."""
    code = (
        "from core.agents.rewriter import salient_terms; print(salient_terms(["
        "'The plaintiffs filed a lawsuit about channel inventory and demand.', "
        "'A lawsuit was filed over demand and channel checks.'], exclude=set()))"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed},
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for seed in ("1", "2", "3", "4")
    }
    assert outputs == {"['filed', 'lawsuit', 'channel']"}
