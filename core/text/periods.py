"""Periods in text: the fiscal years a text names, its time expressions, and the years a table's columns
hold. `YEAR` is the one spelling of a year (1950–2049) for every pattern in the project."""

from __future__ import annotations

import re
from dataclasses import dataclass

#: A month name or its abbreviation, as a pattern.
MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
#: A year as a pattern: four digits from 1950 to 2049.
YEAR = r"(?:19[5-9]\d|20[0-4]\d)"
# "FY2018", "FY 18", "fiscal 2024", "fiscal year 2023", "2022" (a bare year), "FY'23".
_FY_RE = re.compile(rf"\b(?:FY\s?'?(?P<short>\d{{2}})\b|FY\s?(?P<fy>{YEAR})\b|(?P<bare>{YEAR})\b)", re.I)
_RANGE_RE = re.compile(
    rf"\b(?:FY\s?)?(?P<a>{YEAR})\s*(?:-|–|—|to|through|until)\s*(?:FY\s?)?(?P<b>{YEAR})\b", re.I
)


def fiscal_years(text: str) -> list[int]:
    """Fiscal years named in `text`, in order of first mention; ranges ("FY2017 - FY2019") are expanded."""
    years: list[int] = []
    for m in _RANGE_RE.finditer(text):
        a, b = int(m.group("a")), int(m.group("b"))
        if 0 < abs(b - a) <= 10:
            step = 1 if b > a else -1
            years.extend(range(a, b + step, step))
    for m in _FY_RE.finditer(text):
        if m.group("short"):
            years.append(2000 + int(m.group("short")))
        else:
            years.append(int(m.group("fy") or m.group("bare")))
    return list(dict.fromkeys(years))


#: A quarter's ordinal as written ("second", "2nd").
QUARTER_ORDINAL = r"(?:first|second|third|fourth|1st|2nd|3rd|4th)"
_QUARTER_NUMBERS = {"fir": 1, "sec": 2, "thi": 3, "fou": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}


def quarter_number(ordinal: str) -> int | None:
    """1-4 for a quarter's ordinal ("Second", "4th"); None for anything else."""
    return _QUARTER_NUMBERS.get(ordinal.strip().lower()[:3])


_QUARTER_NAMED_RES = [
    # "Q2 FY2024", "Q1 2023", "Q3 FY23", "Q4'22"
    re.compile(
        rf"\bQ(?P<q>[1-4])\s*(?:of\s+)?(?:FY\s?|fiscal\s+(?:year\s+)?)?'?(?P<y>{YEAR}|\d{{2}})?\b", re.I
    ),
    # "2023 Q1", "FY2024 Q2"
    re.compile(rf"\b(?:FY\s?)?(?P<y>{YEAR})\s+Q(?P<q>[1-4])\b", re.I),
    # "the second quarter of fiscal 2024", "third-quarter 2023", "first quarter"
    re.compile(
        rf"\b(?P<w>{QUARTER_ORDINAL})[\s-]+quarter(?:\s+(?:of\s+)?(?:fiscal\s+)?(?:year\s+)?(?P<y>{YEAR}))?\b",
        re.I,
    ),
    # "2023 second-quarter"
    re.compile(rf"\b(?P<y>{YEAR})\s+(?P<w>{QUARTER_ORDINAL})[\s-]+quarter\b", re.I),
]


@dataclass(frozen=True)
class NamedQuarter:
    """A quarter a text names: its number, its year if said, and whether the text says the year is fiscal."""

    quarter: int
    year: int | None = None
    fiscal: bool = False


_FISCAL_WORD_RE = re.compile(r"\bFY|\bfiscal\b", re.I)


def quarters_named(text: str) -> list[NamedQuarter]:
    """The quarters a text names, in order: "Q2 FY2024" -> Q2 of fiscal 2024, "the first quarter of 2023" ->
    Q1 of 2023 (fiscal or calendar: the text does not say), "Q3" -> Q3 of a year not named."""
    matches = sorted(
        (m for rx in _QUARTER_NAMED_RES for m in rx.finditer(text)), key=lambda m: (m.start(), -m.end())
    )
    found: list[NamedQuarter] = []
    end = -1
    for m in matches:  # the longest reading at each place, left to right
        if m.start() < end:
            continue
        end = m.end()
        groups = m.groupdict()
        quarter = int(groups["q"]) if groups.get("q") else quarter_number(groups.get("w") or "")
        raw = groups.get("y")
        year = None if raw is None else int(raw) if len(raw) == 4 else 2000 + int(raw)
        if quarter is not None:
            found.append(NamedQuarter(quarter, year, bool(_FISCAL_WORD_RE.search(m.group(0)))))
    return list(dict.fromkeys(found))


_TIME_RES = [
    re.compile(p, re.IGNORECASE)
    for p in [
        rf"\bQ[1-4]\s*(?:of\s+)?(?:FY\s?|fiscal\s+)?'?(?P<y>{YEAR}|\d{{2}})\b",
        rf"\bFY\s?'?(?P<y>{YEAR}|\d{{2}})(?:\s?Q[1-4])?\b",
        rf"\bfiscal(?:\s+year)?\s+'?(?P<y>{YEAR}|\d{{2}})\b",
        rf"\b{MONTHS}\s+\d{{1,2}},?\s+(?P<y>{YEAR})\b",
        rf"\b{QUARTER_ORDINAL}\s+quarter(?:\s+of)?(?:\s+fiscal)?(?:\s+(?P<y>{YEAR}))?\b",
        r"\b(?:latest|most recent|recent|current|last|prior|previous)\s+(?:fiscal\s+)?"
        r"(?:year|quarter|period)\b",
        r"\b(?:latest|most recent)\b",
        r"\b(?:year[- ]over[- ]year|trailing twelve months|ttm)\b",
        rf"\b(?P<y>{YEAR})\b",
    ]
]


