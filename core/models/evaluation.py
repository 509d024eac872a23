"""Evaluation: questions, answers per system, metrics and evaluation runs."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field, model_validator

from core.models.filings import utc_now
from core.models.research import Citation

# --- Evaluation -----------------------------------------------------------------------------

EvalSystem = Literal["naive", "one-search", "deep"]
EVAL_SYSTEMS: tuple[EvalSystem, ...] = ("naive", "one-search", "deep")
MetricVariant = Literal["reference", "llm"]


class EvalPart(BaseModel):
    """One part of a question (a figure, a derived figure, a why, a list) and what answers it."""

    part: str = Field(default="", description="figure | derived | why | narrative | list | yes-no | …")
    ask: str = ""
    figures: list[str] = Field(
        default_factory=list, description="Figures that answer it, as the reference states them."
    )
    key_phrases: list[str] = Field(default_factory=list, description="Phrases an answer to it uses.")
    evidence: str = Field(default="", description="The filing's sentence that answers it.")


class EvalQuestion(BaseModel):
    """A question with its ground truth: the reference answer, the filing, and where the evidence is."""

    qid: str
    question: str
    answer: str
    filing: str = Field(description="File name of the filing the question is about (the first of `filings`).")
    filings: list[str] = Field(
        default_factory=list,
        description="File names of every filing the question is about, in period order; a run is scoped to "
        "all of them. Left empty, it is `filing` alone.",
    )
    cited_filings: list[str] = Field(
        default_factory=list,
        description="The filings the reference answer cites, where it says (among `filings`).",
    )
    qtype: str = "all"
    evidence_texts: list[str] = Field(default_factory=list)
    evidence_pages: list[int] = Field(default_factory=list, description="Pages as a viewer shows them.")
    figures: list[str] | None = Field(
        default=None,
        description="The figures that answer the question, as the reference states them; None: the "
        "reference's main figure (its first), [] : the question asks for no figure.",
    )
    parts: list[EvalPart] = Field(
        default_factory=list, description="The question's parts, where the set lists them."
    )

    @model_validator(mode="after")
    def _one_filing_at_least(self) -> EvalQuestion:
        if not self.filings:
            self.filings = [self.filing]
        return self


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
    created_at: datetime = Field(default_factory=utc_now)


class EvalRun(BaseModel):
    """An evaluation run: its configuration, its questions and every result so far."""

    config: EvalConfig
    questions: list[EvalQuestion] = Field(default_factory=list)
    results: list[EvalResult] = Field(default_factory=list)
    finished: bool = False

    @property
    def expected(self) -> int:
        return len(self.questions) * len(self.config.systems)
