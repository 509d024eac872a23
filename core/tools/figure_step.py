"""A calculator step that states the figures a question asks for, computed from cited table rows.

The step reads the requests in its sub-question (a metric defined there, a metric the lexicon knows, or a
line item), looks each input up in the table rows of the pages earlier steps retrieved, and records the
result as a calculation whose inputs are filing passages quoted row by row.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.finance.compute import ComputedFigure, compute
from core.finance.formula import FormulaError
from core.finance.lookup import SourcedRow, make_lookup
from core.finance.requests import FigureRequest, figure_requests
from core.models import Evidence
from core.tools.calculation_step import CalculationOutcome


def requests_in(sub_question: str, default_year: int | None) -> list[FigureRequest]:
    """The figure requests a calculator step's wording carries (empty when it names none)."""
    try:
        return figure_requests(sub_question, default_year)
    except FormulaError:
        return []


def _input_evidence(
    computed: ComputedFigure, prefix: str, first_number: int, labels: dict[str, str]
) -> list[Evidence]:
    """One filing evidence per input row, quoting the row verbatim; the same row cited once."""
    out: list[Evidence] = []
    seen: set[tuple[str, str]] = set()
    for found in computed.inputs:
        sourced = found.source
        if not isinstance(sourced, SourcedRow):
            continue
        src = sourced.source
        key = (src.chunk.chunk_id, src.quote)
        if key in seen:
            continue
        seen.add(key)
        chunk = src.chunk
        out.append(
            Evidence(
                evidence_id=f"{prefix}-E{first_number + len(out)}",
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


def run_figure_requests(
    requests: Sequence[FigureRequest],
    rows: Sequence[SourcedRow],
    *,
    step_prefix: str,
    labels: dict[str, str] | None = None,
) -> list[tuple[CalculationOutcome, list[Evidence], ComputedFigure]]:
    """(outcome, cited input passages, the computation) for each request."""
    lookup = make_lookup(rows)
    results = []
    number = 1
    for request in requests:
        computed = compute(request, lookup)
        inputs = _input_evidence(computed, step_prefix, number + 1, labels or {})
        calc_id = f"{step_prefix}-E{number}"
        number += 1 + len(inputs)
        if not computed.complete:
            note = computed.headline
            results.append((CalculationOutcome(None, note, "figure"), [], computed))
            continue
        text = f"{computed.headline} — {computed.working}"
        evidence = Evidence(evidence_id=calc_id, kind="calculation", text=text, title="calculation")
        outcome = CalculationOutcome(evidence, text, "figure", [e.evidence_id for e in inputs])
        results.append((outcome, inputs, computed))
    return results
