"""Numbers in answers, normalised so that "$26,974 million", "26.974 billion" and "26974" compare equal.

A reference answer states a figure in whatever unit its author chose; an answer may state it in another.
Two quantities match when one equals the other within a relative tolerance after scaling by a power of a
thousand (thousand / million / billion), or when one is a percentage and the other the same fraction.
Signs are ignored: "(1,577)", "-1,577" and "decreased by 1,577" state the same size.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NUMBER_RE = re.compile(
    r"(?P<neg>\()?(?P<minus>[-−–])?\s*(?P<cur>\$|USD\s?|US\$)?\s*"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s*\)?"
    r"(?:\s*(?P<pct>%|percent\b|percentage points?\b|pts\b))?"
    r"(?:\s*(?P<scale>thousands?|millions?|billions?|trillions?|bn|mn|[mbk])\b)?",
    re.IGNORECASE,
)
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "bn": 1e9, "mn": 1e6}
_SHORT = {"k": 1e3, "m": 1e6, "b": 1e9}
TOLERANCE = 0.01


@dataclass(frozen=True)
class Quantity:
    """A number as stated: its size (unsigned, scaled to units when a scale word follows) and kind."""

    value: float
    percent: bool
    raw: str


def _is_year(num: str, m: re.Match[str]) -> bool:
    return bool(
        re.fullmatch(r"(19|20)\d{2}", num) and not (m.group("cur") or m.group("pct") or m.group("scale"))
    )


def quantities(text: str, *, include_years: bool = False) -> list[Quantity]:
    """Every number in `text` (years, and list markers like '1.' at a line start, skipped)."""
    out: list[Quantity] = []
    for m in _NUMBER_RE.finditer(text):
        num = m.group("num")
        if not include_years and _is_year(num, m):
            continue
        before = text[max(0, m.start("num") - 1) : m.start("num")]
        after = text[m.end("num") : m.end("num") + 2]
        if before.isalpha() or re.match(r"-[A-Za-z]", after):
            continue  # part of a name or code: "FY2019", "Q3", "10-K", "S1"
        value = float(num.replace(",", ""))
        scale = (m.group("scale") or "").lower().rstrip("s")
        factor = _SCALES.get(scale) or (_SHORT.get(scale) if len(scale) == 1 else None) or 1.0
        out.append(Quantity(abs(value * factor), bool(m.group("pct")), m.group().strip()))
    return out


def same_quantity(gold: Quantity, other: Quantity, tolerance: float = TOLERANCE) -> bool:
    """Equal within `tolerance` (relative to gold) up to a power of a thousand; a percentage also equals
    the same fraction ("24.6%" = "0.246") and the bare number ("24.6")."""
    if gold.value == 0:
        return other.value == 0
    if gold.percent == other.percent:
        candidates = [other.value * 1000.0**k for k in range(-4, 5)]
    elif gold.percent:
        candidates = [other.value, other.value * 100]
    else:
        candidates = [other.value, other.value / 100]
    return any(abs(c - gold.value) <= tolerance * abs(gold.value) for c in candidates)


def matched_numbers(reference: str, answer: str, tolerance: float = TOLERANCE) -> tuple[int, int]:
    """(how many of the reference's numbers the answer states, how many the reference has)."""
    gold = quantities(reference)
    stated = quantities(answer)
    hits = sum(1 for g in gold if any(same_quantity(g, s, tolerance) for s in stated))
    return hits, len(gold)
