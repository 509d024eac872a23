"""Company, form and fiscal year from a filing's cover page (and its inline-XBRL facts when present)."""

from __future__ import annotations

import html
import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime

_COVER_CHARS = 60000  # generous: scraped copies may start with pages of XBRL noise
_FORM_RE = re.compile(r"\bForm\s*(10-K|10-Q|8-K|20-F|40-F)(?:405|T)?\b", re.IGNORECASE)
_PERIOD_RE = re.compile(
    r"for\s+the\s+(?:fiscal\s+)?(?:year|quarterly\s+period|quarter|period|transition\s+period)\s+ended:?\s*"
    r"([A-Za-z]{3,9}\.?\s*\d{1,2}\s*,?\s*\d{4})",
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


@dataclass(slots=True)
class FilingMetadata:
    """What the cover page says about the filing."""

    company: str = ""
    form: str = "10-K"
    fiscal_year: int | None = None
    period_end: str | None = None


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
    """Company, form, fiscal year and period end from the cover page; XBRL facts win where they exist."""
    xbrl = xbrl or {}
    cover = text[:_COVER_CHARS]
    meta = FilingMetadata()
    doc_type = xbrl.get("DocumentType", "")
    form_match = _FORM_RE.search((doc_type and f"Form {doc_type}") or cover)
    if form_match:
        meta.form = form_match.group(1).upper()
    company = (
        _company_from_cover(cover)
        or xbrl.get("EntityRegistrantName", "")
        or _company_after_file_number(cover)
        or _company_from_prose(text)
    )
    meta.company = _proper_case(" ".join(company.split()).strip(" ,"), text)
    period = parse_date(xbrl.get("DocumentPeriodEndDate", "")) if xbrl.get("DocumentPeriodEndDate") else None
    if period is None:
        match = _PERIOD_RE.search(cover) or (_REPORT_DATE_RE.search(cover) if meta.form == "8-K" else None)
        period = parse_date(match.group(1)) if match else None
    if period is not None:
        meta.period_end = period.date().isoformat()
        meta.fiscal_year = fiscal_year_of(period)
    return meta


#: A 52/53-week year that ends on the weekend nearest December 31 can end in the first days of January.
_NEW_YEAR_SPILL_DAYS = 7


def fiscal_year_of(period_end: datetime) -> int:
    """The fiscal year a period end names: the year it ends in, except a 52/53-week year ending in the first
    week of January (e.g. January 1, 2023), which companies and the SEC call by the year it covers (2022)."""
    if period_end.month == 1 and period_end.day <= _NEW_YEAR_SPILL_DAYS:
        return period_end.year - 1
    return period_end.year
