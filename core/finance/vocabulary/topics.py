"""Where a 10-K discusses a topic: one table from topic words to Items, in one priority order.

A topic is matched to the Item that *discusses* it (risks: 1A, drivers of results: 7, legal matters: 3 …).
Figures are *reported* in the financial statements (Item 8): a text that names a line item, a metric or a
statement counts each such name as a match for Item 8, so "What was revenue in FY2022?" points to the
statements first and "What drove revenue growth?" to MD&A.
"""

from __future__ import annotations

import re

from core.finance.vocabulary.line_items import line_item_mentions
from core.finance.vocabulary.metrics import metric_mentions
from core.finance.vocabulary.statements import STATEMENT_NAME_RE
from core.text.items import ITEM_REF_RE

#: (Item, topic words), most specific first: a tie goes to the earlier Item.
ITEM_TOPICS: list[tuple[str, re.Pattern[str]]] = [
    (item, re.compile(pattern, re.I))
    for item, pattern in [
        ("Item 1C", r"\bcyber\w*|\binformation security\b"),
        (
            "Item 7A",
            r"\bmarket risks?\b|\binterest rate (?:risk|sensitivity|exposure)|\bforeign (?:currenc|exchange)"
            r"|\bexchange rates?\b|\bfx\b|\bcurrency risk|\bcommodity price risk|\bhedg|\bbasis points?\b|\bsofr\b"
            r"|\blibor\b|\bsensitivity\b|\bhypothetical\b|\badverse (?:move|change)|\brising (?:interest )?rates"
            r"|\bexposed to\b|\bexposure\b",
        ),
        (
            "Item 3",
            r"\blegal\b|\blitigation|\blawsuits?\b|\bproceedings?\b|\bsettlements?\b|\bsubpoena|\balleg"
            r"|\bdefendants?\b|\bplaintiffs?\b",
        ),
        (
            "Item 1A",
            r"\brisks?\b|\bthreats?\b|\buncertaint|\bvulnerab|\bheadwinds?\b|\bdependen|\bsingle source"
            r"|\bsole source|\bconcentrat",
        ),
        ("Item 1B", r"\bunresolved staff comments\b"),
        (
            "Item 2",
            r"\bpropert(?:y|ies)\b(?!,? plant)|\bfacilit|\bheadquarter|\bsquare feet\b|\boffice space\b",
        ),
        ("Item 4", r"\bmine safety\b"),
        (
            "Item 5",
            r"\bshare repurchases?\b|\brepurchase|\bbuybacks?\b|\bstock performance\b|\bstock price\b"
            r"|\bholders of record\b|\bdividend polic|\bmarket for (?:the )?registrant",
        ),
        # Notes to the statements: topics an analyst reads in Item 8 beyond the statements' rows.
        (
            "Item 8",
            r"\bfinancial statements?\b|\bnotes? to\b|\bfootnotes?\b|\bgoodwill\b|\bintangible|\bincome tax"
            r"|\beffective tax rate\b|\bleases?\b|\bdebt\b|\bstock-based\b|\bshare-based\b|\bacquisitions?\b"
            r"|\binventor(?:y|ies)\b|\bdepreciat|\bamortization\b|\bearnings per share\b|\beps\b",
        ),
        (
            "Item 7",
            r"\bresults?\b|\bsegments?\b|\bliquidity\b|\bmd&a\b|\bmanagement'?s discussion\b|\bmargins?\b"
            r"|\bdr(?:o|i)ve\w*|\bdrivers?\b|\bguidance\b|\boutlook\b|\bregions?\b|\btop[- ]?line\b"
            r"|\bcapital resources\b|\bnon-gaap\b|\bgrowth\b|\brevenues?\b|\bsales\b|\bexpenses?\b|\br&d\b"
            r"|\bresearch and development\b|\bprofit\w*|\bperformance\b|\boperating (?:income|expense)",
        ),
        (
            "Item 1",
            r"\bbusiness\b|\bcompetition\b|\bcompetitors?\b|\bcompet\w*|\bproducts?\b|\bservices?\b"
            r"|\bemployees\b|\bhuman capital\b|\bcustomers?\b|\bsuppliers?\b|\bmanufactur|\bgeograph"
            r"|\bstrategy\b|\bseasonal",
        ),
        ("Item 9A", r"\binternal control|\bcontrols and procedures\b|\bdisclosure controls\b|\bsox\b"),
        ("Item 10", r"\bdirectors\b|\bexecutive officers\b|\bcorporate governance\b|\bcode of ethics\b"),
        ("Item 11", r"\bexecutive compensation\b|\bcompensation of (?:our )?executives|\bceo pay\b"),
        ("Item 12", r"\bbeneficial owners?\b|\bsecurity ownership\b"),
        ("Item 13", r"\brelated[- ]part(?:y|ies)\b|\bdirector independence\b"),
        ("Item 14", r"\baccountant fees\b|\baudit fees\b|\bauditor fees\b"),
        ("Item 15", r"\bexhibits?\b|\bfinancial statement schedules\b"),
    ]
]
_ORDER = {item: n for n, (item, _) in enumerate(ITEM_TOPICS)}

#: Topic words that make Item 1A win over more generic Items (a risk question is a risk question).
RISK_WORDS = re.compile(r"\brisks?\b|\bthreats?\b|\buncertaint|\bvulnerab|\bexposure\b", re.I)


def explicit_items(text: str) -> list[str]:
    """Items the text names ("Item 7", "item 1a"), as 'Item 7' / 'Item 1A', in order, deduplicated."""
    return list(dict.fromkeys(f"Item {m.group(1).upper()}" for m in ITEM_REF_RE.finditer(text)))


def _figure_names(text: str) -> int:
    """How many line items, metrics and statements `text` names (figures are reported in Item 8)."""
    return len(line_item_mentions(text)) + len(metric_mentions(text)) + len(STATEMENT_NAME_RE.findall(text))


def topic_scores(text: str) -> dict[str, int]:
    """Item -> how many of its topic words (for Item 8, also figure names) `text` holds."""
    scores: dict[str, int] = {}
    for item, rx in ITEM_TOPICS:
        n = len(rx.findall(text)) + (_figure_names(text) if item == "Item 8" else 0)
        if n:
            scores[item] = n
    return scores


def item_hints(text: str, known: set[str] | None = None, limit: int = 3) -> list[str]:
    """Items where `text` is likely answered, best first: Items it names, then topics by number of matches
    (a tie goes to the earlier Item of ITEM_TOPICS); a risk question goes to Item 1A first unless a more
    specific risk Item (1C, 7A) matched. `known` restricts named Items to real ones."""
    hints = [i for i in explicit_items(text) if known is None or i in known]
    scores = topic_scores(text)
    if RISK_WORDS.search(text) and "Item 1A" in scores and not {"Item 1C", "Item 7A"} & scores.keys():
        scores["Item 1A"] += 10_000
    for item in sorted(scores, key=lambda i: (-scores[i], _ORDER[i])):
        if item not in hints:
            hints.append(item)
    return hints[:limit]


def item_for(text: str) -> str | None:
    """The one Item whose topics `text` matches best (None when it matches none)."""
    hints = item_hints(text, limit=1)
    return hints[0] if hints else None
