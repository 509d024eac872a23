"""How much of a phrase the vocabulary names: "total revenue" is revenue, "deferred revenue" is not."""

from __future__ import annotations

import re

from core.finance.vocabulary.line_items import LineItem, line_item_for, line_item_mentions
from core.finance.vocabulary.metrics import metric_mentions
from core.finance.vocabulary.statements import STATEMENT_NAME_RE
from core.finance.vocabulary.terms import with_filing_words
from core.text.tokens import STOPWORDS

#: Words beside a line item's name that do not change what it is ("total revenue", "annual net sales").
NEUTRAL_WORDS = frozenset(
    [
        *("total", "net", "gross", "annual", "consolidated", "quarterly", "reported", "overall"),
        *("adjusted", "unadjusted", "fiscal", "year-end", "expense", "expenses", "amount", "amounts"),
        *("spending", "spend", "expenditure", "expenditures", "outlays"),
        *("figure", "figures", "segment", "segments", "business", "division", "region"),
    ]
)


#: A product's or brand's name written in camel case ("iPhone", "eBay"): a name wherever it stands.
_CAMEL_NAME_RE = re.compile(r"[a-z]+[A-Z]")
_WHERE_RE = re.compile(rf"\b(?:from|in|on|per)?\s*(?:the\s+)?(?:{STATEMENT_NAME_RE.pattern})", re.I)


def words_beyond(phrase: str) -> list[str]:
    """The lowercase content words of `phrase` that no line item or metric it names accounts for ("deferred"
    in "deferred revenue", "paid" in "income taxes paid"); capitalised names (a segment: "Data Center"),
    neutral words and stop-words aside."""
    spans = [(m.start, m.end) for m in [*line_item_mentions(phrase), *metric_mentions(phrase)]]
    # Where a figure is printed is not what it is: "depreciation and amortization from the cash flow statement".
    spans += [(m.start(), m.end()) for m in _WHERE_RE.finditer(phrase)]
    beyond = []
    words = list(re.finditer(r"[A-Za-z][\w&'’-]*", phrase))
    for k, word in enumerate(words):
        text = re.sub(r"['’]s$", "", word.group().lower())
        following = words[k + 1].group() if k + 1 < len(words) else ""
        # A capital names something ("Data Center", "AWS"), except on a phrase's lone first word ("Goodwill").
        named = word.group()[:1].isupper() and (
            k > 0 or following[:1].isupper() or word.group().isupper() or re.search(r"['’]s$", word.group())
        )
        named = named or bool(_CAMEL_NAME_RE.match(word.group()))
        if with_filing_words(word.group()) != word.group():
            named = False  # an analyst's shorthand names a figure ("SBC"), not a part of the company
        if (
            any(s <= word.start() < e for s, e in spans)
            or named
            or text in NEUTRAL_WORDS
            or text in STOPWORDS
            or len(text) < 3
        ):
            continue
        beyond.append(text)
    return beyond


def line_item_named(phrase: str) -> LineItem | None:
    """The line item a phrase names whole ('total revenue' -> revenue), or None when the phrase says more
    than a line item ('deferred revenue' is not revenue) or names none."""
    return None if words_beyond(phrase) else line_item_for(phrase)
