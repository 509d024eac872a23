"""Company, form and fiscal year from a filing's cover page (and its inline-XBRL facts when present)."""

from __future__ import annotations

import html
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from core.models import EARNINGS_RELEASE
from core.text.periods import DATE_RE, QUARTER_ORDINAL, YEAR, quarter_number

_COVER_CHARS = 60000  # generous: scraped copies may start with pages of XBRL noise
_FORM_RE = re.compile(r"\bForm\s*(10-K|10-Q|8-K|20-F|40-F)(?:405|T)?(/A)?(?![\w-])", re.IGNORECASE)
_DATE_TEXT = r"([A-Za-z]{3,9}\.?\s*\d{1,2}\s*,?\s*\d{4})"
_PERIOD_RE = re.compile(
    r"for\s+the\s+(?:fiscal\s+)?(?:year|quarterly\s+period|quarter|period|transition\s+period)\s+ended:?\s*"
    # A two-column cover may put another caption between "ended" and its date ("ended Commission file\nMarch 31").
    r"(?:[A-Za-z ]{0,30}\n\s*)?" + _DATE_TEXT,
    re.IGNORECASE,
)
_REPORT_DATE_RE = re.compile(
    r"Date\s+of\s+Report[^:]{0,80}:?\s*\)?\s*([A-Za-z]{3,9}\.?\s*\d{1,2}\s*,?\s*\d{4})", re.I
)
_REGISTRANT_RE = re.compile(r"\(?\s*Exact\s+name\s+of\s+(?:the\s+)?registrant", re.IGNORECASE)
_NOT_A_NAME = re.compile(
    r"commission\s+file|file\s+number"
    r"|^\(?\s*(?:\S\s+)?(?:mark\s+one|form\s|or\b|for\s+the|transition|annual|quarterly)"  # after a check box
    r"|securities\s+and\s+exchange|washington|^\d+(?:[\s,.-]|$)|^\(|title\s+of\s+each|trading\s+symbol"
    r"|employer|identification|i\.r\.s|address|telephone|plaza|street|avenue|suite|boulevard|incorporation|zip",
    re.IGNORECASE,
)
_DATE_RE = re.compile(r"\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\b"
                      r"\s+\d{1,2}", re.IGNORECASE)  # fmt: skip
_SUFFIX_ONLY = re.compile(r"^(?:inc|corp|co|ltd|llc|plc|l\.?p|n\.?v|s\.?a)\.?,?$", re.IGNORECASE)
_NAME_IN_PROSE = re.compile(
    r"(?<![\w&.])(?:The[ \t]+)?(?:[A-Z0-9][\w&'’-]*(?:\.\w+)*,?[ \t]+){1,4}"
    r"(?:Inc\.|Incorporated|Corporation|Company|Corp\.|plc|N\.V\.)"
)
_LONE_CAPITAL = re.compile(r"(?<![A-Za-z])([A-Z])\s+(?=[A-Z]{2,})")
_FILE_NUMBER_RE = re.compile(r"commission\s+file\s+(?:number|no\.?)[\s:]*[\d-]*", re.IGNORECASE)
_NOT_REGISTRANT = re.compile(r"exchange|reporting\s+company|growth\s+company|filer", re.IGNORECASE)
_XBRL_FACT = re.compile(
    r"<ix:nonNumeric[^>]*name=\"dei:(\w+)\"[^>]*>(.*?)</ix:nonNumeric>", re.IGNORECASE | re.S
)
_TAG = re.compile(r"<[^>]+>")

