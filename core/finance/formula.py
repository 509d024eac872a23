"""Metric formulas in the words analysts write them, evaluated over figures read from the filings.

A formula is arithmetic over line-item phrases: "FY2019 revenue / (average PP&E between FY2018 and
FY2019)", "365 * (average accounts payable between FY2016 and FY2017) / (FY2017 COGS + change in inventory
between FY2016 and FY2017)". Phrases may name a year ("FY2019 revenue"), an average or a change between
two years, or no year (the metric's own year). "prior year" and "year" stand for the year before the
target year and the target year, so that the lexicon's definitions work for any year.

Evaluation never guesses: an operand whose figure is not found makes the result None and is listed as
missing, so the loop can search for it and the writer can say what is not in the filings.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from core.finance.arithmetic import CalculationError, apply
from core.finance.vocabulary import LineItem, line_item_mentions, line_item_named, qualifier_before
from core.text.periods import YEAR

# --- operands and expressions -----------------------------------------------------------------


@dataclass(frozen=True)
class Operand:
    """A line item at a period: one year, or the average / change between two years."""

    phrase: str  # the words naming the line item, without the period
    item: LineItem | None
    years: tuple[int | str, ...]  # ints, or "year" / "prior year" placeholders
    mode: str = "at"  # "at" | "average" | "change"
    qualifier: str | None = None  # a segment or product narrowing the line item ("Data Center")

    def resolved(self, year: int) -> Operand:
        """This operand with placeholders replaced for target `year`."""

        def fix(y: int | str) -> int | str:
            if y == "year":
                return year
            if y == "prior year":
                return year - 1
            return y

        years = tuple(fix(y) for y in self.years) or (year,)
        return Operand(self.phrase, self.item, years, self.mode, self.qualifier)

    @property
    def name(self) -> str:
        """What the operand is, in words: its line item with the part named ("Data Center revenue")."""
        if self.item is None:
            return self.phrase
        return f"{self.qualifier} {self.item.name}" if self.qualifier else self.item.name

    def as_part(self) -> Operand | None:
        """This operand read as a part of the company's line item when its phrase opens with a name the
        vocabulary does not account for ("Graphics operating income": the Graphics segment's operating
        income), or None. Whether the capital names a part or only opens the phrase ("Deferred revenue") is
        for the filing to say: a lookup tries this reading first and keeps it only where a table of the line
        item has a row so named."""
        if self.item is not None or self.qualifier:
            return None
        m = _OPENING_NAME_RE.match(self.phrase)
        if m is None:
            return None
        item = line_item_named(self.phrase[m.end() :])
        if item is None:
            return None
        return Operand(self.phrase, item, self.years, self.mode, m.group(1).strip())

    def named_part(self) -> tuple[str, LineItem] | None:
        """This operand's phrase as a part, in any words, of a line item the vocabulary knows that ends it
        ("online retail services revenue": the part "online retail services" of revenue), or None when the
        phrase is a known line item itself or ends in none. Which row the part is, is for the filing's own
        breakdown of the item to say (by meaning: the filing may call it "Online stores")."""
        if self.item is not None or self.qualifier:
            return None
        words = self.phrase.split()
        for start in range(1, len(words)):
            item = line_item_named(" ".join(words[start:]))
            if item is not None:
                return " ".join(words[:start]), item
        return None


#: Capitalised words (with "&" between them) that open a phrase: "Graphics ", "Compute & Networking ".
_OPENING_NAME_RE = re.compile(r"((?:[A-Z][\w.+-]*|&)(?:\s+(?:[A-Z][\w.+-]*|&))*)\s+(?=[a-z])")

Node = tuple  # ("num", float) | ("op", Operand) | ("bin", op, left, right)

_YEAR_REF = rf"(?:FY\s?)?{YEAR}|prior year|previous year|year"
_BETWEEN_RE = re.compile(rf"\bbetween\s+(?P<a>{_YEAR_REF})\s+(?:and|to)\s+(?P<b>{_YEAR_REF})\b", re.I)
_FROM_TO_RE = re.compile(rf"\bfrom\s+(?P<a>{_YEAR_REF})\s+to\s+(?P<b>{_YEAR_REF})\b", re.I)
_AT_YEAR_RE = re.compile(
    rf"(?:\b(?:in|for|of|at|as of)\s+)?\(?\b(?P<y>(?:FY\s?)?{YEAR}|prior year)\b\)?", re.I
)
_AVERAGE_RE = re.compile(r"\b(average|avg\.?|mean)\b", re.I)
_CHANGE_RE = re.compile(r"\b(change|increase|decrease)\s+in\b", re.I)
_WORD_OPS = {"divided by": "/", "over": "/", "times": "*", "multiplied by": "*", "plus": "+", "minus": "-"}
_TOKEN_RE = re.compile(r"\s+-\s+|[()/*+×÷]|\d+(?:\.\d+)?(?=\s*[()/*+×÷]|\s*$)")


class FormulaError(ValueError):
    """The text is not a formula this module can read."""


def _year_value(text: str) -> int | str:
    low = text.lower().strip()
    if low in ("prior year", "previous year"):
        return "prior year"
    if low == "year":
        return "year"
    return int(re.sub(r"\D", "", text))


def parse_operand(phrase: str) -> Operand:
    """'average PP&E between FY2018 and FY2019' -> Operand(ppe_net, (2018, 2019), 'average')."""
    text = " ".join(phrase.split())
    mode = "at"
    years: tuple[int | str, ...] = ()
    m = _BETWEEN_RE.search(text) or _FROM_TO_RE.search(text)
    if m:
        years = (_year_value(m.group("a")), _year_value(m.group("b")))
        text = (text[: m.start()] + text[m.end() :]).strip()
        mode = "change" if _CHANGE_RE.search(text) else "average"
    if _AVERAGE_RE.search(text):
        mode = "average"
    elif _CHANGE_RE.search(text) and mode != "average":
        mode = "change"
    text = _AVERAGE_RE.sub(" ", text)
    text = _CHANGE_RE.sub(" ", text)
    if not years:
        found = [_year_value(y.group("y")) for y in _AT_YEAR_RE.finditer(text)]
        years = tuple(found[:2])
        if mode in ("average", "change") and len(years) < 2:
            mode = "at" if len(years) == 1 else mode
    text = _AT_YEAR_RE.sub(" ", text)
    text = re.sub(
        r"\b(the|of|between|and|in|for|total)\s*$|^\s*(the|of)\b", " ", text.strip(" ,.:"), flags=re.I
    )
    text = " ".join(text.split()).strip(" ,.:")
    if mode in ("average", "change") and not years:
        years = ("prior year", "year")
    mentions = line_item_mentions(text)
    qualifier = qualifier_before(text, mentions[0][0]) if mentions else None
    opening = _OPENING_NAME_RE.match(text)
    if qualifier and opening and opening.group(1).endswith(qualifier):
        # A phrase is not a sentence: its first capital names too ("Compute & Networking operating income").
        qualifier = opening.group(1).strip()
    return Operand(text, line_item_named(text), years, mode, qualifier)


def _tokenise(formula: str) -> list[str]:
    text = formula
    for words, op in _WORD_OPS.items():
        text = re.sub(rf"\s+{words}\s+", f" {op} ", text, flags=re.I)
    text = text.replace("×", "*").replace("÷", "/")
    tokens: list[str] = []
    pos = 0
    for m in re.finditer(r"\s+-\s+|[()/*+]", text):
        chunk = text[pos : m.start()].strip()
        if chunk:
            tokens.append(chunk)
        tokens.append(m.group().strip())
        pos = m.end()
    tail = text[pos:].strip()
    if tail:
        tokens.append(tail)
    return tokens


def parse_formula(formula: str) -> Node:
    """An expression tree of a formula; raises FormulaError when it has no operand or is unbalanced."""
    tokens = _tokenise(formula.strip().rstrip("."))
    pos = 0

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def take() -> str:
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def factor() -> Node:
        piece = peek()
        if piece is None:
            raise FormulaError("the formula ends too early")
        if piece == "(":
            take()
            node = expr()
            if peek() != ")":
                raise FormulaError("unbalanced parentheses")
            take()
            return node
        if piece in ("*", "/", "+", "-", ")"):
            raise FormulaError(f"unexpected {piece!r}")
        take()
        number = re.fullmatch(r"\d+(?:\.\d+)?", piece.replace(",", ""))
        if number:
            return ("num", float(number.group()))
        return ("op", parse_operand(piece))

    def term() -> Node:
        node = factor()
        while peek() in ("*", "/"):
            op = take()
            node = ("bin", op, node, factor())
        return node

    def expr() -> Node:
        node = term()
        while peek() in ("+", "-"):
            op = take()
            node = ("bin", op, node, term())
        return node

    tree = expr()
    if pos != len(tokens):
        raise FormulaError(f"unexpected {tokens[pos]!r}")
    if not operands(tree):
        raise FormulaError("the formula names no line item")
    return tree


def operands(tree: Node) -> list[Operand]:
    """Every operand of an expression, left to right."""
    if tree[0] == "op":
        return [tree[1]]
    if tree[0] == "bin":
        return operands(tree[2]) + operands(tree[3])
    return []


# --- evaluation -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    """A figure the lookup found: its value in the table's unit, and whatever identifies its source."""

    value: float
    label: str
    year: int
    source: object = None
    scale: float | None = None
    percent: bool = False  # the row states a percentage (a margin or a rate read as printed)
    count: bool = False  # a count (employees, riders): it has no currency unit, so it sets no scale
    caveat: str | None = None  # where the filing's printed and tagged (XBRL) values disagree, in a sentence
    months: int | None = None  # how long the column read is, where its header says (6: a half year to date)


