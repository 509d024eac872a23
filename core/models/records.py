"""Records of a research run: per-step results, token usage, the run record and run summaries."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from core.models.filings import utc_now
from core.models.research import (
    Citation,
    Evidence,
    Fallback,
    KnowledgeCard,
    Plan,
    PlanVersion,
    PolicyDecision,
    ResearchNote,
    StepOrigin,
    Tool,
)
from core.models.retrieval import ScoredChunk, StageScores

RunStatus = Literal["awaiting_plan_review", "paused_after_step", "running", "finished", "failed", "cancelled"]
DecidedBy = Literal["offline", "llm", "analyst"]


class TokenUsage(BaseModel):
    """LLM tokens and estimated cost accumulated over a run."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cost_usd: float = 0.0
    cache_hits: int = 0
    notes: list[str] = Field(default_factory=list)

    def add(self, other: TokenUsage) -> TokenUsage:
        """Sum of two usages (notes deduplicated)."""
        return TokenUsage(
            calls=self.calls + other.calls,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
            cost_usd=round(self.cost_usd + other.cost_usd, 6),
            cache_hits=self.cache_hits + other.cache_hits,
            notes=list(dict.fromkeys([*self.notes, *other.notes])),
        )


class CandidateRef(BaseModel):
    """A retrieval candidate, kept small for the audit trail: where it is and what each stage scored."""

    chunk_id: str
    section: str | None = None
    page: int | None = None
    score: float | None = None
    #: Per-stage scores (first stage at retrieval, rerank added when the step reranks); None in old runs.
    scores: StageScores | None = None
    #: Found only by widening the Item filter; kept as evidence only when the Item ran out.
    widened: bool = False


class StepRecord(BaseModel):
    """Everything one executed plan step produced, in execution order of its nodes."""

    index: int
    step_id: str
    sub_question: str
    tool: Tool
    document_section: str | None = None
    filing_id: str | None = None
    keywords: list[str] = Field(default_factory=list)
    origin: StepOrigin = "planner"
    reason: str | None = None
    reads_on_from: list[str] = Field(default_factory=list, description="See PlanStep.reads_on_from.")
    rewritten_query: str = ""
    strategy: str | None = None
    justification: str = ""
    decided_by: DecidedBy | None = None
    strategy_override: str | None = None
    widened: bool = False
    widen_note: str | None = None
    route_note: str | None = None
    reranker: str | None = None
    candidates: list[CandidateRef] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)
    evidence_note: str | None = None
    cards: list[KnowledgeCard] = Field(default_factory=list)
    new_claims: int = 0
    note: ResearchNote | None = None
    decision: PolicyDecision | None = None
    timings: dict[str, float] = Field(default_factory=dict)
    errors: list[str] = Field(default_factory=list)
    missing: list[str] = Field(
        default_factory=list, description="Calculator inputs not found (line item and fiscal year)."
    )
    attempt: int = 1
    pool: list[ScoredChunk] = Field(
        default_factory=list, description="Retrieved candidates awaiting the rerank node; emptied by it."
    )


class RunRecord(BaseModel):
    """The state of one research run as the UI, the CLI and exports see it; built from a checkpoint."""

    run_id: str
    question: str
    filing_ids: list[str] = Field(default_factory=list)
    status: RunStatus
    engine: str = "offline"
    settings: dict[str, Any] = Field(
        default_factory=dict,
        description="The settings the run started with (config.RUN_FIELDS; never a key).",
    )
    step_mode: bool = False
    max_steps: int = 7
    plan: Plan = Field(default_factory=Plan)
    plan_history: list[PlanVersion] = Field(default_factory=list)
    current_step: int = 0
    steps: list[StepRecord] = Field(default_factory=list)
    answer: str = ""
    citations: list[Citation] = Field(default_factory=list)
    unsupported_claims: list[str] = Field(default_factory=list)
    fallbacks: list[Fallback] = Field(default_factory=list)
    timings: dict[str, float] = Field(default_factory=dict)
    token_usage: TokenUsage = Field(default_factory=TokenUsage)
    finish_reason: str | None = None
    pending: dict | None = Field(default=None, description="The open interrupt's payload, if any.")
    next_nodes: list[str] = Field(default_factory=list)
    error: str | None = None
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)
    started_by: str | None = Field(
        default=None, description="The signed-in analyst who started the run (None without sign-in)."
    )


class RunSummary(BaseModel):
    """One line of the run list."""

    run_id: str
    question: str
    status: RunStatus
    engine: str = "offline"
    steps_done: int = 0
    started_by: str | None = None
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)