_SEC_HEADER_RE = re.compile(r"securities\s+and\s+exchange\s+commission", re.IGNORECASE)
_SEC_HEADER_CHARS = 4000  # an SEC cover starts the document; a release mentions the SEC much later
_RELEASE_HEAD_CHARS = 3000
_RELEASE_RE = re.compile(
    r"\b(?:reports?|announces?|reported|announced|posts?|delivers?)\b[^.\n]{0,120}?\b(?:results|earnings)\b"
    r"|for\s+immediate\s+release",
    re.IGNORECASE,
)
_RELEASE_PERIOD_RE = re.compile(
    r"\b(?:quarter|period|year|weeks)\s*(?:\([^)]{0,40}\))?\s+ended\s+" + _DATE_TEXT, re.IGNORECASE
)
_TICKER_RE = re.compile(r"([A-Z][^()\n]{1,80}?)\s*\(\s*(?:NYSE|NASDAQ|Nasdaq|NYSE American|ASX|TSX)\s*:")
_HEADLINE_COMPANY_RE = re.compile(
    r"^\s*([A-Z][\w&.,'’ -]{1,60}?)\s+(?:reports?|announces?|posts?|delivers?)\b", re.MULTILINE
)
_HEADLINE_QUARTER_RE = re.compile(
    rf"\b(?:(?P<y2>{YEAR})\s+(?P<q2>{QUARTER_ORDINAL})[\s-]+quarter"
    rf"|(?P<q1>{QUARTER_ORDINAL})[\s-]+quarter(?:\s+and\s+(?:full[\s-]+)?(?:fiscal\s+)?year)?"
    rf"(?:\s+(?:of\s+)?(?:fiscal\s+)?(?:year\s+)?(?P<y1>{YEAR}))?)\b",
    re.IGNORECASE,
)
_HEADLINE_YEAR_RE = re.compile(rf"\bfiscal\s+(?:year\s+)?({YEAR})\s+(?:full[\s-]+year\s+)?results\b", re.I)
_EVENT_ITEM_RE = re.compile(r"(?m)^[^\S\n]*Item[^\S\n]+(\d\.\d{2})\b", re.IGNORECASE)
_STATEMENT_CHARS = 250_000  # a 10-Q's statements, and a 10-K's cover and MD&A opening


@dataclass(slots=True)
class FilingMetadata:
    """What the cover page says about the filing."""

    company: str = ""
    form: str = "10-K"
    fiscal_year: int | None = None
    #: 1-4 for a quarterly report or a quarter's release; None for an annual report or an 8-K.
    fiscal_quarter: int | None = None
    #: The period's last day (ISO); for an 8-K, its event date.
    period_end: str | None = None
    #: An 8-K's Items ("2.02", "9.01"), in the order it reports them.
    event_items: list[str] = field(default_factory=list)


def xbrl_cover_facts(raw_html: str) -> dict[str, str]:
    """The dei: cover facts of an inline-XBRL document (registrant name, document type, period end)."""
    facts: dict[str, str] = {}
    for name, value in _XBRL_FACT.findall(raw_html[:3_000_000]):
        text = " ".join(html.unescape(_TAG.sub(" ", value)).split())
        if text and name not in facts:
            facts[name] = text
    return facts


def parse_date(text: str) -> datetime | None:
    """A cover-page date such as "January 29, 2023", "Dec. 31 2021" or "SEPTEMBER 30, 2023"."""
    cleaned = re.sub(r"\s+", " ", text.replace(",", " ").replace(".", " ")).strip().title()
    cleaned = re.sub(r"^Sept ", "Sep ", cleaned)
    for fmt in ("%B %d %Y", "%b %d %Y"):
        try:
            return datetime.strptime(cleaned, fmt)
        except ValueError:
            continue
    return None


#: A company's legal form as names write it when the cover prints it in capitals ("ACME INC." -> "Acme Inc.").
_LEGAL_FORMS = {"INC": "Inc", "CORP": "Corp", "CO": "Co", "LTD": "Ltd", "PLC": "plc", "AG": "AG", "SA": "SA"}


def _proper_case(name: str, text: str) -> str:
    """Re-case an all-caps registrant name the way the filing itself writes those words in prose."""
    if not name.isupper():
        return name
    words = []
    for word in name.split():
        core = word.strip(",.()")
        forms: Counter[str] = Counter()
        if core and core.replace(".", "").isalpha():
            for match in re.finditer(
                rf"(?<![A-Za-z]){re.escape(core)}(?![A-Za-z])", text[:400_000], re.IGNORECASE
            ):
                context = text[max(0, match.start() - 25) : match.end() + 25]
                if sum(ch.islower() for ch in context) > 10:  # running text, not another all-caps line
                    forms[match.group(0)] += 1
        # Prefer how prose capitalises the word ("Corporation"); keep all caps only for names like "NVIDIA"
        # that prose writes in capitals too.
        titled = Counter({form: n for form, n in forms.items() if form[:1].isupper() and not form.isupper()})
        if titled:
            words.append(word.replace(core, titled.most_common(1)[0][0]))
        elif forms.get(core, 0) >= 3:
            words.append(word)
        elif core.upper() in _LEGAL_FORMS:
            words.append(word.replace(core, _LEGAL_FORMS[core.upper()]))
        elif core.isalpha() and len(core) > 3:
            words.append(word.replace(core, core.capitalize()))
        else:
            words.append(word)
    return " ".join(words)


