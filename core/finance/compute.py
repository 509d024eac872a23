"""Compute a requested figure from table rows: per-year evaluation, change or average, and its wording."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from decimal import ROUND_HALF_UP, Decimal
from itertools import pairwise

from core.finance.formula import (
    Evaluation,
    Found,
    Lookup,
    PartsLookup,
    evaluate,
    format_number,
    parse_formula,
)
from core.finance.requests import FigureRequest, sign_asked

#: How a figure computed by a fallback definition ends its working: "(defined as …, as X is not reported)".
NOT_REPORTED = " is not reported"
#: That note's reason, for readers of an answer (a missing input of one definition is not a missing answer).
FALLBACK_REASON_RE = re.compile(rf", as [^()]{{1,80}}?{NOT_REPORTED}\)")
#: A table's scale in words (1e6: "million"), for stating amounts and naming a table's unit.
UNIT_WORD = {1e3: "thousand", 1e6: "million", 1e9: "billion"}
_UNIT_SCALE = {"thousands": 1e3, "millions": 1e6, "billions": 1e9}


#: How a headline states a change end to end ("; change +$1,137 million, +8.3%", "; down 0.9 percentage
#: points") and a single year's value ("Working capital (FY2022): −$1,561 million").
_CHANGE_STATED_RE = re.compile(r"; (?:change (?P<sign>[+−])|(?P<word>up|down)\b)")
_VALUE_STATED_RE = re.compile(r"^[^:;]+\((?:Q[1-4] |H1 |9M )?FY\d{4}\): (?P<minus>−)?[$\d]")


def states_amount_change(headline: str) -> bool:
    """Whether a computed figure's headline states an amount's change end to end ("; change +$1,137 million,
    +8.3%"): not a share's or a ratio's move in points, nor a single period's value."""
    m = _CHANGE_STATED_RE.search(headline)
    return m is not None and m.group("sign") is not None


def yes_or_no(question: str, headline: str) -> str | None:
    """ "Yes" or "No" when a yes-or-no question is settled by the sign of the figure a headline states:
    the change for a direction asked ("Did it grow its PP&E?"), the value for "positive"/"negative", any
    amount for cash paid out ("Has it paid dividends?"). None when the headline does not settle it."""
    asked = sign_asked(question)
    if asked is None or "not computed" in headline:
        return None
    what, wanted = asked
    if what == "change":
        changes = list(_CHANGE_STATED_RE.finditer(headline))
        if len(changes) != 1:  # none stated, or several figures' changes
            return None
        found = 1 if changes[0].group("sign") == "+" or changes[0].group("word") == "up" else -1
    else:
        value = _VALUE_STATED_RE.match(headline)
        if value is None or _CHANGE_STATED_RE.search(headline):
            return None
        found = -1 if value.group("minus") else 1
        if what == "amount":
            return "Yes"  # cash paid out is stated unsigned; a reported amount is a payment
    return "Yes" if found == wanted else "No"


@dataclass
class ComputedFigure:
    """A request evaluated: the headline value (None when inputs are missing), its working and inputs."""

    request: FigureRequest
    per_year: dict[int, Evaluation]
    value: float | None
    headline: str
    working: str
    inputs: list[Found] = field(default_factory=list)
    missing: list[tuple[str, int]] = field(default_factory=list)
    sentence: str = ""  # the figure as an analyst writes it in prose, without its working

    @property
    def complete(self) -> bool:
        return self.value is not None


def _with_caveats(figure: ComputedFigure) -> ComputedFigure:
    """A figure read from a row whose printed and tagged values disagree says so, in its headline and its
    sentence (the analyst decides which to trust)."""
    caveats = list(dict.fromkeys(f.caveat for f in figure.inputs if f.caveat))
    if caveats:
        note = " ".join(c if c.endswith(".") else f"{c}." for c in caveats)
        figure.headline += f" (caution: {note.rstrip('.')})"
        figure.sentence = f"{figure.sentence} Caution: {note}" if figure.sentence else figure.sentence
    return figure


def _subject(label: str) -> str:
    """A figure's name inside a sentence: lower-case unless it starts with a name ("Data Center revenue")."""
    first = label.split(" ", 1)[0]
    return (
        label
        if first.isupper() or (len(label) > 1 and label[1:2].isupper())
        else label[:1].lower() + label[1:]
    )


def _scale(inputs: list[Found]) -> float | None:
    scales = {f.scale for f in inputs if not f.count}
    return scales.pop() if len(scales) == 1 else None


def _amount(value: float, scale: float | None, unit_asked: str | None) -> str:
    word = UNIT_WORD.get(scale or 0.0)
    sign = "−" if value < 0 else ""  # "−$962 million": the sign before the currency, as analysts write it
    size = abs(value)
    # As precise as the table printed it: 1,577 / 112.5 / 0.95, never rounded away.
    smaller = {1e9: 1e6, 1e6: 1e3}.get(scale or 0.0)
    if size < 1 and word and smaller:  # an amount per employee in millions: "$0.596 million ($596 thousand)"
        small = _amount(value * (scale or 1.0) / smaller, smaller, None)
        return f"{sign}${size:.3g} {word} ({small})"
    if size < 1:
        number = f"{size:.3g}"
    else:
        number = f"{size:,.2f}".rstrip("0").rstrip(".") if size < 1e6 else f"{size:,.0f}"
    text = f"{sign}${number} {word}" if word else f"{sign}{number}"
    if scale and unit_asked and _UNIT_SCALE.get(unit_asked) and _UNIT_SCALE[unit_asked] != scale:
        # Rounded half up, as the reader rounds: $4,625 million is $4.63 billion.
        converted = Decimal(repr(size * scale / _UNIT_SCALE[unit_asked])).quantize(
            Decimal("0.01"), ROUND_HALF_UP
        )
        text += f" ({sign}${converted:,.2f} {unit_asked[:-1]})"
    return text


def _already_percent(formula: str) -> bool:
    return bool(re.search(r"(\*|×)\s*100\b|\b100\s*(\*|×)", formula))


def _read_as_percent(request: FigureRequest, inputs: list[Found]) -> bool:
    """A percentage read straight from a row (not computed from amounts) is already in percent."""
    return _already_percent(request.formula) or (bool(inputs) and all(f.percent for f in inputs))


def format_value(request: FigureRequest, value: float, inputs: list[Found]) -> str:
    """A value as an analyst reads it: 34.6%, 24.26, 93.86 days, $1,577 million."""
    if request.kind == "percent":
        pct = value if _read_as_percent(request, inputs) else value * 100
        return f"{pct:,.1f}%"
    if request.kind == "days":
        return f"{value:,.2f} days"
    if request.kind == "amount":
        return _amount(value, _scale(inputs), request.unit_asked)
    return f"{value:,.2f}"


def _as_number(request: FigureRequest, value: float, inputs: list[Found]) -> float:
    if request.kind == "percent" and not _read_as_percent(request, inputs):
        return value * 100
    return value


def _signed_percent(value: float) -> str:
    """+8.3% / −2.5% (a typographic minus, as in the workings)."""
    return f"{value:+.1f}%".replace("-", "−")


def _move(request: FigureRequest, size: float) -> str:
    """A change in a percentage, ratio or number of days, as precise as the values themselves are shown."""
    if request.kind == "percent":
        return f"{size:.1f} percentage points"
    if request.kind == "days":
        return f"{size:,.2f} days"
    return f"{size:.2f}"


def _year_on_year(request: FigureRequest, before: float, after: float, inputs: list[Found]) -> str:
    """One year's move: +0.1 percentage points, −1.10, +8.3% (an amount's move is relative)."""
    if request.kind == "amount":
        return _signed_percent((after - before) / abs(before) * 100) if before else "n/a"
    points = _as_number(request, after, inputs) - _as_number(request, before, inputs)
    return f"{'+' if points >= 0 else '−'}{_move(request, abs(points))}"


def _amount_difference(difference: float, scale: float | None) -> str:
    """'+$1,137 million, ' — an amount's change in its own unit, before the relative change."""
    if scale is None:
        return ""
    sign = "+" if difference >= 0 else "−"
    return f"{sign}{_amount(abs(difference), scale, None)}, "


def _when(period: str) -> str:
    """A period as a sentence places a figure in it: "in Q2 FY2023", "at the FY2022 year end"."""
    return f"at the {period}" if period.endswith("year end") else f"in {period}"


def verb_for(label: str) -> str:
    """ "were" after a figure named in the plural ("Inventories", "Operating expenses"), else "was" (its head
    noun decides: "Cash from operations" was)."""
    if re.search(r"\bas an? \w+ of\b", label):
        return "was"  # "Operating expenses as a share of revenue": one share
    head = re.split(r"\s+(?:from|of|in|for|as|per|by|used|provided|under)\s+", label, maxsplit=1)[0]
    last = head.split()[-1] if head.split() else ""
    plural = not last.isupper() and last.endswith("s") and not last.endswith(("ss", "us", "is"))
    return "were" if plural else "was"


def _printed_label(label: str) -> str:
    """A row label as a reader finds it in the table: footnote marks and trademark signs aside."""
    return " ".join(re.sub(r"\(\d\)|[®™*]", " ", label).split())


def compute(request: FigureRequest, lookup: Lookup) -> ComputedFigure:
    """Evaluate `request` (or, when inputs are missing, its first fallback definition that completes)."""
    first = _compute(request, lookup)
    if first.complete:
        return first
    for formula in request.fallbacks:
        other = _compute(replace(request, formula=formula, fallbacks=[]), lookup)
        if other.complete:
            lacking = first.missing[0][0] if first.missing else "an input"
            other.working += f" (defined as {formula}, as {lacking}{NOT_REPORTED})"
            return other
    return first


def _named_for_columns_read(request: FigureRequest, inputs: list[Found]) -> FigureRequest:
    """A quarter's figure that a quarterly report prints only for the year to date (its cash flows, six
    months to Q2) is named for the period it covers, not for the quarter asked."""
    lengths = {f.months for f in inputs}
    if request.calendar is None or request.months is not None or len(lengths) != 1:
        return request
    months = lengths.pop()
    # Six or nine months to date; a twelve-month column of a quarterly report trails the quarter, it is no
    # fiscal year, and its name is not one this calendar writes.
    return replace(request, months=months) if months is not None and 3 < months < 12 else request


def _compute(request: FigureRequest, lookup: Lookup) -> ComputedFigure:
    """Evaluate `request` for each of its years, then its change or average when it asks for one."""
    tree = parse_formula(request.formula)
    per_year = {year: evaluate(tree, year, lookup) for year in request.years}
    inputs = [f for e in per_year.values() for f in e.inputs]
    request = _named_for_columns_read(request, inputs)
    missing = list(dict.fromkeys(m for e in per_year.values() for m in e.missing))
    done = {y: e for y, e in per_year.items() if e.value is not None}
    label = request.name[:1].upper() + request.name[1:]
    shown = {y: format_value(request, e.value, e.inputs) for y, e in done.items()}  # type: ignore[arg-type]
    plain = tree[0] == "op" and tree[1].mode == "at"
    if plain and (request.aggregate in (None, "change") or len(done) < 2):
        # A figure read as printed has no arithmetic to show: its working says which row it was read from,
        # and, for a change, how the change was worked out.
        rows = dict.fromkeys(f"“{_printed_label(f.label)}”" for e in done.values() for f in e.inputs)
        workings = f"as printed in the row {', '.join(rows)}" if rows else ""
        converted = {y: shown[y] for y in done if "(" in shown[y]}  # "$4,625 million ($4.63 billion)"
        if converted:  # a unit conversion is arithmetic: it is shown
            workings = (
                "; ".join(f"{done[y].working} = {text}" for y, text in converted.items()) + f", {workings}"
            )
        if request.aggregate == "change" and len(done) >= 2:
            first, last = done[min(done)], done[max(done)]
            assert first.value is not None and last.value is not None
            moved = format_number(last.value - first.value)
            workings = f"{last.working} − {first.working} = {moved}, {workings}"
    else:
        workings = "; ".join(
            f"{request.period_name(y)}: {e.working} = {shown[y]}"
            if len(per_year) > 1
            else f"{e.working} = {shown[y]}"
            for y, e in done.items()
        )
    if request.aggregate and len(done) == len(per_year) and len(done) >= 2:
        years = sorted(done)
        series = ", ".join(f"{request.period_name(y)} {shown[y]}" for y in years)
        first, last = done[years[0]].value, done[years[-1]].value
        first_name, last_name = request.period_name(years[0]), request.period_name(years[-1])
        span = f"{first_name}–{last_name}"
        assert first is not None and last is not None
        if request.aggregate == "average":
            avg = sum(e.value for e in done.values()) / len(done)  # type: ignore[misc]
            value = avg
            headline = (
                f"{label}, {len(years)}-year average {span}: {format_value(request, avg, inputs)} ({series})"
            )
            sentence = f"{label} averaged {format_value(request, avg, inputs)} over {span} ({series})."
        elif request.aggregate == "cagr":
            periods = years[-1] - years[0]
            value = (
                ((last / first) ** (1 / periods) - 1) * 100
                if first and last / first > 0 and periods
                else None
            )
            rate = _signed_percent(value) if value is not None else "n/a"
            headline = f"{label}, compound annual growth {span}: {rate} ({series})"
            sentence = (
                f"{label} grew at a compound annual rate of {rate} from {first_name} to {last_name} "
                f"({shown[years[0]]} to {shown[years[-1]]})."
            )
        elif request.kind == "amount":
            value = (last - first) / abs(first) * 100 if first else None
            change = _signed_percent(value) if value is not None else "n/a"
            difference = _amount_difference(last - first, _scale(inputs))
            headline = f"{label}: {series}; change {difference}{change}"
            moved = "up" if last > first else "down" if last < first else "unchanged"
            size = f" {change.lstrip('+−')}" if value is not None and moved != "unchanged" else ""
            sentence = (
                f"{label} {verb_for(label)} {shown[years[-1]]} {_when(last_name)}, {moved}{size} from "
                f"{shown[years[0]]} {_when(first_name)}."
            )
        else:
            points = _as_number(request, last, inputs) - _as_number(request, first, inputs)
            value = points
            direction = "up" if points > 0 else "down" if points < 0 else "unchanged"
            size = "" if direction == "unchanged" else f" {_move(request, abs(points))}"
            headline = f"{label}: {series}; {direction}{size}"
            sentence = (
                f"{label} {verb_for(label)} {shown[years[-1]]} {_when(last_name)}, {direction}{size} from "
                f"{shown[years[0]]} {_when(first_name)}."
            )
        if len(years) > 2 and request.aggregate == "change":
            # A history ("consistent each year?") is judged by its year-on-year moves, not only end to end.
            moves = ", ".join(
                _year_on_year(request, done[a].value, done[b].value, inputs)  # type: ignore[arg-type]
                for a, b in pairwise(years)
            )
            headline += f" (year on year: {moves})"
            sentence = f"{sentence[:-1]} (year on year: {moves})."
        return _with_caveats(
            ComputedFigure(request, per_year, value, headline, workings, inputs, missing, sentence)
        )
    if len(done) == len(per_year) and done:
        year = max(done)
        value = done[year].value
        series = "; ".join(f"{request.period_name(y)}: {shown[y]}" for y in sorted(done))
        headline = (
            f"{label} ({series})"
            if len(done) > 1
            else f"{label} ({request.period_name(year)}): {shown[year]}"
        )
        stated = " and ".join(f"{shown[y]} {_when(request.period_name(y))}" for y in sorted(done))
        sentence = f"{label} {verb_for(label)} {stated}."
        return _with_caveats(
            ComputedFigure(request, per_year, value, headline, workings, inputs, missing, sentence)
        )
    gaps = ", ".join(f"{name} for {request.period_name(year)}" for name, year in missing) or "the inputs"
    headline = f"{label} ({', '.join(request.period_name(y) for y in request.years)}): not computed — {gaps} not found"
    sentence = f"The filings searched do not state {gaps}, so {_subject(label)} is not given."
    return ComputedFigure(request, per_year, None, headline, workings, inputs, missing, sentence)


def breakdown(request: FigureRequest, parts: PartsLookup) -> ComputedFigure | None:
    """A line item stated part by part for the request's latest period, as the filing's table breaks it down
    (each part, then the total they add up to, every row cited); None when no table breaks it down."""
    year = max(request.years)
    found = parts(request.line_items[0], year, request.months, request.parts_asked)
    if len(found) < 3:  # two parts and their total at least
        return None
    *pieces, total = found
    label = request.name[:1].upper() + request.name[1:]
    period = request.period_name(year)
    shown = [f"{p.label} {format_value(request, p.value, [p])}" for p in pieces]
    whole = format_value(request, total.value, [total])
    share = "; ".join(
        f"{s} ({p.value / total.value * 100:.1f}%)" if total.value else s
        for s, p in zip(shown, pieces, strict=True)
    )
    headline = f"{label} by part ({period}): {share}; total {whole}"
    working = " + ".join(f"{p.value:,.0f}" for p in pieces) + f" = {total.value:,.0f}"
    sentence = (
        f"{label} in {period} {verb_for(label)} {whole}: " + ", ".join(shown[:-1]) + f" and {shown[-1]}."
    )
    per_year = {year: Evaluation(value=total.value, working=working, inputs=found)}
    return _with_caveats(
        ComputedFigure(request, per_year, total.value, headline, working, found, [], sentence)
    )