Lookup = Callable[[Operand, int], Found | None]
#: A line item's parts for a year (and months to date, None: the period's own), as the question names them
#: ("segments", "service offerings"; empty: any): each part, then the total.
PartsLookup = Callable[[LineItem, int, int | None, str], list[Found]]


@dataclass
class Evaluation:
    """A formula evaluated for one year: the value (None when inputs are missing) and its working."""

    value: float | None
    working: str
    inputs: list[Found] = field(default_factory=list)
    missing: list[tuple[str, int]] = field(default_factory=list)  # (line item, year)


def format_number(value: float) -> str:
    """A number as a working prints it: thousands separated, whole above 100, four significant digits below."""
    if abs(value) >= 100:
        return f"{value:,.0f}" if value == int(value) else f"{value:,.1f}"
    return f"{value:,.4g}"


def evaluate(tree: Node, year: int, lookup: Lookup) -> Evaluation:
    """Evaluate `tree` for target `year`; the working shows each input as printed and the arithmetic."""
    inputs: list[Found] = []
    missing: list[tuple[str, int]] = []
    # Tables of one filing print amounts in different units (thousands in the statements, millions in
    # MD&A): when the inputs' units differ, every input is brought to units before the arithmetic.
    found_all = {
        (id(o), int(y)): lookup(o.resolved(year), int(y))
        for o in operands(tree)
        for y in o.resolved(year).years
    }
    scales = {f.scale for f in found_all.values() if f is not None}
    rescale = len(scales) > 1 and None not in scales

    def value_of(operand: Operand) -> tuple[float | None, str]:
        op = operand.resolved(year)
        values: list[float] = []
        for y in op.years:
            found = found_all.get((id(operand), int(y)))
            if found is None:
                missing.append((op.name, int(y)))
                continue
            inputs.append(found)
            values.append(found.value * (found.scale or 1.0) if rescale else found.value)
        if len(values) != len(op.years):
            return None, op.name
        if op.mode == "average":
            shown = " + ".join(format_number(v) for v in values)
            return sum(values) / len(values), f"(({shown}) / {len(values)})"
        if op.mode == "change":
            return values[-1] - values[0], f"({format_number(values[-1])} − {format_number(values[0])})"
        return values[0], format_number(values[0])

    def walk(node: Node) -> tuple[float | None, str]:
        if node[0] == "num":
            return node[1], format_number(node[1])
        if node[0] == "op":
            return value_of(node[1])
        _, op, left, right = node
        lv, ls = walk(left)
        rv, rs = walk(right)
        # Parentheses where precedence needs them: "(a + b) / c", "a / (b × c)".
        if op in "*/" and left[0] == "bin" and left[1] in "+-":
            ls = f"({ls})"
        if right[0] == "bin" and (
            (op in "*/" and right[1] in "+-") or op == "/" or (op == "-" and right[1] in "+-")
        ):
            rs = f"({rs})"
        shown = f"{ls} {op.replace('-', '−').replace('*', '×')} {rs}"
        if lv is None or rv is None:
            return None, shown
        try:
            return apply(op, lv, rv), shown
        except CalculationError:  # a zero denominator: the figure cannot be stated
            missing.append(("a non-zero denominator", year))
            return None, shown

    value, working = walk(tree)
    return Evaluation(value, working, inputs, missing)


