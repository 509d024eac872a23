"""Numbers in answers and references, compared by the units both sides state.

A reference states a figure in whatever unit its author chose, often only in the question ("in USD
millions"); an answer may state it in another. Two quantities are the same when:

- both name a scale (thousand / million / billion / trillion, "bn", "$2.5B"): their scaled values agree;
- one of them names none (a table cell "1,577" in a table "in millions"): their numbers agree as printed;
- one is a percentage and the other a bare number: the percentage equals the fraction ("24.6%" = "0.246")
  or the same number ("24.6");

each within a relative tolerance or the rounding of the gold figure's last printed digit, whichever is
wider. No other scaling is tried: "689" never equals "0.69". Signs are ignored: "(1,577)", "-1,577" and
"decreased by 1,577" state the same size.

The figure that answers a question is the reference's main figure (its first, and the end of a
"from A to B" pair); an answer states it when the answer's lead — its first paragraph, without the
workings of computed figures — holds it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.text.periods import MONTHS, YEAR

_NUMBER_RE = re.compile(
    r"(?P<neg>\()?(?P<minus>[-−–])?\s*(?P<cur>\$|USD\s?|US\$)?\s*"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s*\)?"
    r"(?:\s*(?P<pct>%|percent\b|percentage points?\b|pts\b))?"
    r"(?:\s*(?P<scale>thousands?|millions?|billions?|trillions?|bn|mn|[mbk])\b)?"
    r"(?P<per_share>\s*(?:a|per) (?:diluted |basic )?share\b)?",
    re.IGNORECASE,
)
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "bn": 1e9, "mn": 1e6}
_SHORT = {"k": 1e3, "m": 1e6, "b": 1e9}
#: "(in USD millions)", "in millions", "$ in thousands": the unit a question asks for or a table prints in.
_UNIT_STATED_RE = re.compile(
    r"\b(?:in\s+)?(?:usd|us\$|\$|dollars)?\s*(?:in\s+)?(?P<unit>thousands|millions|billions)\b", re.I
)
TOLERANCE = 0.01


@dataclass(frozen=True)
class Quantity:
    """A number as stated: its size as printed (unsigned), the scale a unit word gives it, and its kind."""

    number: float
    scale: float | None  # 1e6 for "million"; None when no unit word is stated
    percent: bool
    raw: str
    decimals: int = 0  # digits printed after the decimal point
    per_share: bool = False

    @property
    def value(self) -> float:
        """The size in units (scaled when a unit word is stated)."""
        return self.number * (self.scale or 1.0)


def _is_year(num: str, m: re.Match[str]) -> bool:
    return bool(re.fullmatch(YEAR, num) and not (m.group("cur") or m.group("pct") or m.group("scale")))


def stated_unit(text: str) -> float | None:
    """The scale a text says its amounts are in ("in USD millions" -> 1e6), None when it says none."""
    m = _UNIT_STATED_RE.search(text)
    return _SCALES[m.group("unit").lower().rstrip("s")] if m else None


#: Citation marks ("[3]", "[1, 2]") and Markdown escapes ("\\$") are not part of what a text states.
_NOT_STATED_RE = re.compile(r"\[\d{1,3}(?:\s*,\s*\d{1,3})*\]|\\(?=[$*_.#()\[\]-])")


def quantities(
    text: str, *, include_years: bool = False, default_scale: float | None = None
) -> list[Quantity]:
    """Every number in `text` (years, codes, citation marks and enumerators such as "(2)" skipped); an
    amount with no unit word takes `default_scale` (the unit its table or question states), when given."""
    text = _NOT_STATED_RE.sub(" ", text)
    out: list[Quantity] = []
    for m in _NUMBER_RE.finditer(text):
        num = m.group("num")
        if not include_years and _is_year(num, m):
            continue
        before = text[max(0, m.start("num") - 1) : m.start("num")]
        after = text[m.end("num") : m.end("num") + 2]
        if before.isalpha() or re.match(r"-[A-Za-z]", after):
            continue  # part of a name or code: "FY2019", "Q3", "10-K", "S1"
        if not m.group("cur") and re.match(r"[A-Za-z]", after[:1]) and not m.group("pct"):
            continue  # glued to a word: "3M", "10x"; with a currency sign it is a scale: "$1561M"
        if (
            m.group("neg")
            and re.fullmatch(r"\d", num)
            and not m.group("cur")
            and re.match(r"\)\s*[A-Za-z]", text[m.end("num") :])
        ):
            continue  # an enumerator: "(1) usual and customary pricing litigation"
        word = (m.group("scale") or "").lower().rstrip("s")
        scale = _SCALES.get(word) or (_SHORT.get(word) if len(word) == 1 else None)
        percent = bool(m.group("pct"))
        per_share = bool(m.group("per_share"))
        if scale is None and not percent and not per_share:
            scale = default_scale
        decimals = len(num.partition(".")[2])
        out.append(
            Quantity(abs(float(num.replace(",", ""))), scale, percent, m.group().strip(), decimals, per_share)
        )
    return out


def _rounding(quantity: Quantity) -> float:
    """Half a unit of the last digit printed, in the quantity's number (0.005 for "8.70")."""
    return 0.5 * 10.0**-quantity.decimals