def _plausible_name(line: str) -> bool:
    return (
        bool(re.search(r"[A-Za-z]{2}", line)) and not _NOT_A_NAME.search(line) and not _DATE_RE.search(line)
    )


def _company_from_cover(cover: str) -> str:
    match = _REGISTRANT_RE.search(cover)
    if match is None:
        return ""
    # PDF extraction can split capitals off their words ("MGM R" / "ESORTS I NTERNATIONAL").
    before = _LONE_CAPITAL.sub(r"\1", cover[max(0, match.start() - 400) : match.start()])
    lines = [line.strip() for line in before.split("\n")][-6:]
    while lines and not lines[-1]:
        lines.pop()
    if not lines:
        return ""
    name = lines.pop()
    if len(name) > 100:
        # A flattened cover: the name is the run of capitalised words right before the caption.
        tail = re.search(r"(?<!\S)((?:[A-Z0-9]*[A-Z][A-Z0-9.,&'’-]*\s+){1,8})$", name + " ")
        words = tail.group(1).split() if tail else []
        half = len(words) // 2
        name = " ".join(words[:half] if half and words[:half] == words[half:] else words)
    # Names broken over lines ("SQUARE," / "INC.") or reduced to their suffix get their first part back.
    while lines and (_SUFFIX_ONLY.match(name) or lines[-1].endswith(",") or _caps_fragment(lines[-1], name)):
        name = f"{lines.pop()} {name}"
    if _plausible_name(name) and len(name) < 100:
        return name
    for line in reversed(lines):
        if _plausible_name(line) and len(line) < 100:
            return line
    return ""


def _caps_fragment(previous: str, name: str) -> bool:
    """True when the previous line is an all-caps piece of the same all-caps name."""
    return (
        bool(previous)
        and previous.isupper()
        and name.isupper()
        and len(previous) <= 12
        and _plausible_name(previous)
    )


def _company_after_file_number(cover: str) -> str:
    """The first name-like line after "Commission File Number …", where covers without the caption put it."""
    match = _FILE_NUMBER_RE.search(cover)
    if match is None:
        return ""
    for line in cover[match.end() : match.end() + 400].split("\n")[:8]:
        line = line.strip()
        # A lone title-case word here is a state ("Delaware"), and "State of Incorporation:" is a caption.
        looks_named = line.isupper() or len(line.split()) >= 2
        if looks_named and _plausible_name(line) and not line.endswith(":") and not re.search(r"\d{3}", line):
            return line if len(line) < 80 else ""
    return ""


def _company_from_prose(text: str) -> str:
    """The most frequent "<Capitalised words> Inc./Corporation/Company" in the first pages."""
    names: Counter[str] = Counter()
    for match in _NAME_IN_PROSE.finditer(text[:60000]):
        name = " ".join(match.group(0).split())
        if not re.fullmatch(r"(?:The|Our|This|Each|Such)\s+\S+", name) and not _NOT_REGISTRANT.search(name):
            names[name] += 1
    return names.most_common(1)[0][0] if names else ""