def find_time_expressions(text: str) -> tuple[list[str], list[int]]:
    """Time expressions in order of appearance and the fiscal years they name (sorted)."""
    spans: list[tuple[int, int, str]] = []
    years: set[int] = set()
    for rx in _TIME_RES:
        for m in rx.finditer(text):
            if any(s <= m.start() < e or s < m.end() <= e for s, e, _ in spans):
                continue  # already covered by a more specific expression
            spans.append((m.start(), m.end(), m.group()))
            if m.groupdict().get("y"):
                raw = m.group("y")
                years.add(int(raw) if len(raw) == 4 else 2000 + int(raw))
    spans.sort()
    return list(dict.fromkeys(s for _, _, s in spans)), sorted(years)


#: A full date ("January 29, 2023", "Sept. 30 2023"); group 1 is its year.
DATE_RE = re.compile(rf"\b{MONTHS}\s+\d{{1,2}},?\s+({YEAR})\b", re.I)


def date_year(text: str) -> int | None:
    """The year of the last full date in `text` ("Balances, January 29, 2023" -> 2023); None without one."""
    found = DATE_RE.findall(text)
    return int(found[-1]) if found else None


# A date a table is stated at or for: "as of September 30, 2023", "at December 31, 2023", "year ended ...".
_AS_OF_RE = re.compile(rf"\b(?:as of|at|ended|ending)\s+{MONTHS}\s+\d{{1,2}},?\s+({YEAR})\b", re.I)


def as_of_years(text: str) -> list[int]:
    """The years of the dates `text` states figures as of or for ("Lease liability maturities as of
    September 30, 2023, are as follows" -> [2023]; "as of September 28, 2024 and September 30, 2023" ->
    [2024, 2023]), in order, each once; none when no date follows "as of", "at", "ended" or "ending"."""
    if not _AS_OF_RE.search(text):
        return []
    return list(dict.fromkeys(int(y) for y in DATE_RE.findall(text)))


# A column header that opens with its period: "2023 Effective Interest Rate", "FY2024", "January 29, 2023 Gross
# Carrying Amount", "Year Ended January 29, 2023"; "Notes due 2025" names a year but is not a period.
_LEADING_PERIOD_RE = re.compile(
    rf"^(?:(?:fiscal\s+)?(?:years?\s+)?(?:ended|ending)\s+|as\s+of\s+|at\s+|fiscal\s+(?:year\s+)?|FY\s?)?"
    rf"(?:{MONTHS}\s+\d{{1,2}},?\s+)?({YEAR})\b",
    re.I,
)


def column_year(cell: str) -> int | None:
    """The period of a column header cell: the year it opens with, or the year of a full date in it
    ("Fair Value at January 29, 2023"); None for a category ("Amortized Cost", "Notes due 2025")."""
    m = _LEADING_PERIOD_RE.match(cell.strip())
    return int(m.group(1)) if m else date_year(cell)


_PERIOD_WORDS_RE = re.compile(
    rf"(?:\b(?:fiscal\s+)?(?:years?|quarters?|(?:three|six|nine|twelve)\s+months)\s+(?:ended|ending)\b|\bas\s+of\b"
    rf"|\bat\b|\bfiscal\b)?\s*(?:{MONTHS}\s+\d{{1,2}},?\s+)?{YEAR}\b",
    re.I,
)


def without_period(cell: str) -> str:
    """A column header with its period taken out: what the column holds ("January 29, 2023 Gross Carrying
    Amount" -> "Gross Carrying Amount"; "Year Ended January 29, 2023" -> "")."""
    return " ".join(_PERIOD_WORDS_RE.sub(" ", cell).split())


@dataclass(frozen=True)
class ColumnHeader:
    """A table's column periods as printed: the fiscal year of each value column, left to right."""

    years: tuple[int, ...]
    start: int
    end: int


# A header is years, optionally inside dates ("December 31, 2019"), separated only by filler words.
_HEADER_YEAR_RE = re.compile(rf"(?:{MONTHS}\s+\d{{1,2}},?\s*)?(?<![\d,.$])({YEAR})(?![\d,.]\d)", re.I)
_FILLER_RE = re.compile(
    rf"^(?:\s|,|\(|\)|:|—|–|-|\bat\b|\bas of\b|\band\b|\bfiscal\b|\byears?\b|\bended\b|\bending\b|\bfor the\b"
    rf"|\bthe\b|\bof\b|\bperiods?\b|\bquarters?\b|\bmonths?\b|\btwelve\b|\bthree\b|\bsix\b|\bnine\b|\bweeks?\b"
    rf"|\b52\b|\b53\b|\bfy\b|{MONTHS}|\b\d{{1,2}}\b)*$",
    re.I,
)


def column_headers(text: str) -> list[ColumnHeader]:
    """Runs of two or more years separated only by date words: the period headers of tables in `text`."""
    headers: list[ColumnHeader] = []
    run: list[re.Match[str]] = []

    def close() -> None:
        years = [int(m.group(1)) for m in run]
        if len(years) >= 2 and len(set(years)) == len(years):
            headers.append(ColumnHeader(tuple(years), run[0].start(), run[-1].end()))

    for m in _HEADER_YEAR_RE.finditer(text):
        if run and _FILLER_RE.match(text[run[-1].end() : m.start()]) and m.start() - run[-1].end() < 60:
            run.append(m)
            continue
        if run:
            close()
        run = [m]
    if run:
        close()
    return headers
