"""Search words of the vocabulary: how filings word what a question names, and which words are financial.

Statements rarely use an analyst's name for a figure ("capex", "DPO"): a keyword search also looks for the
line items that report it, taken from the line items and metrics the question names. A few analyst terms
are not line items of the lexicon (EPS is per share; bare "debt" spans several rows; topics such as
competition): their search words are listed here.
"""

from __future__ import annotations

import re

from core.finance.vocabulary.line_items import line_items_in
from core.finance.vocabulary.metrics import metrics_in

#: Analyst words that no line item or metric of the lexicon covers, and the words filings use for them.
_OTHER_SEARCH_TERMS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(p, re.I), words)
    for p, words in [
        (r"\beps\b|\bearnings per share\b", "earnings per share diluted"),
        (
            r"\bcash conversion cycle\b|\bccc\b",
            "inventories accounts receivable accounts payable cost of sales",
        ),
        (r"\bretention ratio\b", "cash dividends paid net income"),
        (r"\bdebt\b", "long-term debt borrowings notes"),
        (r"\bcompetition\b|\bcompetitive\b", "competitors competitive"),
        (r"\bliquidity\b", "cash capital resources"),
    ]
]


def search_terms_for(text: str) -> list[str]:
    """Wordings a filing uses for what `text` names: the line items it names and those its metrics are
    computed from, then the other analyst terms it uses, without repeats."""
    items = list(line_items_in(text))
    for metric in metrics_in(text):
        items.extend(line_items_in(metric.formula))
    words = [li.search_terms for li in items if li.search_terms]
    words += [terms for rx, terms in _OTHER_SEARCH_TERMS if rx.search(text)]
    return list(dict.fromkeys(words))


#: Analysts' shorthand and the words filings print instead, for finding a figure by its words.
_SHORTHAND: list[tuple[re.Pattern[str], str]] = [
    (re.compile(p, re.I), words)
    for p, words in [
        (r"\bsbc\b", "stock-based compensation"),
        (r"\bcomp\b", "compensation"),
        (r"\bshare-based\b", "share-based stock-based"),
        (r"\bstock-based\b", "stock-based share-based"),
        (r"\bopex\b", "operating expenses"),
        (r"\bbuy(?:ing|s)? back\b|\bbought back\b|\bbuybacks?\b", "repurchases"),
        (r"\bpa(?:y|id|ying)\b", "paid"),
        (r"\bspen[dt]\w*\b", "spent"),
        (r"\bburn\w*\b|\bconsum\w*\b", "used"),
        (r"\bgenerat\w*\b|\bbrought in\b", "provided"),
        (r"\bheadcount\b|\bhead\b", "employees"),
        (r"\bppe\b|\bpp&e\b", "property and equipment"),
    ]
]


def with_filing_words(phrase: str) -> str:
    """The phrase with the words filings print for an analyst's shorthand added ("SBC" -> "stock-based
    compensation", "burned" -> "used")."""
    added = [words for rx, words in _SHORTHAND if rx.search(phrase)]
    return " ".join([phrase, *added])


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Financial terms and metric names: their presence makes a query specific (keyword-friendly).
FINANCE_TERMS: frozenset[str] = _words(
    """
    revenue revenues sales income ebit ebitda eps margin margins capex expenditure expenditures
    depreciation amortization goodwill inventory inventories receivable receivables payable payables
    dividend dividends debt liabilities assets equity cash flow flows ratio turnover dpo dso dio ccc
    cogs sg&a r&d opex roa roe roic wacc cagr yoy qoq gaap non-gaap tax taxes buyback buybacks
    repurchase repurchases impairment restructuring lease leases backlog guidance segment segments
    acquisition acquisitions divestiture bps basis points shares outstanding diluted basic liquidity
    quick current working capital pp&e opex net gross operating interest expense
    """
)