def _close(gold: float, other: float, rounding: float, tolerance: float) -> bool:
    """Within `tolerance` of gold, or closer than the rounding of the last digit printed (a half rounds up:
    0.015 is not 0.01)."""
    return abs(other - gold) <= tolerance * abs(gold) or abs(other - gold) < rounding * 0.999


def same_quantity(gold: Quantity, other: Quantity, tolerance: float = TOLERANCE) -> bool:
    """The same figure, compared only through the units both sides state (see the module docstring)."""
    if gold.number == 0:
        return other.number == 0
    # (other's value in gold's terms, the rounding of other's last printed digit in those terms): either
    # side may be rounded ("0.6%" states 0.62% to one decimal; a whole number rounds nothing away).
    own = _rounding(other) if other.decimals else 0.0
    if gold.percent != other.percent:
        factor = 100.0 if gold.percent else 0.01  # "24.6%" against "0.246"; "0.66" against "66%"
        candidates = [(other.number, own), (other.number * factor, own * factor)]
        return any(_close(gold.number, c, max(_rounding(gold), r), tolerance) for c, r in candidates)
    if gold.per_share != other.per_share and (gold.scale or other.scale):
        return False  # a per-share figure is not an amount in millions
    if gold.scale and other.scale:
        rounding = max(_rounding(gold) * gold.scale, own * other.scale)
        return _close(gold.value, other.value, rounding, tolerance)
    return _close(gold.number, other.number, max(_rounding(gold), own), tolerance)


#: Numbers a reference prints that are not figures: a date's day ("July 1, 2023", "June 30"), a list's
#: numbers ("1. "), the number of a note, Item, part, fair-value level or page ("Note 9", "Level 2", "page 51"),
#: of a patent or a court case ("Nos. 7,814,170", "4:18-cv-07669"), and a name's ("COVID-19", "IDM 2.0").
_NOT_FIGURES = [
    (re.compile(rf"\b({MONTHS})\s+\d{{1,2}}\b(?!,?\d)", re.I), r"\1"),
    (re.compile(r"^([ \t]*)\d{1,3}[.)][ \t]", re.M), r"\1"),
    (
        re.compile(r"\b(Note|Item|Part|Level|pages?|Nos?\.)(?:\s*(?:(?:\d[\d,.]*\d|\d|and)\b|;))+", re.I),
        r"\1 ",
    ),
    (re.compile(r"\b\d+:\d+-[a-z]+-\d+\b", re.I), " "),
    (re.compile(r"\b([A-Za-z]+)-\d+\b"), r"\1"),
    (re.compile(r"\b([A-Z]{2,}) \d\.\d\b"), r"\1"),
]


def main_figures(reference: str, question: str = "") -> list[Quantity]:
    """The figures that answer the question: the reference's first figure, and the figure it changed to
    when the reference states a move ("from 0.67 times to 0.69 times"). Amounts with no unit word are in
    the unit the question asks for ("in USD millions"). Numbers that are not figures are passed over."""
    for pattern, replacement in _NOT_FIGURES:
        reference = pattern.sub(replacement, reference)
    found = quantities(reference, default_scale=stated_unit(question))
    if not found:
        return []
    main = [found[0]]
    first = next(m for m in _NUMBER_RE.finditer(reference) if m.group().strip() == found[0].raw)
    if len(found) > 1 and re.match(r"\s*(?:[a-z]+\s+){0,2}to\b", reference[first.end() :], re.I):
        main.append(found[1])
    return main


#: The working of a computed figure after its statement ("… 0.53 — (689 + 1,234) / 3,456 = 0.53").
_WORKING_RE = re.compile(r" — [^\n]*=[^\n]*")


def without_workings(text: str) -> str:
    """`text` with the workings of computed figures removed: their inputs are not what the answer states."""
    return _WORKING_RE.sub("", text)


def asked_figures(reference: str, question: str, figures: list[str] | None = None) -> list[Quantity]:
    """The figures that answer a question: those its question set names, else the reference's main ones."""
    if figures is None:
        return main_figures(reference, question)
    unit = stated_unit(question)
    return [q for text in figures for q in quantities(text, default_scale=unit)[:1]]


def figures_stated(
    reference: str, question: str, answer: str, figures: list[str] | None = None, tolerance: float = TOLERANCE
) -> tuple[int, int]:
    """(how many of the figures that answer the question `answer` states, how many there are)."""
    gold = asked_figures(reference, question, figures)
    stated = quantities(answer)
    hits = sum(1 for g in gold if any(same_quantity(g, s, tolerance) for s in stated))
    return hits, len(gold)
