"""Retrieval: scores per stage, query analysis, strategy decisions, search results."""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, Field

from core.models.filings import Chunk

# --- Retrieval ------------------------------------------------------------------------------

Strategy = Literal["vector", "keyword", "hybrid"]
#: The retrieval strategies, in the order the analyst sees them.
STRATEGIES: tuple[Strategy, ...] = get_args(Strategy)
#: What a search may ask for: a strategy, or "auto" (the supervisor chooses).
StrategyChoice = Literal["auto", "vector", "keyword", "hybrid"]
STRATEGY_CHOICES: tuple[StrategyChoice, ...] = get_args(StrategyChoice)


def check_strategy(strategy: str) -> Strategy:
    """The strategy, or a ValueError naming the ones there are (an analyst's override is checked here)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}")
    return strategy  # type: ignore[return-value]


class StageScores(BaseModel):
    """Scores a chunk received at each retrieval stage (None where the stage did not see it)."""

    vector: float | None = None
    vector_rank: int | None = None
    bm25: float | None = None
    keyword_rank: int | None = None
    fused: float | None = None
    fused_rank: int | None = None
    statement_rank: int | None = Field(
        default=None, description="Rank of its page among the statement pages the query asks for."
    )
    rerank: float | None = None
    rerank_rank: int | None = None


class ScoredChunk(BaseModel):
    chunk: Chunk
    score: float = Field(description="Score of the last stage applied.")
    scores: StageScores = Field(default_factory=StageScores)
    widened: bool = Field(
        default=False,
        description="Found only because the Item filter was widened (the Item held too few passages).",
    )


class QueryAnalysis(BaseModel):
    """What a query asks for: the information need stripped of instructions, and its signals."""

    original: str
    core_query: str = Field(description="The information need, without instruction boilerplate.")
    keywords: list[str] = Field(default_factory=list)
    entities: list[str] = Field(default_factory=list)
    time_expressions: list[str] = Field(default_factory=list)
    fiscal_years: list[int] = Field(default_factory=list)
    intent: Literal["fact", "numeric", "comparison", "trend", "risk"] = "fact"
    item_hints: list[str] = Field(default_factory=list)
    quoted_terms: list[str] = Field(default_factory=list)
    numbers: list[str] = Field(default_factory=list)
    statements: list[str] = Field(
        default_factory=list,
        description="Primary statements ('income', 'balance', 'cash_flow') that report the figures asked for.",
    )
    line_items: list[str] = Field(
        default_factory=list, description="Lexicon keys of the line items asked for."
    )
    term_density: float = 0.0
    abstractness: float = 0.0


class StrategyDecision(BaseModel):
    """The retrieval supervisor's choice and its one-sentence reason."""

    strategy: Strategy
    justification: str
    decided_by: Literal["offline", "llm", "analyst"] = "offline"


class SearchResult(BaseModel):
    """Ranked evidence for one query, with everything the UI needs to explain it."""

    query: str
    strategy: Strategy
    justification: str = ""
    section_filter: str | None = None
    filing_filter: list[str] | None = None
    route_note: str | None = Field(
        default=None, description="Set when the search was narrowed to the filings the query names."
    )
    widened: bool = False
    widen_note: str | None = None
    reranker: str | None = Field(default=None, description="Which reranker produced the order, if any.")
    candidates: list[ScoredChunk] = Field(default_factory=list, description="Before reranking.")
    chunks: list[ScoredChunk] = Field(default_factory=list, description="Final ranked evidence.")
    seconds: float = 0.0
