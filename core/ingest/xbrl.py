"""Inline XBRL: every tagged numeric fact of an EDGAR HTML filing, with the table row it is printed in.

We read inline XBRL with lxml, already a dependency, rather than a library. Of the maintained PyPI parsers,
ixbrlparse reads these filings correctly but takes ~3 s per 10-K on BeautifulSoup, exposes no scale or sign,
and its tree is a second parse our lxml cell rules cannot use; Arelle and py-xbrl type a fact only after
loading the us-gaap taxonomy over the network (Arelle also brings ~180 MB of dependencies). A fact's own
attributes and the filing's hidden header hold all we need, so one lxml pass reads a 2.7 MB 10-K in ~0.1 s
and sees the <tr> around each fact.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from core.ingest.loaders.html import _cell_text, parse_html_tree
from core.ingest.loaders.txt import decode_text, normalise_line

# lxml.html keeps the prefix in the (lower-cased) tag name; the prefixes are not fixed by the spec, so we
# match on the local name.
_FACT = "nonfraction"
_CONTEXT = "context"
_UNIT = "unit"
_NIL_ATTRS = ("xsi:nil", "nil")
# An untagged cell that prints a number: "1,234", "(56)", "12.5 %", "$ 3", or a dash standing for zero.
_NUMBER_CELL = re.compile(r"^[$€£¥(\s]*[-+−]?\d[\d,]*(?:\.\d+)?\s*[)%]*$|^[—–-]$")
_WORD_SPLIT = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_UNITS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen"
)
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety"
_NUMBER_WORDS = {word: value for value, word in enumerate(_UNITS.split())}
_NUMBER_WORDS.update({word: 10 * (i + 2) for i, word in enumerate(_TENS.split())})
_NUMBER_WORDS.update({"no": 0, "none": 0, "a": 1, "an": 1})
_SCALE_WORDS = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}


@dataclass(frozen=True)
class XbrlPeriod:
    """The period of a context: an instant (start None) or a duration with both dates inclusive."""

    start: datetime.date | None
    end: datetime.date

    @property
    def instant(self) -> bool:
        """True for an instant (a balance at one date)."""
        return self.start is None

    @property
    def months(self) -> int | None:
        """Length of a duration in whole months, rounded (52/53-week years give 12); None for an instant."""
        if self.start is None:
            return None
        days = (self.end - self.start).days + 1  # XBRL end dates are inclusive (the end of that day)
        return round(days / 30.4375)


@dataclass(frozen=True)
class TaggedFact:
    """One numeric inline-XBRL fact and where the filing prints it."""

    concept: str  # "us-gaap:Revenues", as written
    label: str  # readable words from the concept's local name: "Revenues", "Deferred Revenue Current"
    value: float | None  # in units (scale applied), signed by sign="-"; None for xsi:nil or unreadable text
    printed: str  # the tag's text as printed: "26,974", "—"
    scale: int  # the scale attribute (a power of ten), 0 when absent
    decimals: str | None  # "-6", "2", "INF" as written
    unit: str | None  # "USD", "shares", "USD/shares", "pure": the measures without their prefix
    period: XbrlPeriod
    dimensions: tuple[tuple[str, str], ...]  # sorted (axis, member) pairs; () for the consolidated entity
    context_id: str
    element_id: str | None
    table_index: int  # the enclosing <table> among all <table>s of the document in order; -1 outside one
    row_index: int  # the enclosing <tr> among the table's table.iter("tr"), as the HTML loader walks it
    row_label: str  # the row's first cell with a word (or an untagged "2025"), as _cell_text gives it
    column: int  # position among the row's cells that print a number, left to right; -1 in the label cell


@dataclass(frozen=True)
class _Context:
    period: XbrlPeriod
    dimensions: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class _Row:
    row_index: int
    label: str
    columns: dict[Any, int]  # cell element -> its position among the row's number cells


def concept_label(concept: str) -> str:
    """A readable label from a concept's local name: "us-gaap:DeferredRevenueCurrent" -> "Deferred Revenue Current"."""
    local = concept.rsplit(":", 1)[-1]
    words = _WORD_SPLIT.findall(local)
    return " ".join(words) if words else local


