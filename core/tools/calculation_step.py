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
_RATIO_RE = re.compile(r"\b(ratio|as a (percentage|percent|share|proportion) of|share of|margin|per)\b", re.I)
_DIFF_RE = re.compile(r"\b(difference|how much (more|less|higher|lower)|gap|exceed)\b", re.I)
_OP_WORDS = {
    "growth",
    "grew",
    "grow",
    "increase",
    "decrease",
    "change",
    "rate",
    "ratio",
    "percentage",
    "percent",
    "share",
    "difference",
    "compute",
    "calculate",
    "much",
    "higher",
    "lower",
    "more",
    "less",
    "between",
    "compar",
    "proportion",
    "chang",
    "increas",
    "decreas",
    "calcul",
    "comput",
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
            overlap = sum(1 for t in terms if t in sentence_terms)
            if overlap == 0:
                continue
            score = overlap / max(len(terms), 1) + (ev.score or 0.0) * 0.01
            if best is None or score > best.score:
                best = _Located(figures, sentence, ev.evidence_id, score)
    return best


def _metric_terms(question: str) -> list[str]:
    return [t for t in content_terms(question) if t not in _OP_WORDS and not t.isdigit()]


def _evidence(step_prefix: str, text: str) -> Evidence:
    return Evidence(evidence_id=f"{step_prefix}-E1", kind="calculation", text=text, title="calculation")


def run_calculation(
    sub_question: str, keywords: list[str], prior: list[Evidence], *, step_prefix: str
) -> CalculationOutcome:
    """Compute what `sub_question` asks from explicit expressions or from figures in `prior` evidence."""
    for candidate in [*keywords, sub_question]:
        expr = candidate.split(":", 1)[-1] if candidate.lower().startswith("expr") else candidate
        if is_expression(expr):
            try:
                value = evaluate(expr)
            except CalculationError as exc:
                return CalculationOutcome(None, f"calculation failed: {exc}", "expression")
            text = f"{expr.strip()} = {value:,.4g}"
            return CalculationOutcome(_evidence(step_prefix, text), text, "expression")

    operation = detect_operation(sub_question) or "growth"
    terms = _metric_terms(sub_question) or [t for k in keywords for t in content_terms(k)]
    try:
        if operation == "ratio":
            return _ratio(sub_question, prior, step_prefix)
        located = _locate(terms, prior, min_figures=2)
        if located is None:
            return CalculationOutcome(
                None,
                f"no pair of figures for {' '.join(terms) or 'the metric'} was found in earlier evidence",
                operation,
            )
        new, old = located.figures[0], located.figures[1]
        if operation == "difference":
            value = difference(new.value, old.value)
            text = f"Difference {new.raw} − {old.raw} = {format_amount(value)}"
        else:
            value = growth_rate(old.value, new.value)
            text = f"Change from {old.raw} to {new.raw} = {value:+.1f}%"
        text += f' (figures from [{located.evidence_id}]: "{located.sentence}"; first figure read as current)'
        return CalculationOutcome(_evidence(step_prefix, text), text, operation, [located.evidence_id])
    except CalculationError as exc:
        return CalculationOutcome(None, f"calculation failed: {exc}", operation)


def _ratio(question: str, prior: list[Evidence], step_prefix: str) -> CalculationOutcome:
    # "ratio of A to B", "A as a percentage of B": split the metric into numerator and denominator.
    parts = re.split(
        r"\bto\b|\bas a (?:percentage|percent|share|proportion) of\b|\bover\b|\bdivided by\b", question
    )
    if len(parts) < 2:
        return CalculationOutcome(None, "could not tell numerator from denominator", "ratio")
    num_terms, den_terms = _metric_terms(parts[0]), _metric_terms(parts[1])
    num = _locate(num_terms, prior, min_figures=1)
    den = _locate(den_terms, prior, min_figures=1)
    if num is None or den is None:
        missing = "numerator" if num is None else "denominator"
        return CalculationOutcome(None, f"no figure for the {missing} was found in earlier evidence", "ratio")
    value = ratio(num.figures[0].value, den.figures[0].value)
    text = (
        f"Ratio {num.figures[0].raw} / {den.figures[0].raw} = {value:.4g} ({value * 100:.1f}%) "
        f"(figures from [{num.evidence_id}] and [{den.evidence_id}])"
    )
    sources = list(dict.fromkeys([num.evidence_id, den.evidence_id]))
    return CalculationOutcome(_evidence(step_prefix, text), text, "ratio", sources)