def detect_metadata(text: str, xbrl: dict[str, str] | None = None) -> FilingMetadata:
    """Company, form, fiscal period and (for an 8-K) event date and Items from the cover page; XBRL facts
    win where they exist. A document without an SEC cover that reports results is an earnings release."""
    xbrl = xbrl or {}
    cover = text[:_COVER_CHARS]
    meta = FilingMetadata()
    meta.form = _form(cover, xbrl.get("DocumentType", ""))
    if meta.form == EARNINGS_RELEASE:
        company = _company_of_release(cover) or _company_from_prose(text)
    else:
        company = (
            _company_from_cover(cover)
            or xbrl.get("EntityRegistrantName", "")
            or _company_after_file_number(cover)
            or _company_from_prose(text)
        )
    company = re.sub(r"\s+(?=[.,])", "", " ".join(company.split())).strip(" ,")  # "NIKE, Inc ."
    meta.company = _proper_case(company, text)
    if meta.form == "8-K":
        _read_current_report(meta, cover)
    elif meta.form == EARNINGS_RELEASE:
        _read_release_period(meta, cover)
    else:
        _read_report_period(meta, cover, text, xbrl)
    return meta


def _form(cover: str, document_type: str) -> str:
    """The form the cover page names. A document that announces results before any SEC cover (a release
    may name the SEC and its Form 10-Q further down) is an earnings release."""
    if document_type:
        match = _FORM_RE.search(f"Form {document_type}")
        if match:
            return _form_name(match)
    header = _SEC_HEADER_RE.search(cover)
    release = _release_opening(cover)
    if header is not None and (release is None or header.start() < release.start()):
        match = _FORM_RE.search(cover, header.start(), header.end() + _SEC_HEADER_CHARS) or _FORM_RE.search(
            cover
        )
        if match:
            return _form_name(match)
    if release is not None:
        return EARNINGS_RELEASE
    match = _FORM_RE.search(cover)
    return _form_name(match) if match else "10-K"


def _form_name(match: re.Match[str]) -> str:
    return match.group(1).upper() + (match.group(2) or "").upper()


def _release_opening(text: str) -> re.Match[str] | None:
    """Where the document's opening announces results the way a press release does, if it does."""
    return _RELEASE_RE.search(text[:_RELEASE_HEAD_CHARS])


def is_earnings_release(text: str) -> bool:
    """True when the document's opening announces results the way a press release does."""
    return _release_opening(text) is not None


def _read_current_report(meta: FilingMetadata, cover: str) -> None:
    """An 8-K: its event date (the date of report) names its year; its Items say what it reports."""
    match = _REPORT_DATE_RE.search(cover) or _PERIOD_RE.search(cover)
    date = parse_date(match.group(1)) if match else None
    if date is not None:
        meta.period_end = date.date().isoformat()
        meta.fiscal_year = date.year
    meta.event_items = list(dict.fromkeys(_EVENT_ITEM_RE.findall(cover)))


def _read_release_period(meta: FilingMetadata, cover: str) -> None:
    """An earnings release: the quarter and fiscal year its headline names, the period end it states."""
    head = cover[:_RELEASE_HEAD_CHARS]
    quarter, year = _quarter_in_headline(head)
    match = _RELEASE_PERIOD_RE.search(head)
    end = parse_date(match.group(1)) if match else None
    if end is not None:
        meta.period_end = end.date().isoformat()
    meta.fiscal_year = year or (fiscal_year_of(end) if end else None)
    meta.fiscal_quarter = quarter


