"""Parse financial figures such as "$26,974 million", "(1,234)" or "12.5%" out of filing text."""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.text.periods import MONTHS, YEAR

_SCALE_WORDS = {
    "thousand": 1e3,
    "thousands": 1e3,
    "million": 1e6,
    "millions": 1e6,
    "mn": 1e6,
    "m": 1e6,
    "billion": 1e9,
    "billions": 1e9,
    "bn": 1e9,
    "b": 1e9,
    "trillion": 1e12,
}

# A number with optional currency, parentheses for negatives, thousands separators, a scale word
# and a percent sign. Parentheses are how filings print negative amounts; a typographic minus counts when it is
# attached ("−$962 million"), not as the operator of a working ("7,453 − 5,175").
_FIGURE_RE = re.compile(
    r"(?P<neg>\()?\s*(?P<minus>-|−(?=[$\d]))?(?P<cur>\$|USD\s?|€|£)?\s*"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?P<close>\))?"
    r"(?:\s*(?P<pct>%|percent\b))?"
    r"(?:\s*(?P<scale>thousands?|millions?|billions?|trillion|bn|mn)\b)?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Figure:
    """A number found in text, scaled to units, with its raw spelling."""

    value: float
    raw: str
    is_percent: bool = False
    is_currency: bool = False
    start: int = 0
    end: int = 0


def parse_figure(text: str) -> Figure | None:
    """The first figure in `text`, or None; '(1,234)' is negative, '12.5%' is a percent."""
    figures = find_figures(text)
    return figures[0] if figures else None


#: A month name just before a number: the number is the day of a date.
_MONTH_BEFORE_RE = re.compile(rf"\b{MONTHS}\s*$", re.I)


def find_figures(text: str, *, include_years: bool = False) -> list[Figure]:
    """All figures in `text`, in order; bare four-digit years are skipped unless asked for."""
    out: list[Figure] = []
    for m in _FIGURE_RE.finditer(text):
        num = m.group("num")
        has_marker = bool(m.group("cur") or m.group("pct") or m.group("scale") or "," in num)
        if not include_years and not has_marker and re.fullmatch(YEAR, num):
            continue
        if not has_marker and _MONTH_BEFORE_RE.search(text[max(0, m.start("num") - 12) : m.start("num")]):
            continue  # the day of a date ("December 31, 2022"), not a figure
        # A lone "(" with no matching ")" is ordinary prose, not a negative amount.
        negative = bool(m.group("minus")) or bool(m.group("neg") and m.group("close"))
        value = float(num.replace(",", ""))
        scale = (m.group("scale") or "").lower()
        value *= _SCALE_WORDS.get(scale, 1.0)
        if negative:
            value = -value
        out.append(
            Figure(
                value=value,
                raw=m.group(0).strip(),
                is_percent=bool(m.group("pct")),
                is_currency=bool(m.group("cur")),
                start=m.start(),
                end=m.end(),
            )
        )
    return out


def format_amount(value: float) -> str:
    """Human form of a scaled amount: 26974000000 -> '26,974 million'."""
    magnitude = abs(value)
    if magnitude >= 1e9:
        return f"{value / 1e6:,.0f} million"
    if magnitude >= 1e6:
        return f"{value / 1e6:,.1f} million"
    if magnitude >= 100:
        return f"{value:,.0f}"
    return f"{value:,.4g}"


def _matches(value: float, known: list[float], tolerance: float) -> bool:
    """`value` equals one of `known` within a relative tolerance, up to a power of a thousand."""
    for other in known:
        for k in range(-4, 5):
            scaled = other * 1000.0**k
            if abs(abs(scaled) - abs(value)) <= tolerance * max(abs(value), 1e-9):
                return True
    return False


def unsupported_figures(claim: str, passages: list[str], tolerance: float = 0.005) -> list[str]:
    """The figures of `claim` that none of `passages` states (in any unit of a thousand's power)."""
    known = [f.value for text in passages for f in find_figures(text, include_years=True)]
    missing = []
    for figure in find_figures(claim):
        # Small bare integers ("3 segments", "step 2") are words more than figures.
        significant = figure.is_percent or abs(figure.value) >= 10 or "." in figure.raw or "$" in figure.raw
        if significant and not _matches(figure.value, known, tolerance):
            missing.append(figure.raw)
    return missing
