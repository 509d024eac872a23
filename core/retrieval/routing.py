"""Filing routing: when a query names a company in the library, search that company's filings."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache
from typing import Protocol, TypeVar

from core.models import UNKNOWN_COMPANY, Filing, QueryAnalysis
from core.text.periods import NamedQuarter, fiscal_years, latest_asked, quarters_named
from core.text.tokens import tokenize

# Legal-form words say nothing about which company is meant.
_SUFFIXES = frozenset(
    "inc incorporated corp corporation company co plc ltd limited llc lp holding holdings group sa nv ag se the".split()  # noqa: SIM905
)


@dataclass
class Route:
    """The filings a query points to and a sentence saying why."""

    filing_ids: list[str]
    note: str


@lru_cache(maxsize=8192)
def _name_tokens(name: str) -> frozenset[str]:
    return frozenset(t for t in tokenize(name, fold_plurals=False) if t not in _SUFFIXES)


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
    # Leading words, longest first, ending on a name word: "MGM Resorts" for "MGM Resorts International"
    # (not "Bank of" for "Bank of America").
    forms += [" ".join(words[:k]) for k in range(len(words) - 1, 1, -1) if words[k - 1][:1].isupper()]
    if len(words) >= 2:
        forms.append("".join(words))  # "BestBuy", "JohnsonJohnson"
        alpha = [w for w in words if w.isalpha()]
        if len(alpha) >= 2:
            forms.append(alpha[0][:2] + alpha[1][:2])  # "AmEx"
        if "&" in words:  # "Johnson & Johnson" -> "J&J", "JnJ"
            initials = [w[0] for w in words if w != "&"]
            forms.extend(["&".join(initials), "n".join(initials)])
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


@lru_cache(maxsize=8192)
def _company_pattern(company: str) -> re.Pattern[str] | None:
    """Any usual form of `company` as a whole name, possessive allowed (compiled once per company: a
    library of thousands of filings is routed for every search)."""
    forms = sorted(company_forms(company), key=len, reverse=True)
    if not forms:
        return None
    alternatives = "|".join(re.escape(form) for form in forms)
    return re.compile(rf"(?<![\w&])(?:{alternatives})(?:['’]s?)?(?![\w&])", re.I)


def mentions_company(text: str, company: str) -> bool:
    """True when `text` names `company` in one of its usual forms (possessives and case ignored)."""
    pattern = _company_pattern(company)
    return pattern is not None and pattern.search(text) is not None


def _named_companies(analysis: QueryAnalysis, filings: list[Filing]) -> list[Filing]:
    """Filings whose company the query names, in one of its usual forms or as an entity's words."""
    companies = {f.company for f in filings if f.company and f.company != UNKNOWN_COMPANY}
    entities = [words for entity in analysis.entities if (words := _name_tokens(entity))]
    named = {
        company
        for company in companies
        if mentions_company(analysis.original, company)
        or any(words <= _name_tokens(company) for words in entities)
    }
    return [f for f in filings if f.company in named]


#: A period that ends in the first week of a calendar quarter (a 52/53-week quarter ending April 1) belongs to
#: the calendar quarter before it.
_SPILL = timedelta(days=7)


class Report(Protocol):
    """What the period rules read of a filing (a catalog Filing, or what an agent knows of one)."""

    company: str
    form: str
    fiscal_year: int | None
    fiscal_quarter: int | None
    period_end: str | None


R = TypeVar("R", bound=Report)


def _calendar_quarter(filing: Report) -> tuple[int, int] | None:
    """(quarter, year) of the calendar quarter a filing's period ends in, if its period end is known."""
    if not filing.period_end:
        return None
    end = date.fromisoformat(filing.period_end) - _SPILL
    return (end.month - 1) // 3 + 1, end.year


def _of_years(filings: list[Filing], years: list[int]) -> list[Filing]:
    """Filings of the years named, as the company counts its fiscal years or as the calendar does (NVIDIA's
    quarter ended April 30, 2023 is in fiscal 2024 and in calendar 2023)."""
    return [
        f
        for f in filings
        if f.fiscal_year in years or ((cal := _calendar_quarter(f)) is not None and cal[1] in years)
    ]


