"""Periods in text: the fiscal years a text names, its time expressions, and the years a table's columns
hold. `YEAR` is the one spelling of a year (1950–2049) for every pattern in the project."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

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


#: A year a text says is a fiscal year: "fiscal 2024", "fiscal year 2023", "fiscal years 2023 and 2022", "FY2024".
_FISCAL_STATED_RE = re.compile(
    rf"\b(?:fiscal(?:\s+years?)?|FY)\s?'?(?P<y>{YEAR})\b(?:\s*(?:,|and|to|through|-|–)\s*(?P<y2>{YEAR})\b)?",
    re.I,
)


def fiscal_years_stated(text: str) -> set[int]:
    """The years `text` names as fiscal years; bare years and dates aside (a date's year is a calendar year,
    which is not the fiscal year of a company whose year ends in January)."""
    found: set[int] = set()
    for m in _FISCAL_STATED_RE.finditer(text):
        found.add(int(m.group("y")))
        if m.group("y2"):
            found.add(int(m.group("y2")))
    return found


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


#: A text saying its years are fiscal years ("FY2024", "fiscal 2023").
FISCAL_WORD_RE = re.compile(r"\bFY|\bfiscal\b", re.I)


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
            found.append(NamedQuarter(quarter, year, bool(FISCAL_WORD_RE.search(m.group(0)))))
    return list(dict.fromkeys(found))


#: "the latest 10-Q", "the most recent quarter", "the last annual report": the newest report of the library.
LATEST_REPORT_RE = re.compile(
    r"\b(?:latest|most recent|newest|last|current)\s+(?:(?:fiscal\s+)?quarter\b|10-?[QK]\b|quarterly\s+(?:report|filing)"
    r"|annual\s+report\b|report\b|filing\b)",
    re.I,
)

#: "… compared with previous quarters", "relative to past quarters", "over time": other periods beside it.
_OTHER_PERIODS_RE = re.compile(
    r"\b(?:previous|prior|past|earlier|preceding|other|those)\s+(?:ones|quarters?|periods?|reports?|filings?|10-?Qs?)\b"
    r"|\bover time\b|\bacross\b|\btrends?\b",
    re.I,
)


def latest_asked(text: str) -> re.Match[str] | None:
    """Where `text` asks for the newest report alone ("the latest 10-Q"); None when it names none, or also
    reaches for other periods ("the most recent quarter compared with previous ones")."""
    if _OTHER_PERIODS_RE.search(text):
        return None
    return LATEST_REPORT_RE.search(text)


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


def without_time_expressions(text: str) -> str:
    """`text` with its time expressions taken out ("What drove Data Center revenue in the second quarter of
    fiscal 2024?" -> "What drove Data Center revenue in the ?"): what it is about, whenever."""
    for expression in find_time_expressions(text)[0]:
        text = text.replace(expression, " ")
    return text


#: A full date ("January 29, 2023", "Sept. 30 2023"); group 1 is its year.
DATE_RE = re.compile(rf"\b{MONTHS}\s+\d{{1,2}},?\s+({YEAR})\b", re.I)


def date_year(text: str) -> int | None:
    """The year of the last full date in `text` ("Balances, January 29, 2023" -> 2023); None without one."""
    found = DATE_RE.findall(text)
    return int(found[-1]) if found else None


#: A month of a year an event is told in, as legal notes tell most of theirs ("In December 2022, the Company
#: agreed to a formal settlement agreement"); not a period's name ("the December 2022 quarter").
_IN_MONTH_RE = re.compile(rf"\bin\s+({MONTHS})\s+({YEAR})\b(?!\s+(?:quarter|fiscal|period))", re.I)


def dates_stated(text: str) -> list[date]:
    """Every date `text` states ("On August 25, 2023, …" -> [2023-08-25]; "In December 2022, …" ->
    [2022-12-01]), in order."""
    return [day for _, day in _dates_at(text)]


def _dates_at(text: str) -> list[tuple[int, date]]:
    """Each date `text` states, with where it starts: a full date as stated, and a month told as "in
    December 2022" as its first day (a full date of that month is the later of the two)."""
    found = []
    for full in DATE_RE.finditer(text):
        month_day = _MONTH_DAY_RE.match(full.group(0))
        if month_day is None:
            continue
        day = _safe_date(int(full.group(1)), month_number(month_day.group(1)), int(month_day.group(2)))
        if day is not None:
            found.append((full.start(), day))
    for month in _IN_MONTH_RE.finditer(text):
        first = _safe_date(int(month.group(2)), month_number(month.group(1)), 1)
        if first is not None:
            found.append((month.start(1), first))
    return sorted(found)


#: Words that put the date after them in the future of the sentence: a trial "set to commence on", a
#: "deadline … is", a hearing "scheduled for", a term that "expires on". Read back from the date to the
#: clause's start (a comma, semicolon or "and" ends the reach).
_PROSPECTIVE_RE = re.compile(
    r"\b(?:commenc\w*|scheduled|set\s+for|deadline|due\s+(?:on|by)|expir\w*|will|until|"
    r"no\s+later\s+than|on\s+or\s+before)\b[^,;]*$",
    re.I,
)


def is_prospective(text: str, at: int) -> bool:
    """Whether the date starting at `at` in `text` is one something is due on, not one it happened on ("set
    trial to commence on December 5, 2022", "NVIDIA's deadline to file … is March 4, 2024")."""
    clause = re.split(r"[,;]|\band\b", text[max(0, at - 120) : at])[-1]
    return bool(_PROSPECTIVE_RE.search(clause))


#: The words that put a balance's or a period's date after them ("As of January 28, 2024, we have not recorded
#: any accrual", "the year ended December 31, 2021").
_STATED_AT = r"\b(?:as of|at|ended|ending)\s+"
_STATED_AT_RE = re.compile(rf"{_STATED_AT}$", re.I)


def dates_happened(text: str) -> list[date]:
    """The full dates `text` states something happened on, in order: `dates_stated` less the dates it says
    something is due on ("the court certified the class action on August 20, 2021, and set trial to commence
    on December 5, 2022" -> [2021-08-20]) and those a balance or period is stated at ("As of January 28,
    2024, we have not recorded any accrual" -> [])."""
    return [
        day
        for at, day in _dates_at(text)
        if not is_prospective(text, at) and not _STATED_AT_RE.search(text[max(0, at - 12) : at])
    ]


# A date a table is stated at or for: "as of September 30, 2023", "at December 31, 2023", "year ended ...".
_AS_OF_RE = re.compile(rf"{_STATED_AT}{MONTHS}\s+\d{{1,2}},?\s+({YEAR})\b", re.I)


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


def _distinct_or_repeated(periods: list[str]) -> bool:
    """Periods that head columns: each once ("2023 2022 2021"), or one run of distinct periods repeated for
    each length of period ("2023 2022 2023 2022": a quarter's and the year to date's columns)."""
    width = len(set(periods))
    if width == len(periods):
        return True
    return width >= 2 and len(periods) % width == 0 and periods == periods[:width] * (len(periods) // width)


def column_headers(text: str) -> list[ColumnHeader]:
    """Runs of two or more years separated only by date words: the period headers of tables in `text` (a
    quarterly report repeats its years for the year to date)."""
    headers: list[ColumnHeader] = []
    run: list[re.Match[str]] = []

    def close() -> None:
        years = [int(m.group(1)) for m in run]
        # Columns are told apart by their dates where they print them ("December 31, 2022 September 24, 2022").
        dates = [" ".join(m.group(0).lower().replace(",", " ").split()) for m in run]
        if len(years) >= 2 and _distinct_or_repeated(dates):
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


# --- Quarterly and year-to-date columns, and a company's fiscal calendar -------------------------------------

#: How long a column's period runs, as a table's header says it: "Three Months Ended", "Six Months Ended",
#: "Quarter Ended", "13 Weeks Ended", "Year Ended", "Twelve Months Ended".
_SPAN_RE = re.compile(
    r"\b(?:(?P<months>three|six|nine|twelve|3|6|9|12)[\s-]+months?"
    r"|(?P<weeks>13|26|39|52|53)[\s-]+weeks?"
    r"|(?P<quarter>quarters?)\s+(?:ended|ending)"
    r"|(?P<year>(?:fiscal\s+)?years?)\s+(?:ended|ending))\b",
    re.I,
)
_MONTH_COUNT = {"three": 3, "six": 6, "nine": 9, "twelve": 12}
_WEEKS_MONTHS = {13: 3, 26: 6, 39: 9, 52: 12, 53: 12}
#: A month and day ("April 1", "Sept. 30"), with or without its year after it.
_MONTH_DAY_RE = re.compile(rf"\b({MONTHS})\s+(\d{{1,2}})\b(?!\.\d)", re.I)


def period_spans(text: str) -> list[int]:
    """The length in months of each period a table header names, in order ("Three Months Ended ... Six
    Months Ended" -> [3, 6]; "Year Ended" -> [12]); empty when it names none (a balance sheet's dates)."""
    spans = []
    for m in _SPAN_RE.finditer(text):
        if m.group("months"):
            word = m.group("months").lower()
            spans.append(_MONTH_COUNT.get(word) or int(word))
        elif m.group("weeks"):
            spans.append(_WEEKS_MONTHS[int(m.group("weeks"))])
        else:
            spans.append(3 if m.group("quarter") else 12)
    return spans


def month_number(name: str) -> int:
    """1-12 for a month's name or abbreviation ("Sept." -> 9)."""
    return ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec").index(
        name.strip(".").lower()[:3]
    ) + 1


def _safe_date(year: int | None, month: int, day: int) -> date | None:
    if year is None:
        return None
    try:
        return date(year, month, day)
    except ValueError:
        return None


@dataclass(frozen=True)
class ColumnPeriod:
    """What a value column covers, where its header says: its length in months (None: a balance at a date,
    or not said) and the date its period ends (None: only the year is printed)."""

    months: int | None = None
    end: date | None = None


def column_periods(header: str, years: Sequence[int | None]) -> tuple[ColumnPeriod, ...]:
    """Each column's period from the words heading a table (`header`: the caption and header cells as
    printed) and the year read for each column (`years`, None for a column that is not a period).

    The spans the header names are spread over the dated columns in equal groups, left to right ("Three
    Months Ended | Six Months Ended" over four columns: two each); the months and days it prints are paired
    with the columns' years when there is one for each dated column, or one for all. Anything the header
    does not line up with its columns is left unsaid rather than guessed."""
    dated = [k for k, year in enumerate(years) if year is not None]
    if not dated:
        return tuple(ColumnPeriod() for _ in years)
    months: dict[int, int] = {}
    spans = period_spans(header)
    if spans and len(dated) % len(spans) == 0:
        width = len(dated) // len(spans)
        months = {k: spans[n // width] for n, k in enumerate(dated)}
    days = [(month_number(m.group(1)), int(m.group(2))) for m in _MONTH_DAY_RE.finditer(header)]
    if len(days) == 1:
        days = days * len(dated)
    ends: dict[int, date | None] = {}
    if len(days) == len(dated):
        ends = {k: _safe_date(years[k], *days[n]) for n, k in enumerate(dated)}
    return tuple(ColumnPeriod(months.get(k), ends.get(k)) for k in range(len(years)))


def of_length(months: Sequence[int | None], asked: int | None) -> list[int]:
    """Which of one year's columns (each `months` long, None where the header does not say) hold the period
    asked: `asked` months (a column of another stated length never does), else the shortest stated (a
    quarter before the year to date). All of them when no length is stated."""
    known = [m for m in months if m is not None]
    if not known:
        return list(range(len(months)))
    if asked is not None:
        return [k for k, m in enumerate(months) if m == asked or (m is None and asked not in known)]
    return [k for k, m in enumerate(months) if m == min(known)]


#: Days a fiscal year's end may fall from the estimate of it: quarters of 13 weeks, a 53rd week.
_YEAR_END_SLACK_DAYS = 45


@dataclass(frozen=True)
class FiscalCalendar:
    """A company's fiscal calendar as one of its reports shows it: the report's fiscal year, its quarter
    (None for a report on the whole year) and the date its period ends."""

    fiscal_year: int
    period_end: date
    quarter: int | None = None

    @property
    def year_end(self) -> date:
        """The (estimated) end of the report's fiscal year: the period end, plus the quarters still to come."""
        return self.period_end + timedelta(days=91 * (4 - self.quarter)) if self.quarter else self.period_end

    def fiscal_year_of(self, end: date) -> int:
        """The fiscal year a period ending on `end` belongs to (Apple's quarter ended December 31, 2022 is in
        fiscal 2023; its year ended September 24, 2022 is fiscal 2022)."""
        days_before = (self.year_end - end).days
        return self.fiscal_year - int((days_before + _YEAR_END_SLACK_DAYS) // 365.25)

    def fiscal_year_printed(self, year: int) -> int:
        """The fiscal year of a column headed by a calendar year alone, read as the same point of an earlier
        or later year as the report's own period (the year the report's period ends in names its fiscal year
        shifted by as much as the company's calendar shifts it)."""
        return year + self.fiscal_year - self.period_end.year

    def column_year(self, year: int | None, end: date | None) -> int | None:
        """The fiscal year of a column: from the date its period ends, else from the year it prints."""
        if end is not None:
            return self.fiscal_year_of(end)
        return None if year is None else self.fiscal_year_printed(year)

    def period_name(self, fiscal_year: int, months: int | None = None) -> str:
        """How an analyst names a period of this calendar: "Q2 FY2023" for a quarter, "H1 FY2023" and "9M
        FY2023" for the year to date, "FY2023" for a year."""
        if months == 12 or self.quarter is None:
            return f"FY{fiscal_year}"
        if months is None or months == 3:
            return f"Q{self.quarter} FY{fiscal_year}"
        return f"{'H1' if months == 6 else f'{months}M'} FY{fiscal_year}"


#: "year to date", "first six months", "first half", "nine months ended": the words that ask for a period
#: longer than the quarter a quarterly report is about.
YEAR_TO_DATE_RE = re.compile(
    r"\b(?:year[- ]to[- ]date|ytd|so\s+far\s+(?:this|in\s+the)\s+(?:fiscal\s+)?year|first\s+(?P<half>half)"
    r"|(?:first\s+)?(?P<n>six|nine|6|9)\s+months)\b",
    re.I,
)


def months_asked(text: str, quarter: int | None) -> int | None:
    """The length of the period `text` asks about, in months, when it is longer than one quarter of the
    report's fiscal year ("year to date" in a Q3 report: 9); None for the quarter itself."""
    m = YEAR_TO_DATE_RE.search(text)
    if m is None:
        return None
    if m.group("half"):
        return 6
    if m.group("n"):
        return _MONTH_COUNT.get(m.group("n").lower()) or int(m.group("n"))
    return 3 * quarter if quarter and quarter > 1 else None
