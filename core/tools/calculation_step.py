"""Run a calculator plan step over figures that earlier steps found in the filings."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.models import Evidence
from core.tools.calculator import (
    CalculationError,
    difference,
    evaluate,
    growth_rate,
    is_expression,
    ratio,
)
from core.tools.figures import Figure, find_figures, format_amount
from core.tools.sentences import content_terms, split_sentences

Operation = str  # "growth" | "ratio" | "difference" | "expression"

_GROWTH_RE = re.compile(r"\b(growth|grew|grow|increase|decrease|change|changed|cagr|rise|decline)\b", re.I)
_RATIO_RE = re.compile(r"\b(ratio|as a (percentage|percent|share|proportion) of|share of|per)\b", re.I)
_DIFF_RE = re.compile(r"\b(difference|how much (more|less|higher|lower)|gap|exceed)\b", re.I)
_OP_WORDS = set(
    content_terms(
        "growth grew grow increase increased decrease decreased change changed rate ratio percentage percent "
        "share difference compute calculate much higher lower more less between compare comparison proportion "
        "how did does what was were year-over-year yoy"
    )
)
# Filings spell metrics out; questions abbreviate them.
_SYNONYMS = {
    "r&d": ["research", "development"],
    "spend": ["expens"],
    "sale": ["revenu"],
    "capex": ["capital"],
}


@dataclass
class CalculationOutcome:
    """What a calculator step produced: a calculation as evidence, or a note saying why not."""

    evidence: Evidence | None
    note: str
    operation: Operation | None = None
    source_evidence_ids: list[str] = field(default_factory=list)


def detect_operation(question: str) -> Operation | None:
    """Which calculation a sub-question asks for, if any."""
    if _DIFF_RE.search(question):
        return "difference"
    if _RATIO_RE.search(question):
        return "ratio"
    if _GROWTH_RE.search(question):
        return "growth"
    return None


@dataclass
class _Located:
    figures: list[Figure]
    sentence: str
    evidence_id: str
    score: float


def _amounts(sentence: str) -> list[Figure]:
    # Amounts, not percentages or bare small counts: growth of "3 segments" is meaningless.
    return [f for f in find_figures(sentence) if not f.is_percent and (f.is_currency or abs(f.value) >= 1000)]


def _locate(terms: list[str], prior: list[Evidence], *, min_figures: int) -> _Located | None:
    best: _Located | None = None
    for ev in prior:
        if ev.kind not in ("filing", "web"):
            continue
        for sentence in split_sentences(ev.text):
            figures = _amounts(sentence)
            if len(figures) < min_figures:
                continue
            sentence_terms = set(content_terms(sentence))
            # The metric is usually the subject, named before its first figure.
            subject = set(content_terms(sentence[: figures[0].start]))
            overlap = sum(1 for t in terms if t in sentence_terms)
            if overlap == 0:
                continue
            score = (overlap + 2 * sum(1 for t in terms if t in subject)) / max(len(terms), 1)
            if best is None or score > best.score:
                best = _Located(figures, sentence, ev.evidence_id, score)
    return best


def _metric_terms(question: str) -> list[str]:
    terms = [t for t in content_terms(question) if t not in _OP_WORDS and not t.isdigit()]
    for t in list(terms):
        terms.extend(s for s in _SYNONYMS.get(t, []) if s not in terms)
    return terms


def metric_parts(question: str) -> list[str]:
    """The metrics a question names: 'Fleet Software revenue and R&D spending' -> two parts."""
    parts = [p for p in re.split(r"\s+and\s+|,|;", question) if _metric_terms(p)]
    return parts or [question]


def _evidence(step_prefix: str, n: int, text: str) -> Evidence:
    return Evidence(evidence_id=f"{step_prefix}-E{n}", kind="calculation", text=text, title="calculation")


def _current_and_prior(located: _Located) -> tuple[Figure, Figure]:
    first, second = located.figures[0], located.figures[1]
    before, between = located.sentence[: first.start], located.sentence[first.end : second.start]
    # "from $78.1 million to $112.5 million" names the prior figure first; otherwise filings lead
    # with the current one ("increased 44% to $112.5 million from $78.1 million").
    if re.search(r"\bfrom\s*$", before) and re.search(r"\bto\b", between):
        return second, first
    return first, second


def _one_metric(
    operation: Operation, part: str, prior: list[Evidence], prefix: str, n: int
) -> CalculationOutcome:
    terms = _metric_terms(part)
    located = _locate(terms, prior, min_figures=2)
    if located is None:
        return CalculationOutcome(
            None,
            f"no pair of figures for {' '.join(terms) or 'the metric'} was found in earlier evidence",
            operation,
        )
    new, old = _current_and_prior(located)
    if operation == "difference":
        text = f"Difference {new.raw} − {old.raw} = {format_amount(difference(new.value, old.value))}"
    else:
        text = f"Change from {old.raw} to {new.raw} = {growth_rate(old.value, new.value):+.1f}%"
    text += f' (figures from [{located.evidence_id}]: "{located.sentence}")'
    return CalculationOutcome(_evidence(prefix, n, text), text, operation, [located.evidence_id])


def run_calculations(
    sub_question: str, keywords: list[str], prior: list[Evidence], *, step_prefix: str
) -> list[CalculationOutcome]:
    """One calculation per metric the sub-question names (or its explicit arithmetic expression)."""
    for candidate in [*keywords, sub_question]:
        expr = candidate.split(":", 1)[-1] if candidate.lower().startswith("expr") else candidate
        if is_expression(expr):
            try:
                value = evaluate(expr)
            except CalculationError as exc:
                return [CalculationOutcome(None, f"calculation failed: {exc}", "expression")]
            text = f"{expr.strip()} = {value:,.4g}"
            return [CalculationOutcome(_evidence(step_prefix, 1, text), text, "expression")]
    operation = detect_operation(sub_question) or "growth"
    try:
        if operation == "ratio":
            return [_ratio(sub_question, prior, step_prefix)]
        return [
            _one_metric(operation, part, prior, step_prefix, n)
            for n, part in enumerate(metric_parts(sub_question), start=1)
        ]
    except CalculationError as exc:
        return [CalculationOutcome(None, f"calculation failed: {exc}", operation)]


def _ratio(question: str, prior: list[Evidence], step_prefix: str) -> CalculationOutcome:
    # "ratio of A to B", "A as a percentage of B": split the metric into numerator and denominator.
    parts = re.split(
        r"\bto\b|\bas a (?:percentage|percent|share|proportion) of\b|\bover\b|\bdivided by\b", question
    )
    if len(parts) < 2:
        return CalculationOutcome(None, "could not tell numerator from denominator", "ratio")
    num = _locate(_metric_terms(parts[0]), prior, min_figures=1)
    den = _locate(_metric_terms(parts[1]), prior, min_figures=1)
    if num is None or den is None:
        missing = "numerator" if num is None else "denominator"
        return CalculationOutcome(None, f"no figure for the {missing} was found in earlier evidence", "ratio")
    value = ratio(num.figures[0].value, den.figures[0].value)
    text = (
        f"Ratio {num.figures[0].raw} / {den.figures[0].raw} = {value:.4g} ({value * 100:.1f}%) "
        f"(figures from [{num.evidence_id}] and [{den.evidence_id}])"
    )
    sources = list(dict.fromkeys([num.evidence_id, den.evidence_id]))
    return CalculationOutcome(_evidence(step_prefix, 1, text), text, "ratio", sources)
