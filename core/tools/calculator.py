"""The calculator plan step: states the figures its sub-question asks for, each computed with cited inputs.

Its sub-question names figures (a metric defined there, a metric the lexicon knows, or a line item): each
input is looked up in the table rows of the pages earlier steps retrieved and of the statements that
report it, and the result is recorded as a calculation whose inputs are filing passages quoted row by row.
Otherwise it computes what the wording asks (an arithmetic expression, a growth, ratio or difference)
from figures that earlier evidence states. The arithmetic itself lives in core.finance.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial

from core.finance.compute import ComputedFigure, breakdown, compute
from core.finance.evidence_figures import run_calculations
from core.finance.formula import FormulaError, Lookup, PartsLookup
from core.finance.lookup import SourcedRow, make_lookup
from core.finance.requests import FigureRequest, figure_requests
from core.models import Evidence, KnowledgeCard, evidence_id
from core.text.periods import FiscalCalendar

#: Table rows for the statements a computation needs (kinds such as "income"), best first.
RowSource = Callable[[list[str]], list[SourcedRow]]


@dataclass
class CalculatorResult:
    """What the step produced: calculations (and the passages quoted for their inputs), the cards stating
    them, a note per figure, and the inputs not found (line item and year)."""

    evidence: list[Evidence] = field(default_factory=list)
    cards: list[KnowledgeCard] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    @property
    def note(self) -> str:
        return "; ".join(self.notes)


def requests_in(
    sub_question: str, default_year: int | None, calendar: FiscalCalendar | None = None
) -> list[FigureRequest]:
    """The figure requests a calculator step's wording carries (empty when it names none); with a quarterly
    report's `calendar`, the report's quarter (or the year to date asked) of each fiscal year."""
    try:
        return figure_requests(sub_question, default_year, calendar)
    except FormulaError:
        return []


def _input_evidence(
    computed: ComputedFigure, step_index: int, first_number: int, labels: dict[str, str]
) -> list[Evidence]:
    """One filing evidence per input row, quoting the row verbatim; the same row cited once."""
    out: list[Evidence] = []
    seen: set[tuple[str, str]] = set()
    for found in computed.inputs:
        src = found.source
        if src is None or not hasattr(src, "chunk"):
            continue
        key = (src.chunk.chunk_id, src.quote)
        if key in seen:
            continue
        seen.add(key)
        chunk = src.chunk
        out.append(
            Evidence(
                evidence_id=evidence_id(step_index, first_number + len(out)),
                kind="filing",
                text=chunk.text,
                chunk_id=chunk.chunk_id,
                filing_id=chunk.filing_id,
                filing_label=labels.get(chunk.filing_id),
                section=chunk.section,
                section_title=chunk.section_title or None,
                page=chunk.page,
                quote=src.quote,
            )
        )
    return out


def state_figures(
    requests: Sequence[FigureRequest],
    rows: Sequence[SourcedRow],
    *,
    step_index: int,
    labels: dict[str, str] | None = None,
    facts: Lookup | None = None,
    parts: PartsLookup | None = None,
) -> CalculatorResult:
    """Each request computed from `rows` (and the filing's facts, found by meaning): a calculation citing
    its input rows, or a note saying what was not found. A line item asked by segment is stated part by
    part where the filing's tables break it down (`parts`)."""
    lookup = make_lookup(rows, facts)
    result = CalculatorResult()
    number = 1
    for request in requests:
        computed = (parts is not None and request.by_part and breakdown(request, parts)) or compute(
            request, partial(lookup, months=request.months)
        )
        inputs = _input_evidence(computed, step_index, number + 1, labels or {})
        calc_id = evidence_id(step_index, number)
        number += 1 + len(inputs)
        result.missing.extend(f"{name} for {request.period_name(year)}" for name, year in computed.missing)
        if not computed.complete:
            result.notes.append(computed.headline)
            continue
        text = f"{computed.headline} — {computed.working}"
        result.notes.append(text)
        result.evidence += [
            Evidence(evidence_id=calc_id, kind="calculation", text=text, title="calculation"),
            *inputs,
        ]
        result.cards.append(
            KnowledgeCard(
                claim=text,
                evidence_ids=[e.evidence_id for e in inputs],
                confidence=0.9,
                statement=computed.sentence or None,
            )
        )
    return result


def run_calculator(
    sub_question: str,
    keywords: list[str],
    prior: list[Evidence],
    *,
    step_index: int,
    default_year: int | None,
    rows: RowSource | None,
    owner: str | None = None,
    labels: dict[str, str] | None = None,
    facts: Lookup | None = None,
    calendar: FiscalCalendar | None = None,
    parts: PartsLookup | None = None,
) -> CalculatorResult:
    """The calculator step: the figures the sub-question names, computed from table rows (`rows` gives them
    for the statements needed; `owner` names whose figures they are when a run has several filings; a
    quarterly report's `calendar` makes them the quarter's), or else the growth, ratio, difference or
    expression it asks for, over figures in `prior` evidence."""
    requests = requests_in(sub_question, default_year, calendar)
    if owner:
        requests = [replace(r, name=f"{owner} {r.name}") for r in requests]
    if requests and rows is not None:
        statements = list(dict.fromkeys(st for r in requests for st in r.statements))
        return state_figures(
            requests, rows(statements), step_index=step_index, labels=labels, facts=facts, parts=parts
        )
    result = CalculatorResult()
    for outcome in run_calculations(sub_question, keywords, prior, step_index=step_index):
        result.notes.append(outcome.note)
        if outcome.evidence is None:
            continue
        result.evidence.append(outcome.evidence)
        claim = outcome.note.split(" (figures from")[0]
        if outcome.source_evidence_ids:
            claim += " (computed from the cited figures)"
        result.cards.append(
            KnowledgeCard(claim=claim, evidence_ids=outcome.source_evidence_ids, confidence=0.8)
        )
    return result