def read_inline_xbrl(data: bytes) -> list[TaggedFact]:
    """Every numeric inline-XBRL fact of an HTML filing, in document order; [] when it has none."""
    text = decode_text(data)
    if "nonfraction" not in text.lower():
        return []  # not inline XBRL, or no numeric fact in it: spare the parse
    root = parse_html_tree(text)
    contexts: dict[str, _Context] = {}
    units: dict[str, str] = {}
    fact_elements: list[Any] = []
    tables: dict[Any, int] = {}
    for el in root.iter():
        tag = el.tag
        if not isinstance(tag, str):
            continue  # comments and processing instructions
        if tag == "table":
            tables[el] = len(tables)
            continue
        local = tag.rpartition(":")[2]
        if local == _FACT and ":" in tag:
            fact_elements.append(el)
        elif local == _CONTEXT and ":" in tag and el.get("id"):
            context = _read_context(el)
            if context is not None:
                contexts[el.get("id")] = context
        elif local == _UNIT and ":" in tag and el.get("id"):
            units[el.get("id")] = _read_unit(el)

    rows: dict[Any, _Row] = {}
    row_numbers: dict[Any, dict[Any, int]] = {}
    facts: list[TaggedFact] = []
    for el in fact_elements:
        context_id = (el.get("contextref") or "").strip()
        context = contexts.get(context_id)
        if context is None:
            continue  # a fact whose context is missing is not a valid XBRL fact: it has no period
        concept = (el.get("name") or "").strip()
        scale = _int_attr(el.get("scale"))
        printed = normalise_line(" ".join(_fact_text(el).split()))
        nil = any((el.get(name) or "").strip().lower() == "true" for name in _NIL_ATTRS)
        value = None if nil else _fact_value(printed, el.get("format"), scale, el.get("sign") == "-")
        table_index, row_index, row_label, column = -1, -1, "", -1
        place = _place(el, tables)
        if place is not None:
            table_el, tr, cell = place
            row = rows.get(tr)
            if row is None:
                if table_el not in row_numbers:
                    # The loader walks a table's rows with table.iter("tr"); counting alike keeps them joinable.
                    row_numbers[table_el] = {candidate: i for i, candidate in enumerate(table_el.iter("tr"))}
                row = rows[tr] = _read_row(tr, row_numbers[table_el][tr])
            table_index, row_index, row_label = tables[table_el], row.row_index, row.label
            column = row.columns.get(cell, -1)
        unit_ref = (el.get("unitref") or "").strip()
        facts.append(
            TaggedFact(
                concept=concept,
                label=concept_label(concept),
                value=value,
                printed=printed,
                scale=scale,
                decimals=(el.get("decimals") or "").strip() or None,
                unit=units.get(unit_ref, unit_ref or None),
                period=context.period,
                dimensions=context.dimensions,
                context_id=context_id,
                element_id=el.get("id"),
                table_index=table_index,
                row_index=row_index,
                row_label=row_label,
                column=column,
            )
        )
    return facts


# --- header: contexts and units ---------------------------------------------------------------------


def _local(el: Any) -> str:
    tag = el.tag
    return tag.rpartition(":")[2].lower() if isinstance(tag, str) else ""


def _read_context(el: Any) -> _Context | None:
    start: datetime.date | None = None
    end: datetime.date | None = None
    dimensions: list[tuple[str, str]] = []
    for child in el.iter():
        local = _local(child)
        if local == "instant":
            end = _date(child.text)
        elif local == "startdate":
            start = _date(child.text)
        elif local == "enddate":
            end = _date(child.text)
        elif local == "explicitmember":
            dimensions.append(((child.get("dimension") or "").strip(), (child.text or "").strip()))
        elif local == "typedmember":
            # A typed member's value is the text of its single child element (e.g. a contract id).
            dimensions.append(
                ((child.get("dimension") or "").strip(), " ".join(child.text_content().split()))
            )
    if end is None:
        return None
    return _Context(XbrlPeriod(start, end), tuple(sorted(dimensions)))


def _date(text: str | None) -> datetime.date | None:
    try:
        return datetime.date.fromisoformat((text or "").strip()[:10])
    except ValueError:
        return None


def _read_unit(el: Any) -> str:
    numerator: list[str] = []
    denominator: list[str] = []
    for child in el.iter():
        if _local(child) != "measure":
            continue
        measure = (child.text or "").strip().rpartition(":")[2]
        below = any(_local(a) == "unitdenominator" for a in child.iterancestors())
        (denominator if below else numerator).append(measure)
    text = "*".join(numerator)
    return f"{text}/{'*'.join(denominator)}" if denominator else text


# --- values ------------------------------------------------------------------------------------------


def _int_attr(value: str | None) -> int:
    try:
        return int((value or "0").strip() or "0")
    except ValueError:
        return 0


def _fact_text(el: Any) -> str:
    """The fact's text content without ix:exclude parts (which the spec says are not part of the value)."""
    parts: list[str] = []

    def visit(node: Any) -> None:
        if _local(node) != "exclude":
            if node.text:
                parts.append(node.text)
            for child in node:
                visit(child)
        if node is not el and node.tail:
            parts.append(node.tail)

    visit(el)
    return "".join(parts)


