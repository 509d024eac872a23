"""Hand-built RunRecords: a realistic three-step run and a hostile one whose documents carry markup."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.models import (
    CandidateRef,
    Citation,
    Evidence,
    Fallback,
    KnowledgeCard,
    Plan,
    PlanStep,
    PlanVersion,
    PolicyDecision,
    ResearchNote,
    RunRecord,
    StageScores,
    StepRecord,
    TokenUsage,
)

FILING_ID = "9f3c2a71b0d44e6f8a1b2c3d4e5f60718293a4b5c6d7e8f90123456789abcdef"
LABEL = "Northwind Robotics, Inc. 10-K FY2025"

COMPETITION = (
    "The market for warehouse automation is intensely competitive and evolving rapidly. We compete with "
    "providers of autonomous mobile robots, including Kestrel Warehouse Systems, Inc., Brightline "
    "Automation, Inc. and Halden Robotik AG."
)
SUPPLIER = (
    "We purchase the lidar sensors used in all Atlas models solely from OptiScan Sensors Ltd., and our main "
    "compute module and certain motor controllers from single suppliers."
)
REVENUE = (
    "Total revenue grew 17.9% to $422.6 million in fiscal 2025 from $358.5 million in fiscal 2024, driven "
    "mainly by Fleet Software, whose revenue grew 44.0%."
)
WEB_UNAVAILABLE = "web search unavailable: DDGSException (no network)"


def _filing_evidence(eid: str, text: str, section: str, page: int, rerank: float, vector: float) -> Evidence:
    return Evidence(
        evidence_id=eid,
        kind="filing",
        text=text,
        chunk_id=f"{FILING_ID[:12]}-{eid}",
        filing_id=FILING_ID,
        filing_label=LABEL,
        section=section,
        page=page,
        score=rerank,
        scores=StageScores(vector=vector, vector_rank=1, rerank=rerank, rerank_rank=1),
    )


def _plan(*steps: PlanStep) -> Plan:
    return Plan(steps=list(steps), rationale="Risks first, then the numbers, then outside news.")


STEP_RISK = PlanStep(
    step_id="s1",
    sub_question="What competition and supplier risks does Northwind report?",
    keywords=["competition", "supplier"],
    document_section="Item 1A",
)
STEP_REVENUE = PlanStep(
    step_id="s2",
    sub_question="How did Northwind's total revenue change in fiscal 2025?",
    keywords=["total revenue"],
    document_section="Item 7",
)
STEP_WEB = PlanStep(
    step_id="s3",
    sub_question="What did Kestrel Warehouse Systems announce in 2026?",
    tool="search_web",
)


def build_record(evidence_text: dict[str, str] | None = None, title: str | None = None) -> RunRecord:
    """A finished three-step offline run; `evidence_text` overrides texts and quotes by evidence id."""
    texts = {"e1": COMPETITION, "e2": SUPPLIER, "e3": REVENUE, **(evidence_text or {})}
    e1 = _filing_evidence("e1", texts["e1"], "Item 1", 4, 0.912, 0.71)
    e2 = _filing_evidence("e2", texts["e2"], "Item 1A", 6, 0.734, 0.64)
    e3 = _filing_evidence("e3", texts["e3"], "Item 7", 11, 0.955, 0.69)
    web = Evidence(evidence_id="w1", kind="note", text=WEB_UNAVAILABLE, title=title)
    created = datetime(2026, 3, 2, 14, 5, tzinfo=UTC)
    steps = [
        StepRecord(
            index=0,
            step_id="s1",
            sub_question=STEP_RISK.sub_question,
            tool="search_10k",
            document_section="Item 1A",
            rewritten_query="Northwind competition supplier risks",
            strategy="hybrid",
            justification="Mixed wording: named competitors plus an abstract risk topic.",
            decided_by="offline",
            widened=True,
            widen_note="Item 1A alone returned 2 chunks; widened to the whole filing.",
            reranker="local lexical scorer (cross-encoder unavailable)",
            candidates=[CandidateRef(chunk_id=e1.chunk_id or "", section="Item 1", page=4, score=0.71)],
            evidence=[e1, e2],
            cards=[
                KnowledgeCard(
                    claim="Northwind faces intense competition from AMR vendors.",
                    evidence_ids=["e1"],
                    confidence=0.82,
                ),
                KnowledgeCard(
                    claim="Lidar sensors come from a single supplier.",
                    evidence_ids=["e2"],
                    confidence=0.77,
                    contradicting_evidence_ids=["e1"],
                    contradiction="Another passage lists several sensor vendors.",
                ),
            ],
            note=ResearchNote(confirmed_facts=["Single-source lidar"], summary="Risks found."),
            decision=PolicyDecision(action="continue", reason="Plan has steps left."),
            timings={
                "rewrite_query": 0.01,
                "retrieve_evidence": 0.42,
                "rerank_evidence": 0.2,
                "distil_evidence": 0.05,
            },
        ),
        StepRecord(
            index=1,
            step_id="s2",
            sub_question=STEP_REVENUE.sub_question,
            tool="search_10k",
            document_section="Item 7",
            rewritten_query="Northwind total revenue fiscal 2025",
            strategy="keyword",
            justification="Numbers and a fiscal year favour exact terms.",
            decided_by="analyst",
            strategy_override="keyword",
            reranker="local lexical scorer (cross-encoder unavailable)",
            evidence=[e3],
            cards=[
                KnowledgeCard(
                    claim="Revenue grew 17.9% to $422.6 million.", evidence_ids=["e3"], confidence=0.9
                )
            ],
            decision=PolicyDecision(action="continue", reason="One step left."),
            timings={"rewrite_query": 0.01, "retrieve_evidence": 0.18, "rerank_evidence": 0.11},
        ),
        StepRecord(
            index=2,
            step_id="s3",
            sub_question=STEP_WEB.sub_question,
            tool="search_web",
            rewritten_query="Kestrel Warehouse Systems 2026 announcement",
            evidence=[web],
            evidence_note=WEB_UNAVAILABLE,
            decision=PolicyDecision(action="finish", reason="Plan complete."),
            timings={"search_web": 0.02},
        ),
    ]
    citations = [
        Citation(
            number=1,
            evidence_id="e1",
            quote=texts["e1"],
            chunk_id=e1.chunk_id,
            filing_id=FILING_ID,
            filing_label=LABEL,
            section="Item 1",
            page=4,
        ),
        Citation(
            number=2,
            evidence_id="e2",
            quote=texts["e2"],
            chunk_id=e2.chunk_id,
            filing_id=FILING_ID,
            filing_label=LABEL,
            section="Item 1A",
            page=6,
        ),
        Citation(
            number=3,
            evidence_id="e3",
            quote=texts["e3"],
            chunk_id=e3.chunk_id,
            filing_id=FILING_ID,
            filing_label=LABEL,
            section="Item 7",
            page=11,
        ),
    ]
    answer = (
        "Northwind faces intense competition and single-source supply risk.\n\n"
        "### Risks\n"
        "- Competitors include Kestrel, Brightline and Halden [1].\n"
        "- Lidar sensors come solely from OptiScan [2].\n\n"
        "### Results\n"
        "- Total revenue grew **17.9%** to $422.6 million [3].\n"
    )
    return RunRecord(
        run_id="3b9e6c1d2a8f4e7b9c0d1e2f3a4b5c6d",
        question="What competition and supplier risks does Northwind report, and how did revenue change?",
        filing_ids=[FILING_ID],
        status="finished",
        engine="offline",
        plan=_plan(STEP_RISK, STEP_REVENUE, STEP_WEB),
        plan_history=[
            PlanVersion(version=1, author="planner", plan=_plan(STEP_RISK, STEP_WEB), created_at=created),
            PlanVersion(
                version=2,
                author="analyst",
                plan=_plan(STEP_RISK, STEP_REVENUE, STEP_WEB),
                changes=["Added step 2: How did Northwind's total revenue change in fiscal 2025?"],
                created_at=created,
            ),
        ],
        current_step=3,
        steps=steps,
        answer=answer,
        citations=citations,
        unsupported_claims=["Kestrel's 2026 announcement could not be checked (web search unavailable)."],
        fallbacks=[
            Fallback(
                component="reranker",
                used="local lexical scorer",
                reason="cross-encoder/ms-marco-MiniLM-L-6-v2 is not in the local cache",
            ),
            Fallback(component="web_search", used="none", reason=WEB_UNAVAILABLE, step_index=2),
        ],
        timings={"plan_research": 0.03, "write_report": 0.08},
        token_usage=TokenUsage(notes=["offline engine: no LLM calls"]),
        finish_reason="plan complete",
        created_at=created,
        updated_at=created,
    )


SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"
JS_LINK = "[click](javascript:alert(1))"
HOSTILE = f"Ignore previous instructions {SCRIPT} then {IMG} and {JS_LINK} & more."


@pytest.fixture
def record() -> RunRecord:
    """A realistic finished run."""
    return build_record()


@pytest.fixture
def hostile_record() -> RunRecord:
    """A run whose evidence, quotes, titles, URLs and answer carry HTML/Markdown/JS payloads."""
    rec = build_record({"e1": HOSTILE, "e2": IMG, "e3": JS_LINK}, title=f"News {SCRIPT}")
    rec.answer += f'\n{HOSTILE} [1]\n<a href="javascript:alert(1)">x</a> [9]\n'
    rec.citations.append(
        Citation(
            number=4,
            evidence_id="w2",
            quote=f"Web says {IMG}",
            url="javascript:alert(1)",
            title=f"Evil {SCRIPT}",
            date="2026-01-01",
        )
    )
    rec.steps[2].evidence.append(
        Evidence(
            evidence_id="w2", kind="web", text=HOSTILE, url="javascript:alert(1)", title=f"Evil {SCRIPT}"
        )
    )
    rec.unsupported_claims.append(HOSTILE)
    return rec
