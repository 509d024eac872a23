"""Research: plans, evidence, knowledge cards, notes, citations, fallbacks and run events."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Literal, get_args

from pydantic import BaseModel, Field

from core.models.filings import utc_now
from core.models.retrieval import StageScores

# --- Research -------------------------------------------------------------------------------

Tool = Literal["search_10k", "search_web", "calculator"]
#: Who put a step in the plan: the planner, the planner's anchor (the question as asked), the reflector
#: (a follow-up for a gap in the evidence) or the analyst.
StepOrigin = Literal["planner", "anchor", "reflection", "analyst"]
#: Evidence an anchor step keeps: as much as one plain search of the question, so the loop never knows less.
ANCHOR_TOP_N = 10


class PlanStep(BaseModel):
    """One step of a research plan."""

    step_id: str
    sub_question: str
    tool: Tool = "search_10k"
    keywords: list[str] = Field(default_factory=list)
    document_section: str | None = Field(default=None, description="A 10-K Item such as 'Item 1A'.")
    filing_id: str | None = None
    origin: StepOrigin = "planner"
    reason: str | None = Field(default=None, description="Why the step is there, e.g. the gap it fills.")
    reads_on_from: list[str] = Field(
        default_factory=list,
        description="Passages (chunk ids) whose continuation the step reads instead of searching.",
    )

    @property
    def is_anchor(self) -> bool:
        return self.origin == "anchor"


class Plan(BaseModel):
    steps: list[PlanStep] = Field(default_factory=list)
    rationale: str = ""


class PlanVersion(BaseModel):
    """One version of the plan, who made it and what changed."""

    version: int
    author: Literal["planner", "analyst", "reflection"]
    changes: list[str] = Field(default_factory=list)
    plan: Plan
    created_at: datetime = Field(default_factory=utc_now)


#: How an evidence id is written: "S<step>-E<n>" (steps and evidence counted from 1).
EVIDENCE_ID_PATTERN = r"S\d+-E\d+"
EVIDENCE_ID_RE = re.compile(EVIDENCE_ID_PATTERN)


def evidence_id(step_index: int, n: int) -> str:
    """The id of the n-th evidence (from 1) of the step at `step_index` (from 0): 'S3-E2'."""
    return f"S{step_index + 1}-E{n}"


class Evidence(BaseModel):
    """A piece of evidence a step found: a filing chunk, a web result or a calculation."""

    evidence_id: str
    kind: Literal["filing", "web", "calculation", "note"] = "filing"
    text: str
    chunk_id: str | None = None
    filing_id: str | None = None
    filing_label: str | None = None
    section: str | None = None
    section_title: str | None = None
    page: int | None = None
    url: str | None = None
    title: str | None = None
    date: str | None = None
    score: float | None = None
    scores: StageScores | None = None
    quote: str | None = Field(
        default=None, description="The exact words to cite (a table row read for a calculation), if set."
    )
    found_by: list[int] = Field(
        default_factory=list, description="Steps whose search also found this passage (evidence pool)."
    )


class KnowledgeCard(BaseModel):
    """A distilled claim with the evidence that supports or contradicts it."""

    claim: str
    evidence_ids: list[str] = Field(default_factory=list)
    confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    statement: str | None = Field(
        default=None,
        description="The claim as a sentence of the answer's paragraph (a figure without its working).",
    )
    contradicting_evidence_ids: list[str] = Field(default_factory=list)
    contradiction: str | None = None


class Gap(BaseModel):
    """Something the question needs that the evidence so far lacks, and the search that could fill it."""

    description: str = Field(description="What is missing, e.g. 'total current liabilities for FY2018'.")
    query: str = Field(description="A self-contained search for it.")
    document_section: str | None = Field(default=None, description="10-K Item to search, or null for all.")
    filing_id: str | None = None
    keywords: list[str] = Field(default_factory=list)
    reads_on_from: list[str] = Field(
        default_factory=list,
        description="Passages (chunk ids) to read on from: the follow-up reads what follows them, no search.",
    )


class ResearchNote(BaseModel):
    """The reflector's note after a step."""

    confirmed_facts: list[str] = Field(default_factory=list)
    open_questions: list[str] = Field(default_factory=list)
    conflicts: list[str] = Field(default_factory=list)
    summary: str = ""
    gaps: list[Gap] = Field(default_factory=list, description="What a follow-up step should search for.")


class PolicyDecision(BaseModel):
    action: Literal["continue", "finish"]
    reason: str
    follow_ups: list[Gap] = Field(
        default_factory=list, description="Gaps to research next: each becomes a step added to the plan."
    )


class Citation(BaseModel):
    """A numbered citation resolving to a verbatim passage (or a URL)."""

    number: int
    evidence_id: str
    quote: str
    chunk_id: str | None = None
    filing_id: str | None = None
    filing_label: str | None = None
    section: str | None = None
    page: int | None = None
    url: str | None = None
    title: str | None = None
    date: str | None = None


class Fallback(BaseModel):
    """A visible record that a documented fallback ran instead of the configured component."""

    component: str
    used: str
    reason: str
    step_index: int | None = None
    routine: bool = Field(
        default=False,
        description="The documented default of this installation (e.g. no cross-encoder installed), stated "
        "once, rather than a configured component that failed.",
    )


#: The research graph's nodes, each a function of that name in core/graph, in the order a run meets them: the
#: plan and its review, then per step the rewrite, the tool's nodes (strategy, retrieval and rerank for a
#: filing search; web search; calculation), distilling, reflection and the decision, then the report. Steps
#: that run together each run those nodes inside a `run_wave_step` task, then one decision follows the wave.
NodeName = Literal[
    "plan_research",
    "review_plan",
    "rewrite_query",
    "choose_strategy",
    "retrieve_evidence",
    "rerank_evidence",
    "search_web",
    "calculate",
    "run_wave_step",
    "distil_evidence",
    "reflect_on_step",
    "decide_next",
    "review_step",
    "write_report",
]
GRAPH_NODES: tuple[NodeName, ...] = get_args(NodeName)
#: The nodes that run inside a plan step: their events and timings carry the step's index.
STEP_NODES: frozenset[NodeName] = frozenset(
    GRAPH_NODES[GRAPH_NODES.index("rewrite_query") : GRAPH_NODES.index("decide_next") + 1]
)

RunEventKind = Literal[
    "node_started",
    "node_finished",
    "strategy_chosen",
    "evidence_found",
    "interrupt",
    "error",
    "fallback",
    "run_finished",
    "model_writing",  # the answer the model is writing, so far (message); replaced as it grows
]


class RunEvent(BaseModel):
    """A typed progress event emitted by graph nodes for the UI and the CLI."""

    run_id: str
    kind: RunEventKind
    node: str | None = None
    step_index: int | None = None
    message: str = ""
    data: dict[str, Any] = Field(default_factory=dict)
    at: datetime = Field(default_factory=utc_now)


class SectionSummary(BaseModel):
    """One section of a filing as the Library shows it."""

    section: str
    title: str
    chunks: int
    first_page: int
    last_page: int
    preview: str