# --- definitions in questions ------------------------------------------------------------------

_DEFINED_RE = re.compile(
    r"(?:(?P<name>[A-Za-z][\w\s&/'’().-]{2,80}?)\s+(?:is|are|was|can be|should be)\s+(?:defined|calculated|computed)"
    r"|\b(?i:define|calculate|compute)\s+(?:the\s+)?(?P<name2>[A-Za-z][\w\s&/'’().-]{2,80}?))"
    r"\s+as\b\s*:?\s*(?P<formula>.+?)(?=\.\s+[A-Z]|\.?\s*$|\?)",
    re.S,
)
#: How deep definitions may refer to one another ("CCC is DIO + DSO - DPO", "DIO is ...").
_MAX_NESTING = 3


def _definitions(question: str) -> list[tuple[str, str, bool]]:
    """(name, formula, stated with 'define/calculate ... as') of every definition, in order."""
    out = []
    for m in _DEFINED_RE.finditer(question):
        name = re.sub(r"^(the|a|an)\s+", "", (m.group("name") or m.group("name2")).strip(), flags=re.I)
        name = re.split(r"[.?;]\s+", name)[-1].strip()
        out.append((name, m.group("formula").strip().rstrip("."), bool(m.group("name2"))))
    return out


def expand_names(formula: str, definitions: dict[str, str], depth: int = 0) -> str:
    """The formula with each operand that names another definition replaced by that definition."""
    if depth >= _MAX_NESTING or not definitions:
        return formula
    out = formula
    for name in sorted(definitions, key=len, reverse=True):
        pattern = rf"(?<![\w-]){re.escape(name)}(?![\w-])"
        if re.search(pattern, out, re.I):
            inner = expand_names(
                definitions[name], {k: v for k, v in definitions.items() if k != name}, depth + 1
            )
            out = re.sub(pattern, lambda _m, inner=inner: f"({inner})", out, flags=re.I)
    return out


def defined_formula(question: str) -> tuple[str, str] | None:
    """(metric name, formula) when the question defines the metric it asks for; None otherwise. Names that
    other definitions in the question define ("DIO", "DPO") are replaced by their formulas."""
    found = _definitions(question)
    for k, (name, formula, imperative) in enumerate(found):
        formula = expand_names(formula, {n: f for n, f, _ in found[k + 1 :]})
        try:
            tree = parse_formula(formula)
        except FormulaError:
            continue
        if tree[0] != "bin" and (tree[1].item is None or imperative):
            # One phrase is prose ("calculate the margin as a share of revenue"), unless the question says
            # outright that a metric "is defined as" a line item.
            continue
        return name, formula
    return None
