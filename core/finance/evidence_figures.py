"""Growth, ratio or difference of figures that earlier evidence states in prose or table rows: what the
calculator computes when a step names no figure the lexicon or the question defines."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from core.finance.arithmetic import (
    CalculationError,
    difference,
    evaluate,
    growth_rate,
    is_expression,
    ratio,
)
from core.finance.question import CAGR_RE, CHANGE_RE, DIFFERENCE_RE, RATIO_RE, direction
from core.finance.rows import rendered_rows
from core.models import Evidence, evidence_id
from core.text.figures import Figure, find_figures, format_amount
from core.text.sentences import split_sentences
from core.text.tokens import content_terms

Operation = str  # "growth" | "ratio" | "difference" | "expression"

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
    if DIFFERENCE_RE.search(question):
        return "difference"
    if RATIO_RE.search(question):
        return "ratio"
    if CHANGE_RE.search(question) or CAGR_RE.search(question) or direction(question):
        return "growth"
    return None


@dataclass
class _Located:
    figures: list[Figure]
    sentence: str
    evidence_id: str
    score: float


@dataclass
class _Pair:
    current: Figure
    prior: Figure
    sentence: str
    evidence_id: str
    score: float


_CUE_RE = re.compile(r"\b(from|compared (with|to)|versus|vs\.?|prior year|a year (ago|earlier))\b", re.I)
_RATE_TERMS = {"margin", "rate", "percentag", "share", "yield"}


def _amounts(sentence: str) -> list[Figure]:
    # Amounts, not percentages or bare small counts: growth of "3 segments" is meaningless.
    return [f for f in find_figures(sentence) if not f.is_percent and (f.is_currency or abs(f.value) >= 1000)]


def _readings(ev: Evidence) -> list[tuple[str, list[Figure], str]]:
    """(text, amounts, subject) for each prose sentence and each table row of the evidence."""
    out = []
    for sentence in split_sentences(ev.text):
        if sentence.count("|") >= 2:
            continue  # a flattened table: its rows are read below
        figures = _amounts(sentence)
        if figures:
            out.append((sentence, figures, sentence[: figures[0].start]))
    for row in rendered_rows(ev.text):
        # Table cells are amounts in the table's unit even without "$" or thousands separators.
        figures = [f for v in row.values for f in find_figures(v)[:1] if not f.is_percent]
        if figures:
            out.append((row.rendered, figures, f"{row.caption} {row.label}"))
    return out


def _prose_pair(sentence: str, rate: bool) -> tuple[Figure, Figure, str] | None:
    """(current, prior, subject) when two figures of one kind are compared ("to X from Y", "X compared with Y")."""
    if "respectively" in sentence.lower():
        return None  # parallel lists pair figures in ways word order cannot show
    figures = [f for f in find_figures(sentence) if f.is_percent] if rate else _amounts(sentence)
    for a, b in itertools.pairwise(figures):
        between = sentence[a.end : b.start]
        if re.search(r"\bfrom\s*$", sentence[: a.start]) and re.fullmatch(r"\s*to\s*", between):
            return b, a, sentence[: a.start]  # "from $78.1 million to $112.5 million"
        if _CUE_RE.search(between):
            return a, b, sentence[: a.start]
    return None


def _pairs(ev: Evidence, rate: bool) -> list[tuple[str, Figure, Figure, str]]:
    out = []
    for sentence in split_sentences(ev.text):
        if sentence.count("|") < 2 and (pair := _prose_pair(sentence, rate)):
            out.append((sentence, pair[0], pair[1], pair[2]))
    for row in rendered_rows(ev.text):
        # Filing tables list the current period first.
        cells = [(v, y) for v, y in zip(row.values, row.years or [None] * len(row.values), strict=False)]
        figures = [(f, y) for v, y in cells for f in find_figures(v)[:1] if f.is_percent == rate]
        if len(figures) >= 2:
            (first, y1), (second, y2) = figures[0], figures[1]
            if y1 and y2 and y1 < y2:
                first, second = second, first  # an oldest-first table
            out.append((row.rendered, first, second, f"{row.caption} {row.label}"))
    return out


def _score(terms: list[str], text: str, subject_text: str) -> float:
    words, subject = set(content_terms(text)), set(content_terms(subject_text))
    overlap = sum(1 for t in terms if t in words)
    if overlap == 0:
        return 0.0
    # The metric is usually the subject, named before its first figure; an exact name beats a longer
    # one that merely contains it ("Net income" over "Interest and other income, net").
    exact = len(set(terms) & subject) / len(set(terms) | subject) if subject else 0.0
    return (overlap + 2 * sum(1 for t in terms if t in subject)) / max(len(terms), 1) + exact


def _locate_pair(terms: list[str], prior: list[Evidence]) -> _Pair | None:
    rate = bool(set(terms) & _RATE_TERMS)
    best: _Pair | None = None
    for ev in prior:
        if ev.kind not in ("filing", "web"):
            continue
        for text, current, before, subject in _pairs(ev, rate):
            score = _score(terms, text, subject)
            if score > 0 and (best is None or score > best.score):
                best = _Pair(current, before, text, ev.evidence_id, score)
    return best


def _locate(terms: list[str], prior: list[Evidence], *, min_figures: int) -> _Located | None:
    best: _Located | None = None
    for ev in prior:
        if ev.kind not in ("filing", "web"):
            continue
        for text, figures, subject_text in _readings(ev):
            score = _score(terms, text, subject_text) if len(figures) >= min_figures else 0.0
            if score > 0 and (best is None or score > best.score):
                best = _Located(figures, text, ev.evidence_id, score)
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


def _evidence(step_index: int, n: int, text: str) -> Evidence:
    return Evidence(
        evidence_id=evidence_id(step_index, n), kind="calculation", text=text, title="calculation"
    )


def _one_metric(
    operation: Operation, part: str, prior: list[Evidence], step_index: int, n: int
) -> CalculationOutcome:
    terms = _metric_terms(part)
    pair = _locate_pair(terms, prior)
    if pair is None:
        return CalculationOutcome(
            None,
            f"no compared pair of figures for “{part.strip(' ?.,')}” was found in earlier evidence",
            operation,
        )
    new, old = pair.current, pair.prior
    if new.is_percent:
        # Rates change in percentage points; a percent-of-a-percent would mislead.
        text = (
            f"Change from {old.raw} to {new.raw} = {difference(new.value, old.value):+.1f} percentage points"
        )
    elif operation == "difference" or old.value <= 0:
        # A change from a loss (or zero) has no meaningful growth rate: state the difference.
        text = f"Difference {new.raw} − {old.raw} = {format_amount(difference(new.value, old.value))}"
    else:
        text = f"Change from {old.raw} to {new.raw} = {growth_rate(old.value, new.value):+.1f}%"
    text += f' (figures from [{pair.evidence_id}]: "{pair.sentence}")'
    return CalculationOutcome(_evidence(step_index, n, text), text, operation, [pair.evidence_id])


def run_calculations(
    sub_question: str, keywords: list[str], prior: list[Evidence], *, step_index: int
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
            return [CalculationOutcome(_evidence(step_index, 1, text), text, "expression")]
    operation = detect_operation(sub_question) or "growth"
    try:
        if operation == "ratio":
            return [_ratio(sub_question, prior, step_index)]
        return [
            _one_metric(operation, part, prior, step_index, n)
            for n, part in enumerate(metric_parts(sub_question), start=1)
        ]
    except CalculationError as exc:
        return [CalculationOutcome(None, f"calculation failed: {exc}", operation)]


def _ratio(question: str, prior: list[Evidence], step_index: int) -> CalculationOutcome:
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
    return CalculationOutcome(_evidence(step_index, 1, text), text, "ratio", sources)
