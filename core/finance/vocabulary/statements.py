"""The financial statements: their kinds, how plans and answers name them, how filings title them, and how
questions mention them. The one home of statement names."""

from __future__ import annotations

import re
from dataclasses import dataclass

Statement = str  # "income" | "balance" | "cash_flow"


@dataclass(frozen=True)
class StatementKind:
    """A primary statement: its name in a plan, its short name in a sentence, the words of its title."""

    key: Statement
    title: str  # "income statement (statement of operations)"
    short: str  # "income statement"
    search_terms: str  # how filings title it, for a keyword search


STATEMENTS: dict[Statement, StatementKind] = {
    s.key: s
    for s in [
        StatementKind(
            "income",
            "income statement (statement of operations)",
            "income statement",
            "consolidated statements of operations income",
        ),
        StatementKind(
            "balance",
            "balance sheet (statement of financial position)",
            "balance sheet",
            "consolidated balance sheets",
        ),
        StatementKind(
            "cash_flow",
            "statement of cash flows",
            "cash flow statement",
            "consolidated statements of cash flows",
        ),
    ]
}

# How a statement is named, in a title or a question. Groups name the kind; a statement of comprehensive
# income reads as the income statement when named, but titles only a secondary statement (see below).
_CONSOLIDATED = r"(?:consolidated\s+)?"
_NAMES = {
    "balance": rf"balance\s+sheets?|statements?\s+of\s+{_CONSOLIDATED}financial\s+(?:position|condition)",
    "comprehensive": rf"statements?\s+of\s+{_CONSOLIDATED}comprehensive\s+(?:income|loss)",
    "income": rf"income\s+statements?|statements?\s+of\s+{_CONSOLIDATED}(?:operations|income|earnings)"
    r"|p&l(?:\s+statements?)?",
    "cash_flow": rf"statements?\s+of\s+{_CONSOLIDATED}cash\s+flows?|cash\s+flows?\s+statements?",
    "equity": rf"statements?\s+of\s+{_CONSOLIDATED}(?:changes\s+in\s+)?"
    r"(?:shareholders|stockholders|share\s?owners)['’]?\s+equity",
}
#: A statement named anywhere in a text ("using the cash flow statement", "statements of operations").
STATEMENT_NAME_RE = re.compile(r"\b(?:" + "|".join(f"(?P<{k}>{p})" for k, p in _NAMES.items()) + r")\b", re.I)
_KIND_OF_NAME = {
    "balance": "balance",
    "comprehensive": "income",
    "income": "income",
    "cash_flow": "cash_flow",
}


#: The cash flow statement's heading over changes in working capital ("Changes in operating assets and
#: liabilities"): its rows are changes in balances, never an income statement's or a balance sheet's line.
WORKING_CAPITAL_RE = re.compile(r"\bchanges?\s+in\b.*\b(?:assets|liabilities|working\s+capital)\b", re.I)


def statement_kind(text: str) -> Statement | None:
    """The primary statement the first statement name in `text` names ('CONSOLIDATED BALANCE SHEETS' ->
    'balance'); None when it names none (an equity statement is not a primary statement here)."""
    for m in STATEMENT_NAME_RE.finditer(text):
        kind = _KIND_OF_NAME.get(m.lastgroup or "")
        if kind:
            return kind
    return None


def statements_named(text: str) -> list[Statement]:
    """Every primary statement `text` names, in order, without repeats."""
    found = [_KIND_OF_NAME.get(m.lastgroup or "") for m in STATEMENT_NAME_RE.finditer(text)]
    return list(dict.fromkeys(k for k in found if k))


# A title starts a line: "CONSOLIDATED STATEMENTS OF OPERATIONS", "ACME CORP AND SUBSIDIARIES Consolidated
# Balance Sheets", Microsoft's "INCOME STATEMENTS", a quarterly report's "Condensed Consolidated Balance Sheets" (a parent company's own
# "Condensed Balance Sheets" is not the group's statement); a phrase inside a sentence or a column header is not a title.
TITLE_RE = re.compile(
    r"^[ \t]*(?:[A-Z0-9.,&' -]+ AND SUBSIDIARIES\s+)?"
    r"(?:(?:condensed\s+consolidated|consolidated\s+condensed|consolidated|combined)\s+)?"
    r"(?P<title>balance\s+sheets?|statements?\s+of\s+(?:consolidated\s+)?[a-z'’\s()]{4,60}"
    r"|(?:comprehensive\s+)?income\s+statements?|cash\s+flows?\s+statements?"
    r"|(?:stockholders|shareholders)['’]?\s+equity\s+statements?)",
    re.I | re.M,
)
#: Words of a title that make it a secondary statement (comprehensive income, equity).
_SECONDARY_TITLE_WORDS = ("comprehensive", "equity", "stockholders", "shareholders")


def title_kind(title: str) -> Statement | None:
    """The primary statement a title (TITLE_RE's `title` group) names; None for a secondary statement."""
    title = " ".join(title.lower().split())
    if any(w in title for w in _SECONDARY_TITLE_WORDS):
        return None
    return statement_kind(title)


def statement_title_kind(text: str, *, last: bool = False) -> Statement | None:
    """The primary statement a page is titled with ('balance', 'income', 'cash_flow'): the title starts a
    line; comprehensive income and equity statements are not primary statements here (and end the reach of
    the title before them). `last` takes the last title in `text` (the one nearest a page that follows it)
    instead of the first."""
    kinds = [title_kind(m.group("title")) for m in TITLE_RE.finditer(text)]
    found = [k for k in kinds if k is not None]
    if not found:
        return None
    return kinds[-1] if last else found[0]