def of_quarters(filings: list[R], quarters: list[NamedQuarter]) -> list[R]:
    """Filings of a quarter named ("Q1 2023"), read as the company's fiscal quarter or, unless the question
    says fiscal, as a calendar quarter; an annual report is its fiscal year's fourth quarter."""

    def named(quarter: int, year: int | None, asked: NamedQuarter) -> bool:
        return asked.quarter == quarter and asked.year in (None, year)

    chosen = []
    for f in filings:
        fiscal = f.fiscal_quarter or (4 if f.form.startswith(("10-K", "20-F", "40-F")) else None)
        calendar = _calendar_quarter(f) if f.fiscal_quarter else None
        if any(
            (fiscal is not None and named(fiscal, f.fiscal_year, asked))
            or (calendar is not None and not asked.fiscal and named(*calendar, asked))
            for asked in quarters
        ):
            chosen.append(f)
    return chosen


def latest_reports(filings: list[R], asked: str = "") -> list[R]:
    """Each company's newest report: the one whose period ends last; the newest quarterly report when
    `asked` ("the latest 10-Q", "the most recent quarter") says so, the newest annual report when it says
    "10-K" or "annual report". Filings with no period end known stay
    out unless a company has no other."""
    if re.search(r"10-?Q|quarter", asked, re.I):
        filings = [f for f in filings if f.fiscal_quarter] or filings
    elif re.search(r"10-?K|annual", asked, re.I):
        filings = [f for f in filings if f.form.startswith(("10-K", "20-F", "40-F"))] or filings
    by_company: dict[str, list[R]] = {}
    for f in filings:
        by_company.setdefault(f.company, []).append(f)
    out = []
    for reports in by_company.values():
        dated = [f for f in reports if f.period_end]
        out.extend([max(dated, key=lambda f: f.period_end or "")] if dated else reports)
    return out


def narrowed_to_period(question: str, filings: list[R]) -> list[R]:
    """Of one company's or several companies' filings, those of the quarter the question names, or the
    newest when it asks for the latest; all of them when it names no period they hold."""
    quarters = quarters_named(question)
    in_quarter = of_quarters(filings, quarters) if quarters else []
    if in_quarter:
        return in_quarter
    latest = latest_asked(question)
    if latest and not fiscal_years(question):
        return latest_reports(filings, latest.group(0))
    return filings


def route_filings(analysis: QueryAnalysis, filings: list[Filing]) -> Route | None:
    """The filings a query points to among `filings`; None when it points to none of them, or to all.

    - A company named (or several): that company's filings. Filings whose company was not detected stay:
      they may be the one named.
    - Fiscal years named: of those filings (of every filing when no company is named), the ones for the
      years asked (fiscal or calendar). A quarter named ("Q2 FY2024", "the first quarter of 2023"): of
      those, the quarter's report, read as a fiscal or a calendar quarter. When the library has none for those years, the company's filings all stay (a later
      10-K reports earlier years as comparatives).
    """
    named = _named_companies(analysis, filings)
    years = sorted(set(analysis.fiscal_years))
    quarters = quarters_named(analysis.original)
    chosen = named or filings
    dated = _of_years(chosen, years) if years else []
    if dated:
        chosen = dated
    in_quarter = of_quarters(chosen, quarters) if quarters else []
    if in_quarter:
        chosen = in_quarter
    elif not years and (asked := latest_asked(analysis.original)):
        latest = latest_reports(chosen, asked.group(0))
        in_quarter = latest if len(latest) < len(chosen) else []
        chosen = latest
    if not (named or dated or in_quarter):
        return None
    unknown = [f for f in filings if not f.company or f.company == UNKNOWN_COMPANY]
    routed = list({f.filing_id: f for f in [*chosen, *unknown]}.values())
    if len(routed) == len(filings):
        return None
    companies = list(dict.fromkeys(f.company for f in named))
    what = " and ".join(companies) if companies else "every company"
    if in_quarter and not quarters:
        period = " for the latest report (" + ", ".join(f.period for f in chosen) + ")"
    elif in_quarter:
        period = " for " + ", ".join(
            f"Q{q.quarter}" + (f" {'FY' if q.fiscal else ''}{q.year}" if q.year else "") for q in quarters
        )
    else:
        period = f" for FY{', FY'.join(str(y) for y in years)}" if dated else ""
    also = f" (and {len(unknown)} filing(s) whose company is unknown)" if unknown else ""
    return Route(
        filing_ids=[f.filing_id for f in routed],
        note=f"Searched only the filings of {what}{period}{also}, which the question names.",
    )