def _read_report_period(meta: FilingMetadata, cover: str, text: str, xbrl: dict[str, str]) -> None:
    """A 10-K or 10-Q: the period end from the cover; a quarter's fiscal year and number from the company's
    own fiscal calendar (XBRL's focus, else the prior fiscal year end its balance sheet compares with)."""
    period = parse_date(xbrl.get("DocumentPeriodEndDate", "")) if xbrl.get("DocumentPeriodEndDate") else None
    if period is None:
        match = _PERIOD_RE.search(cover)
        period = parse_date(match.group(1)) if match else None
    if period is None:
        return
    meta.period_end = period.date().isoformat()
    meta.fiscal_year = _named_fiscal_year(text, period) or fiscal_year_of(period)
    if meta.form != "10-Q":
        return
    focus_year, focus_period = (
        xbrl.get("DocumentFiscalYearFocus", ""),
        xbrl.get("DocumentFiscalPeriodFocus", ""),
    )
    if focus_year.isdigit() and re.fullmatch(r"Q[1-4]", focus_period):
        meta.fiscal_year, meta.fiscal_quarter = int(focus_year), int(focus_period[1])
        return
    prior_year_end = _prior_fiscal_year_end(text, period)
    if prior_year_end is not None:
        meta.fiscal_year = fiscal_year_of(prior_year_end) + 1
        meta.fiscal_quarter = min(3, max(1, round((period - prior_year_end).days / 91)))
    else:  # nothing says otherwise: a calendar fiscal year
        meta.fiscal_quarter = min(3, (period.month - 1) // 3 + 1)


def _prior_fiscal_year_end(text: str, period: datetime) -> datetime | None:
    """The fiscal year end a 10-Q's balance sheet compares with: the date two to ten months before the
    quarter's end that the document prints most often."""
    counts: Counter[datetime] = Counter()
    for match in DATE_RE.finditer(text[:_STATEMENT_CHARS]):
        date = parse_date(match.group(0))
        if date is not None and 55 <= (period - date).days <= 300:
            counts[date] += 1
    if not counts:
        return None
    date, n = counts.most_common(1)[0]
    return date if n >= 2 else None


def _named_fiscal_year(text: str, period: datetime) -> int | None:
    """The name the company itself gives the fiscal year that ends on this date, where the text binds the
    two ("fiscal 2022 ended January 28, 2023", "January 29, 2023 (fiscal 2023)"): companies whose year ends
    in January differ in which calendar year they name it by."""
    spelled = rf"{period.strftime('%B')}\s+{period.day},?\s+{period.year}"
    name = rf"fiscal\s+(?:year\s+)?({YEAR})"
    bound = re.compile(
        rf"{name}\s*,?\s*(?:which\s+)?end(?:ed|ing)\s+(?:on\s+)?{spelled}|{spelled}\s*\(\s*[“\"]?{name}",
        re.IGNORECASE,
    )
    for match in bound.finditer(text[:_STATEMENT_CHARS]):
        year = int(match.group(1) or match.group(2))
        if year in (period.year - 1, period.year):
            return year
    return None


def _quarter_in_headline(head: str) -> tuple[int | None, int | None]:
    """(quarter, fiscal year) a release's headline names: "Second-Quarter 2023", "Fourth Quarter Fiscal 2022",
    "2022 Fourth-Quarter", "fiscal 2023 results" (a full year: its fourth quarter)."""
    match = _HEADLINE_QUARTER_RE.search(head)
    if match:
        year = match.group("y1") or match.group("y2")
        return quarter_number(match.group("q1") or match.group("q2")), int(year) if year else None
    match = _HEADLINE_YEAR_RE.search(head)
    if match:
        return 4, int(match.group(1))
    return None, None


def _company_of_release(cover: str) -> str:
    """The company a release is from: the name before its ticker ("PepsiCo, Inc. (NASDAQ: PEP)"), else the
    name in the headline ("Amcor reports fiscal 2023 results")."""
    match = _TICKER_RE.search(cover[: _RELEASE_HEAD_CHARS * 2])
    if match:
        name = re.split(r"\s[–—-]\s|\)\s|\n", match.group(1))[-1].strip(" ,–—-")
        if _plausible_name(name):
            return name
    match = _HEADLINE_COMPANY_RE.search(cover[:_RELEASE_HEAD_CHARS])
    if match is None:
        return ""
    short = match.group(1).strip()
    # The headline's short name ("Amcor") in full where the release writes it so ("Amcor plc").
    for full in _NAME_IN_PROSE.finditer(cover):
        name = " ".join(full.group(0).split())
        if name.startswith(short + " ") and len(name) <= len(short) + 14:
            return name
    return short


#: A 52/53-week year that ends on the weekend nearest December 31 can end in the first days of January.
_NEW_YEAR_SPILL_DAYS = 7


def fiscal_year_of(period_end: datetime) -> int:
    """The fiscal year a period end names: the year it ends in, except a 52/53-week year ending in the first
    week of January (e.g. January 1, 2023), which companies and the SEC call by the year it covers (2022)."""
    if period_end.month == 1 and period_end.day <= _NEW_YEAR_SPILL_DAYS:
        return period_end.year - 1
    return period_end.year
