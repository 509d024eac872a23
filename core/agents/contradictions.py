"""Contradiction detection across evidence: the same metric and period with different figures, or
opposite statements about the same thing."""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.finance.question import direction
from core.text.figures import find_figures
from core.text.periods import YEAR, fiscal_years
from core.text.sentences import jaccard
from core.text.tokens import content_terms

_NEG_RE = re.compile(r"\b(not|no|never|none|neither|nor|without)\b", re.I)
_NOT_METRIC = {
    "approximately",
    "total",
    "compar",
    "fiscal",
    "year",
    "million",
    "billion",
    "thousand",
    "percent",
}


@dataclass(frozen=True)
class Fact:
    """A figure stated about a metric for a period, as read from one sentence of one evidence."""

    metric: frozenset[str]
    period: int | None
    value: float
    is_percent: bool
    raw: str
    evidence_id: str


@dataclass(frozen=True)
class Conflict:
    evidence_id: str
    description: str


def extract_facts(sentence: str, evidence_id: str) -> list[Fact]:
    """Metric/period/value triples of a sentence: the metric is the few content words before a figure."""
    years = [(m.start(), int(m.group(0))) for m in re.finditer(rf"\b{YEAR}\b", sentence)]
    facts = []
    for fig in find_figures(sentence):
        window = sentence[max(0, fig.start - 45) : fig.start]
        window = re.split(r"[,;:]|\b(?:and|compared|from|versus|vs)\b", window)[-1]
        metric = [t for t in content_terms(window) if not t.isdigit() and t not in _NOT_METRIC]
        if not metric:
            continue
        period = min(years, key=lambda y: abs(y[0] - fig.start))[1] if years else None
        facts.append(Fact(frozenset(metric[-3:]), period, fig.value, fig.is_percent, fig.raw, evidence_id))
    return facts


def _figure_conflict(a: Fact, b: Fact) -> bool:
    if a.period is None or a.period != b.period or a.is_percent != b.is_percent:
        return False
    # "Data Center revenue" and "revenue" are different metrics: require nearly the same words.
    if jaccard(set(a.metric), set(b.metric)) < 0.67:
        return False
    bigger = max(abs(a.value), abs(b.value))
    return bigger > 0 and abs(a.value - b.value) / bigger > 0.02


def find_conflict(sentence: str, evidence_id: str, pool: list[tuple[str, str]]) -> Conflict | None:
    """The first sentence of other evidence in `pool` that contradicts `sentence`, if any."""
    facts = extract_facts(sentence, evidence_id)
    terms = set(content_terms(sentence))
    polarity = direction(sentence)
    negated = bool(_NEG_RE.search(sentence))
    years = set(fiscal_years(sentence))
    for other, other_id in pool:
        if other_id == evidence_id or other == sentence:
            continue
        for fact in facts:
            for other_fact in extract_facts(other, other_id):
                if _figure_conflict(fact, other_fact):
                    metric = " ".join(sorted(fact.metric & other_fact.metric))
                    return Conflict(
                        other_id,
                        f"{metric} for {fact.period}: {fact.raw} in one passage vs {other_fact.raw} in another",
                    )
        other_terms = set(content_terms(other))
        if jaccard(terms, other_terms) < 0.5 or (
            years and set(fiscal_years(other)) and years != set(fiscal_years(other))
        ):
            continue
        other_polarity = direction(other)
        if polarity and other_polarity and polarity != other_polarity:
            return Conflict(other_id, "two passages state opposite directions for the same thing")
        if negated != bool(_NEG_RE.search(other)) and jaccard(terms, other_terms) >= 0.7:
            return Conflict(other_id, "one passage negates what the other states")
    return None
