"""Inputs and outputs of the agent roles; both engines take and return exactly these models."""

from __future__ import annotations

from pydantic import BaseModel, Field

from core.models import Evidence, Filing, KnowledgeCard, ResearchNote, Tool, fiscal_calendar
from core.text.periods import FiscalCalendar


class FilingInfo(BaseModel):
    """What an agent may know about a selected filing."""

    filing_id: str
    label: str
    company: str
    fiscal_year: int | None = None
    form: str = "10-K"
    fiscal_quarter: int | None = None
    period_end: str | None = None

    @classmethod
    def of(cls, filing: Filing) -> FilingInfo:
        """What an agent may know about a filing of the catalog."""
        return cls(
            filing_id=filing.filing_id,
            label=filing.label,
            company=filing.company,
            fiscal_year=filing.fiscal_year,
            form=filing.form,
            fiscal_quarter=filing.fiscal_quarter,
            period_end=filing.period_end,
        )

    @property
    def calendar(self) -> FiscalCalendar | None:
        """The company's fiscal calendar as the filing shows it (see Filing.calendar)."""
        return fiscal_calendar(self.form, self.fiscal_year, self.fiscal_quarter, self.period_end)


class PlannerInput(BaseModel):
    question: str
    filings: list[FilingInfo] = Field(default_factory=list)
    max_steps: int = 7


class DraftStep(BaseModel):
    """A plan step as a planner writes it (ids are assigned afterwards)."""

    sub_question: str = Field(description="A self-contained question one search can answer.")
    tool: Tool = Field(default="search_10k", description="search_10k, search_web or calculator.")
    keywords: list[str] = Field(default_factory=list, description="Distinctive search terms.")
    document_section: str | None = Field(default=None, description="10-K Item such as 'Item 1A', or null.")
    filing_id: str | None = Field(
        default=None, description="One of the selected filing ids, or null for all."
    )
    reason: str | None = Field(default=None, description="Why this step is needed (optional).")


class PlanDraft(BaseModel):
    steps: list[DraftStep] = Field(description="Ordered research steps, at most max_steps.")
    rationale: str = Field(default="", description="One sentence on why these steps answer the question.")


class RewriteInput(BaseModel):
    question: str
    sub_question: str
    keywords: list[str] = Field(default_factory=list)
    document_section: str | None = None
    earlier_claims: list[str] = Field(default_factory=list)
    earlier_keywords: list[str] = Field(default_factory=list)
    company: str | None = None


class RewrittenQuery(BaseModel):
    query: str = Field(description="A search query for the filing, specific and self-contained.")
    added_terms: list[str] = Field(default_factory=list, description="Terms added from earlier findings.")


class SupervisorInput(BaseModel):
    query: str
    sub_question: str
    document_section: str | None = None


class DistilInput(BaseModel):
    sub_question: str
    keywords: list[str] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)
    known_claims: list[str] = Field(default_factory=list)
    exclude_terms: list[str] = Field(
        default_factory=list, description="Words that say nothing about relevance here (the company's name)."
    )
    max_cards: int = 4


class Distillation(BaseModel):
    cards: list[KnowledgeCard] = Field(default_factory=list)


class ReflectInput(BaseModel):
    sub_question: str
    keywords: list[str] = Field(default_factory=list)
    document_section: str | None = None
    cards: list[KnowledgeCard] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)
    evidence_note: str | None = None
    tool: Tool = "search_10k"
    filing_id: str | None = None
    company: str | None = Field(default=None, description="The company of the step's filing, if one.")
    missing: list[str] = Field(
        default_factory=list, description="Calculator inputs not found, e.g. 'total assets for FY2018'."
    )
    reads_on: bool = Field(default=False, description="The step read on from earlier passages.")
    looks_up_figures: bool = Field(
        default=False, description="The step fetched statement rows to compute from."
    )


class PolicyInput(BaseModel):
    question: str
    steps_done: int
    max_steps: int
    remaining: list[str] = Field(default_factory=list, description="Sub-questions still planned.")
    remaining_tools: list[Tool] = Field(default_factory=list)
    new_claims_per_step: list[int] = Field(default_factory=list)
    tools_done: list[Tool] = Field(default_factory=list)
    last_note: ResearchNote | None = None
    planned_steps: int = Field(default=0, description="Steps in the plan (done and remaining).")
    handled_gaps: list[str] = Field(
        default_factory=list, description="Gaps that already have a follow-up step in the plan."
    )


class StepDigest(BaseModel):
    """What the writer sees of one executed step."""

    index: int
    sub_question: str
    tool: Tool
    origin: str = "planner"
    reason: str | None = None
    query: str = ""
    document_section: str | None = None
    strategy: str | None = None
    candidates: int = 0
    cards: list[KnowledgeCard] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)
    evidence_note: str | None = None
    note: ResearchNote | None = None
    route_note: str | None = None  # which filings the search was narrowed to, and why
    reads_on: bool = False  # read the passages after an earlier step's best hits (no search)


class WriterInput(BaseModel):
    question: str
    filings: list[FilingInfo] = Field(default_factory=list)
    steps: list[StepDigest] = Field(default_factory=list)
    pool: list[Evidence] = Field(
        default_factory=list, description="Every passage the run found, once, with the steps that found it."
    )


class DraftClaim(BaseModel):
    text: str = Field(description="One claim, in plain words, supported by the cited evidence.")
    evidence_ids: list[str] = Field(default_factory=list, description="Ids of the evidence supporting it.")


class ReportSection(BaseModel):
    heading: str
    claims: list[DraftClaim] = Field(default_factory=list)
    gap: str | None = Field(default=None, description="What was searched when nothing answered it.")


class DraftTable(BaseModel):
    """A small table of figures: its column names, then rows whose first cell names the row (a period) and
    whose other cells are figures, each citing its evidence."""

    columns: list[str]
    rows: list[list[DraftClaim]] = Field(default_factory=list)


class ReportDraft(BaseModel):
    answer: list[DraftClaim] = Field(
        default_factory=list,
        description="The answer first: one claim per part of the question, stating the figure or fact asked for.",
    )
    summary: str = Field(
        default="",
        description="One short paragraph (one to four sentences) answering every part of the question in order, "
        "each figure with its period and unit, citing evidence ids in brackets.",
    )
    method: str = Field(default="", description="Leave empty: the workbench says how the answer was made.")
    tables: list[DraftTable] = Field(
        default_factory=list, description="Leave empty: the workbench tabulates figures by period."
    )
    sections: list[ReportSection] = Field(default_factory=list)
    conflicts: list[DraftClaim] = Field(default_factory=list)
