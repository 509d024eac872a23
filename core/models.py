"""Pydantic domain types shared across ingestion, retrieval, the research graph and the UI."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

# --- 10-K structure -------------------------------------------------------------------------

#: Canonical 10-K Items in filing order, with their standard titles.
ITEM_TITLES: dict[str, str] = {
    "Item 1": "Business",
    "Item 1A": "Risk Factors",
    "Item 1B": "Unresolved Staff Comments",
    "Item 1C": "Cybersecurity",
    "Item 2": "Properties",
    "Item 3": "Legal Proceedings",
    "Item 4": "Mine Safety Disclosures",
    "Item 5": "Market for Registrant's Common Equity, Related Stockholder Matters and Issuer Purchases of Equity Securities",
    "Item 6": "[Reserved] / Selected Financial Data",
    "Item 7": "Management's Discussion and Analysis of Financial Condition and Results of Operations",
    "Item 7A": "Quantitative and Qualitative Disclosures About Market Risk",
    "Item 8": "Financial Statements and Supplementary Data",
    "Item 9": "Changes in and Disagreements with Accountants on Accounting and Financial Disclosure",
    "Item 9A": "Controls and Procedures",
    "Item 9B": "Other Information",
    "Item 9C": "Disclosure Regarding Foreign Jurisdictions that Prevent Inspections",
    "Item 10": "Directors, Executive Officers and Corporate Governance",
    "Item 11": "Executive Compensation",
    "Item 12": "Security Ownership of Certain Beneficial Owners and Management and Related Stockholder Matters",
    "Item 13": "Certain Relationships and Related Transactions, and Director Independence",
    "Item 14": "Principal Accountant Fees and Services",
    "Item 15": "Exhibits and Financial Statement Schedules",
    "Item 16": "Form 10-K Summary",
}

#: Label for text before Item 1 (cover page, table of contents, forward-looking statements).
FRONT_MATTER = "Front matter"
#: Label for text outside any Item after Item 1 (e.g. signatures, exhibits pages with no heading).
UNSECTIONED = "Other"


def section_rank(section: str) -> int:
    """Sort key putting front matter first, Items in filing order, everything else last."""
    if section == FRONT_MATTER:
        return -1
    order = list(ITEM_TITLES)
    return order.index(section) if section in order else len(order)


def _now() -> datetime:
    return datetime.now(UTC)


# --- Ingestion ------------------------------------------------------------------------------

SourceType = Literal["pdf", "html", "txt"]
#: Company label of a filing whose cover page named no company.
UNKNOWN_COMPANY = "Unknown company"


class Filing(BaseModel):
    """One ingested filing, identified by the sha256 of its bytes."""

    filing_id: str
    filename: str = Field(description="Original upload name; display only, never used as a path.")
    company: str
    form: str = "10-K"
    fiscal_year: int | None = None
    source_type: SourceType
    pages: int
    chunks: int
    sections: dict[str, int] = Field(default_factory=dict, description="Item -> chunk count.")
    section_titles: dict[str, str] = Field(default_factory=dict, description="Item -> title found.")
    size_bytes: int = 0
    seconds: float = 0.0
    index_version: int = Field(
        default=1, description="How its passages were indexed (core.ingest.pipeline.INDEX_VERSION when new)."
    )
    ingested_at: datetime = Field(default_factory=_now)

    @property
    def label(self) -> str:
        """Short human label, e.g. 'NVIDIA Corp 10-K FY2023'."""
        year = f" FY{self.fiscal_year}" if self.fiscal_year else ""
        return f"{self.company} {self.form}{year}"


class Chunk(BaseModel):
    """A searchable passage of a filing; never crosses an Item boundary."""

    chunk_id: str
    filing_id: str
    company: str = ""
    form: str = "10-K"
    fiscal_year: int | None = None
    section: str = Field(description="'Item 1A', ..., or FRONT_MATTER / UNSECTIONED.")
    section_title: str = ""
    part: str | None = None
    page: int = Field(
        description="PDF: the page number a viewer shows (from 1); HTML: the printed page number; text: form-feed pages from 1."
    )
    chunk_index: int
    char_start: int
    char_end: int
    kind: Literal["text", "table"] = "text"
    text: str
    context: str = Field(
        default="",
        description="What the passage is about (filing, Item, page heading): indexed with it, never quoted.",
    )

    @property
    def indexed_text(self) -> str:
        """The text the embedding and the keyword index read: the context line, then the passage."""
        return f"{self.context}\n{self.text}" if self.context else self.text


class IngestProgress(BaseModel):
    """Progress of one filing through the ingestion stages, for progress bars."""

    filename: str
    stage: Literal["validate", "parse", "sections", "chunk", "embed", "index", "done", "error", "duplicate"]
    fraction: float = Field(ge=0.0, le=1.0, description="Overall progress of this filing.")
    message: str = ""


class IngestResult(BaseModel):
    """Outcome of ingesting one upload: a filing, or a human-readable error."""

    filename: str
    ok: bool
    filing: Filing | None = None
    duplicate: bool = False
    error: str | None = None
    stage_seconds: dict[str, float] = Field(default_factory=dict)
    reused_embeddings: int = Field(
        default=0, description="Passages whose vector came from the embedding cache."
    )


# --- Retrieval ------------------------------------------------------------------------------

Strategy = Literal["vector", "keyword", "hybrid"]


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
    created_at: datetime = Field(default_factory=_now)


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
    contradicting_evidence_ids: list[str] = Field(default_factory=list)
    contradiction: str | None = None


class Gap(BaseModel):
    """Something the question needs that the evidence so far lacks, and the search that could fill it."""

    description: str = Field(description="What is missing, e.g. 'total current liabilities for FY2018'.")
    query: str = Field(description="A self-contained search for it.")
    document_section: str | None = Field(default=None, description="10-K Item to search, or null for all.")
    filing_id: str | None = None
    keywords: list[str] = Field(default_factory=list)


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


RunEventKind = Literal[
    "node_started",
    "node_finished",
    "strategy_chosen",
    "evidence_found",
    "interrupt",
    "error",
    "fallback",
    "run_finished",
]


class RunEvent(BaseModel):
    """A typed progress event emitted by graph nodes for the UI and the CLI."""

    run_id: str
    kind: RunEventKind
    node: str | None = None
    step_index: int | None = None
    message: str = ""
    data: dict[str, Any] = Field(default_factory=dict)
    at: datetime = Field(default_factory=_now)


class SectionSummary(BaseModel):
    """One section of a filing as the Library shows it."""

    section: str
    title: str
    chunks: int
    first_page: int
    last_page: int
    preview: str


# --- Evaluation -----------------------------------------------------------------------------

EvalSystem = Literal["naive", "one-search", "deep"]
EVAL_SYSTEMS: tuple[EvalSystem, ...] = ("naive", "one-search", "deep")
MetricVariant = Literal["reference", "llm"]


class EvalQuestion(BaseModel):
    """A question with its ground truth: the reference answer, the filing, and where the evidence is."""

    qid: str
    question: str
    answer: str
    filing: str = Field(description="File name of the filing the question is about.")
    qtype: str = "all"
    evidence_texts: list[str] = Field(default_factory=list)
    evidence_pages: list[int] = Field(default_factory=list, description="Pages as a viewer shows them.")


class EvalContext(BaseModel):
    """A passage a system retrieved for a question, in the order it ranked or found it."""

    chunk_id: str
    filing_id: str
    page: int | None = None
    text: str
    step: int | None = None


class SystemAnswer(BaseModel):
    """What one system answered for one question, with its evidence and cost."""

    system: EvalSystem
    answer: str = ""
    citations: list[Citation] = Field(default_factory=list)
    contexts: list[EvalContext] = Field(default_factory=list)
    steps: int = 1
    seconds: float = 0.0
    run_id: str | None = None
    fallbacks: list[str] = Field(default_factory=list)
    error: str | None = None


class MetricValue(BaseModel):
    """One metric of one answer; `variant` says whether it was judged by references or by an LLM."""

    name: str
    value: float | None
    variant: MetricVariant = "reference"
    detail: str = ""


class EvalResult(BaseModel):
    """One (question, system) pair of an evaluation run."""

    qid: str
    qtype: str
    question: str
    reference: str
    filing: str
    system: EvalSystem
    output: SystemAnswer
    metrics: list[MetricValue] = Field(default_factory=list)

    def metric(self, name: str, variant: MetricVariant = "reference") -> float | None:
        return next((m.value for m in self.metrics if m.name == name and m.variant == variant), None)


class EvalConfig(BaseModel):
    """How an evaluation run was started (stored, so that the run can be resumed after a crash)."""

    eval_id: str
    set_name: str
    set_path: str | None = None
    systems: list[EvalSystem] = Field(default_factory=lambda: list(EVAL_SYSTEMS))
    limit: int | None = None
    qtype: str | None = None
    filing: str | None = None
    judge: MetricVariant = "reference"
    engine: str = "offline"
    naive_k: int = 5
    created_at: datetime = Field(default_factory=_now)


class EvalRun(BaseModel):
    """An evaluation run: its configuration, its questions and every result so far."""

    config: EvalConfig
    questions: list[EvalQuestion] = Field(default_factory=list)
    results: list[EvalResult] = Field(default_factory=list)
    finished: bool = False

    @property
    def expected(self) -> int:
        return len(self.questions) * len(self.config.systems)
