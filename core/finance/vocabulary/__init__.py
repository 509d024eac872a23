"""The one home of financial vocabulary: statements, line items, metrics, where a 10-K discusses a topic,
and the search words of each. Everything here is general accounting vocabulary, nothing is tuned to a
filing; the planner, query analysis, the calculator and the writer all read it from here."""

from core.finance.vocabulary.line_items import (
    LINE_ITEM_BY_KEY,
    LINE_ITEMS,
    LineItem,
    as_item_value,
    label_rank,
    labelled_items,
    line_item_for,
    line_item_mentions,
    line_items_in,
    normalise_label,
    parts_named,
    qualifier_before,
    qualifiers_before,
)
from core.finance.vocabulary.mentions import Mention
from core.finance.vocabulary.metrics import METRICS, Metric, metric_mentions, metrics_in
from core.finance.vocabulary.phrases import NEUTRAL_WORDS, line_item_named, words_beyond
from core.finance.vocabulary.statements import (
    STATEMENT_NAME_RE,
    STATEMENTS,
    WORKING_CAPITAL_RE,
    Statement,
    statement_kind,
    statement_title_kind,
    statements_named,
)
from core.finance.vocabulary.terms import FINANCE_TERMS, search_terms_for, with_filing_words
from core.finance.vocabulary.topics import ITEM_TOPICS, RISK_WORDS, explicit_items, item_for, item_hints

__all__ = [
    "FINANCE_TERMS",
    "ITEM_TOPICS",
    "LINE_ITEMS",
    "LINE_ITEM_BY_KEY",
    "METRICS",
    "NEUTRAL_WORDS",
    "RISK_WORDS",
    "STATEMENTS",
    "STATEMENT_NAME_RE",
    "WORKING_CAPITAL_RE",
    "LineItem",
    "Mention",
    "Metric",
    "Statement",
    "as_item_value",
    "explicit_items",
    "item_for",
    "item_hints",
    "label_rank",
    "labelled_items",
    "line_item_for",
    "line_item_mentions",
    "line_item_named",
    "line_items_in",
    "metric_mentions",
    "metrics_in",
    "normalise_label",
    "parts_named",
    "qualifier_before",
    "qualifiers_before",
    "search_terms_for",
    "statement_kind",
    "statement_title_kind",
    "statements_named",
    "with_filing_words",
    "words_beyond",
]