def _fact_value(printed: str, fmt: str | None, scale: int, negative: bool) -> float | None:
    number = _parse_number(printed, (fmt or "").strip().lower().rpartition(":")[2])
    if number is None:
        return None
    value = float(number.scaleb(scale))
    # sign="-" flips the printed magnitude; keep 0.0 unsigned so a dash never prints as "-0.0".
    return -value if negative and value else value


def _parse_number(text: str, fmt: str) -> Decimal | None:
    """The printed number under an ixt / ixt-sec transform (local name only), unscaled and unsigned."""
    if "zero" in fmt or "dash" in fmt or fmt == "nocontent":
        return Decimal(0)  # fixed-zero, zerodash, numdash: a dash or blank printed for zero
    if fmt.startswith("numwords") or fmt.startswith("num-word"):
        words = _number_from_words(text)
        if words is not None:
            return words
    if "comma-decimal" in fmt or "commadecimal" in fmt:
        digits = re.sub(r"[^\d,]", "", text).replace(",", ".")
    elif "unit-decimal" in fmt or "unitdecimal" in fmt:
        # "5 dollars 50 cents": the first run of digits is whole, the second the fraction.
        groups = re.findall(r"\d[\d,. ]*", text)
        runs = [re.sub(r"\D", "", group) for group in groups]
        digits = ".".join(runs[:2])
    else:
        # num-dot-decimal, numdotdecimal, or no format (the spec's canonical "1234.5"); spaces and any
        # thousands separators are dropped, the last "." is the decimal point.
        digits = re.sub(r"[^\d.]", "", text)
    if not digits or not re.search(r"\d", digits):
        return None
    if digits.count(".") > 1:
        whole, _, fraction = digits.rpartition(".")
        digits = whole.replace(".", "") + "." + fraction
    try:
        return Decimal(digits)
    except InvalidOperation:
        return None


def _number_from_words(text: str) -> Decimal | None:
    """ "twenty-two", "one hundred fifty", "no" -> a number (ixt-sec:numwordsen); None when not words."""
    tokens = [t for t in re.split(r"[\s,\-]+", text.lower().strip()) if t and t != "and"]
    if not tokens:
        return None
    total = current = 0
    for token in tokens:
        if token in _NUMBER_WORDS:
            current += _NUMBER_WORDS[token]
        elif token == "hundred":  # noqa: S105 - a number word, not a password
            current = max(current, 1) * 100
        elif token in _SCALE_WORDS:
            total += max(current, 1) * _SCALE_WORDS[token]
            current = 0
        elif token.isdigit():
            current += int(token)
        else:
            return None
    return Decimal(total + current)


# --- placement: table, row, column -------------------------------------------------------------------


def _place(el: Any, tables: dict[Any, int]) -> tuple[Any, Any, Any] | None:
    """(table, tr, cell) around a fact, or None when it is hidden or printed outside a table."""
    cell = tr = None
    for ancestor in el.iterancestors():
        tag = ancestor.tag if isinstance(ancestor.tag, str) else ""
        local = tag.rpartition(":")[2]
        if local in {"hidden", "header"} and ":" in tag:
            return None  # facts in ix:hidden are not printed anywhere
        if tag in {"td", "th"} and cell is None and tr is None:
            cell = ancestor
        elif tag == "tr" and tr is None:
            tr = ancestor
        elif tag == "table":
            return (ancestor, tr, cell) if tr is not None and ancestor in tables else None
    return None


def _read_row(tr: Any, row_index: int) -> _Row:
    cells = [td for td in tr if isinstance(td.tag, str) and td.tag.lower() in {"td", "th"}]
    texts = [_cell_text(td) for td in cells]
    tagged = [any(_local(d) == _FACT for d in td.iter()) for td in cells]
    # The label is the first cell with a word, or an untagged "2025": a total row often has no label and
    # starts with a bare "$", and a label may itself carry facts ("$0.001 par value; 2 shares authorized").
    label_at = next(
        (
            i
            for i, text in enumerate(texts)
            if any(c.isalpha() for c in text) or (not tagged[i] and any(c.isdigit() for c in text))
        ),
        -1,
    )
    columns: dict[Any, int] = {}
    for i, td in enumerate(cells):
        # Facts in the label get no column, so the amounts of every row line up in the same columns.
        if i != label_at and (tagged[i] or _NUMBER_CELL.match(texts[i])):
            columns[td] = len(columns)
    return _Row(row_index, texts[label_at] if label_at >= 0 else "", columns)
