"""Rules that pick vector, keyword or hybrid search from a query's signals (the offline supervisor's choice)."""

from __future__ import annotations

import re

from core.finance.vocabulary import STATEMENTS, explicit_items
from core.models import QueryAnalysis, StrategyDecision

_ACRONYM = re.compile(r"\b[A-Z][A-Z0-9&]{1,5}\b")
# Upper-case tokens that are periods or units rather than terms to match.
_NOT_A_TERM = re.compile(r"FY\d*|Q[1-4]|USD|EUR|GBP|US|U\.S|YOY|TTM")

#: Thresholds on QueryAnalysis scores; a signal fires when the score reaches them.
DENSE_TERMS = 0.75
SPARSE_TERMS = 0.3
ABSTRACT = 0.3


def _keyword_signals(analysis: QueryAnalysis) -> list[str]:
    """Reasons to trust exact term matching."""
    signals: list[str] = []
    if analysis.quoted_terms:
        signals.append("quoted terms (" + ", ".join(f'"{t}"' for t in analysis.quoted_terms[:3]) + ")")
    if analysis.numbers:
        signals.append("specific numbers (" + ", ".join(analysis.numbers[:3]) + ")")
    if explicit_items(analysis.original):
        signals.append("an explicit Item reference")
    acronyms = [a for a in _ACRONYM.findall(analysis.core_query) if not _NOT_A_TERM.fullmatch(a)]
    if acronyms:
        signals.append("acronyms or tickers (" + ", ".join(dict.fromkeys(acronyms[:3])) + ")")
    if analysis.term_density >= DENSE_TERMS:
        signals.append(f"a high density of specific terms ({analysis.term_density:.2f})")
    return signals


def _vector_signals(analysis: QueryAnalysis) -> list[str]:
    """Reasons to trust semantic similarity."""
    signals: list[str] = []
    if analysis.abstractness >= ABSTRACT:
        signals.append(f"abstract wording ({analysis.abstractness:.2f})")
    if analysis.term_density < SPARSE_TERMS and not analysis.numbers and not analysis.quoted_terms:
        signals.append(f"few specific terms ({analysis.term_density:.2f})")
    return signals


def strategy_by_rules(analysis: QueryAnalysis) -> StrategyDecision:
    """Keyword for exact, term-dense queries; vector for abstract ones; hybrid when the signals mix."""
    keyword = _keyword_signals(analysis)
    vector = _vector_signals(analysis)
    # Quoted terms are the analyst saying "match this verbatim": only exact matching honours that.
    if analysis.statements and not analysis.quoted_terms and not analysis.numbers:
        # A metric's name or acronym (DPO, COGS) is not what a statement's rows say, and a row of numbers
        # embeds poorly: neither ranking alone finds statement rows reliably.
        strategy = "hybrid"
        reason = (
            f"the figures asked for are reported in the {_join(STATEMENTS[s].short for s in analysis.statements)}, "
            "whose rows match neither the question's wording nor its meaning reliably, so both rankings are "
            "fused (and the statement pages join the candidates)"
        )
    elif analysis.quoted_terms or (len(keyword) >= 2 and not vector):
        strategy, reason = "keyword", f"{_join(keyword)} favour exact keyword matching"
    elif vector and not keyword:
        strategy, reason = "vector", f"{_join(vector)} favour semantic vector search"
    elif keyword and vector:
        strategy = "hybrid"
        reason = (
            f"{_join(keyword)} favour exact matching while {_join(vector)} favour semantic search, "
            "so both rankings are fused"
        )
    elif keyword:
        strategy = "hybrid"
        reason = (
            f"{_join(keyword)} alone is too weak a cue for exact matching only, so both rankings are fused"
        )
    else:
        strategy, reason = (
            "hybrid",
            "no strong cue for exact or semantic matching, so both rankings are fused",
        )
    return StrategyDecision(
        strategy=strategy, justification=f"Chose {strategy}: {reason}.", decided_by="offline"
    )  # type: ignore[arg-type]


def _join(parts) -> str:
    parts = list(parts)
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]
