"""Filing routing: when a query names a company in the library, search that company's filings."""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.index.tokenizer import tokenize
from core.models import Filing, QueryAnalysis

#: Company label ingestion gives a filing whose cover page named no company (core.ingest.pipeline).
UNKNOWN_COMPANY = "Unknown company"

# Legal-form words say nothing about which company is meant.
_SUFFIXES = frozenset(
    "inc incorporated corp corporation company co plc ltd limited llc lp holding holdings group sa nv ag se the".split()  # noqa: SIM905
)


@dataclass
class Route:
    """The filings a query points to and a sentence saying why."""

    filing_ids: list[str]
    note: str


def _name_tokens(name: str) -> set[str]:
    return {t for t in tokenize(name, fold_plurals=False) if t not in _SUFFIXES}


def company_forms(company: str) -> list[str]:
    """How a question may name a company: 'The Boeing Company' -> ['Boeing'], 'American Express Company'
    -> ['American Express', 'AmEx'], 'Best Buy Co., Inc.' -> ['Best Buy', 'BestBuy']."""
    words = [
        w for w in re.findall(r"[A-Za-z0-9&][\w&'’.-]*", company) if w.lower().strip(".,") not in _SUFFIXES
    ]
    words = [w.strip(".,") for w in words]
    if not words or company == UNKNOWN_COMPANY:
        return []
    forms = [" ".join(words)]
    if len(words) >= 2:
        forms.append("".join(words))  # "BestBuy", "JohnsonJohnson"
        alpha = [w for w in words if w.isalpha()]
        if len(alpha) >= 2:
            forms.append(alpha[0][:2] + alpha[1][:2])  # "AmEx"
        if "&" in words:  # "Johnson & Johnson" -> "J&J"
            forms.append("&".join(w[0] for w in words if w != "&"))
    first = words[0]
    if (len(first) >= 4 and first.lower() not in _GENERIC_FIRST_WORDS) or (
        first.isupper() and len(first) >= 2
    ):
        forms.append(first)  # "Activision" for "Activision Blizzard", "CVS" for "CVS Health"
    return list(dict.fromkeys(f for f in forms if len(f) >= 2))


#: First words of company names that do not identify a company on their own.
_GENERIC_FIRST_WORDS = frozenset(
    [
        "american",
        "general",
        "united",
        "national",
        "international",
        "first",
        "global",
        "new",
        "best",
        "eastern",
        "western",
        "southern",
        "northern",
        "pacific",
        "atlantic",
        "royal",
        "standard",
        "federal",
        "republic",
        "public",
        "digital",
        "advanced",
        "applied",
    ]
)


def mentions_company(text: str, company: str) -> bool:
    """True when `text` names `company` in one of its usual forms (possessives and case ignored)."""
    for form in company_forms(company):
        if re.search(rf"(?<![\w&]){re.escape(form)}(?:['’]s?)?(?![\w&])", text, re.I):
            return True
    return False


def route_filings(analysis: QueryAnalysis, filings: list[Filing]) -> Route | None:
    """Filings whose company the query names; None when it names none of them, or every one.

    Filings whose company was not detected stay in the routed set: they may be the one named.
    """
    matched: dict[str, Filing] = {}
    named: list[str] = []
    for entity in analysis.entities:
        words = _name_tokens(entity)
        if not words:
            continue
        hits = [f for f in filings if f.company and words <= _name_tokens(f.company)]
        if hits:
            named.append(hits[0].company)
            matched.update({f.filing_id: f for f in hits})
    if not matched:
        return None
    unknown = [f for f in filings if not f.company or f.company == UNKNOWN_COMPANY]
    matched.update({f.filing_id: f for f in unknown})
    if len(matched) == len(filings):
        return None
    companies = ", ".join(dict.fromkeys(named))
    also = f" (and {len(unknown)} filing(s) whose company is unknown)" if unknown else ""
    return Route(
        filing_ids=list(matched),
        note=f"Searched only the filings of {companies}{also}, which the question names.",
    )
