"""What figures a question asks for: a metric (defined in the question, or known to the lexicon) or a
line item, for which fiscal years, and whether to compare or average them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.finance.formula import defined_formula, operands, parse_formula
from core.finance.question import (
    AMOUNT_RE,
    AVERAGE_OVER_RE,
    CAGR_RE,
    CHANGE_RE,
    HISTORY_RE,
    HYPOTHETICAL_RE,
    JUDGEMENT_RE,
    PART_OF_COMPANY_RE,
    PERCENT_RE,
    RANKING_RE,
    asks_did,
    asks_for_change,
    asks_why,
    asks_yes_no,
    direction,
    sign_words,
    unit_asked,
)
from core.finance.vocabulary import (
    LINE_ITEM_BY_KEY,
    METRICS,
    LineItem,
    line_item_mentions,
    metric_mentions,
    metrics_in,
    qualifier_before,
)
from core.text.periods import fiscal_years

_GROWTH_RE = re.compile(r"\b(growth|growing|grow|grew)\b", re.I)
_SHARE_OF_RE = re.compile(
    r"(?P<a>[\w&'’ ,-]{2,60}?)\s+(?P<how>as an? (?:share|percentage|percent|%|proportion) of|to|divided by|over|/)\s+"
    r"(?P<b>(?:total |net )?[\w&'’ -]{2,40})",
    re.I,
)
_INTENSITY_RE = re.compile(r"(?P<a>[\w&'’ -]{2,40}?)\s+intensity\b", re.I)


@dataclass
class FigureRequest:
    """A figure to state: its name, its formula (a lone line item for a plain lookup), the years."""

    name: str
    formula: str
    kind: str  # "percent" | "ratio" | "amount" | "days"
    years: list[int]
    aggregate: str | None = None  # "change" | "average" | "cagr" across the years, or None
    defined_in_question: bool = False
    unit_asked: str | None = None  # "millions" / "billions" when the question asks for that unit
    line_items: list[LineItem] = field(default_factory=list)
    fallbacks: list[str] = field(default_factory=list)  # other textbook definitions, tried in order

    @property
    def statements(self) -> list[str]:
        return list(dict.fromkeys(li.statement for li in self.line_items))

    def describe(self) -> str:
        """'fixed asset turnover ratio (FY2019)' — how the plan and the answer name it."""
        years = ", ".join(f"FY{y}" for y in self.years)
        how = {"change": "change over ", "average": "average over ", "cagr": "CAGR over "}.get(
            self.aggregate or "", ""
        )
        return f"{self.name} ({how}{years})" if years else self.name


def _kind_for(name: str, question: str, default: str) -> str:
    for metric in METRICS:
        if metrics_in(name) and metrics_in(name)[0] is metric:
            return metric.kind
    if re.search(r"\b(ratio|turnover|coverage)\b", name, re.I):
        return "ratio"
    if PERCENT_RE.search(question) or re.search(r"\b(margin|rate|%)", name, re.I):
        return "percent"
    return default


def _years(question: str, default_year: int | None, formula_text: str = "") -> list[int]:
    outside = question.replace(formula_text, " ") if formula_text else question
    years = fiscal_years(outside) or fiscal_years(formula_text)
    if not years and default_year:
        years = [default_year]
    return sorted(set(years))


def _aggregate(question: str, years: list[int]) -> str | None:
    if len(years) < 2:
        return None
    if AVERAGE_OVER_RE.search(question):
        return "average"
    if CAGR_RE.search(question):
        return "cagr"
    if asks_for_change(question) or HISTORY_RE.search(question):
        return "change"
    return None


def _with_prior_year(question: str, years: list[int]) -> list[int]:
    """A single year plus the one before when the question asks how the figure changed ("improving"), or
    the three years a 10-K's statements cover when it asks about the history ("consistent")."""
    if len(years) == 1 and HISTORY_RE.search(question):
        return [years[0] - 2, years[0] - 1, years[0]]
    # "Compare A's and B's R&D in FY2023" compares companies, not periods: no prior year then.
    if len(years) == 1 and CHANGE_RE.search(question):
        return [years[0] - 1, years[0]]
    return years


_LESS_RE = re.compile(r"\s+(?:less|minus)\s+", re.I)


def _less_item(question: str, end: int) -> LineItem | None:
    """The line item subtracted right after a metric's name ("EBITDA less capex"), if any."""
    m = _LESS_RE.match(question, max(end, 0))
    if not m:
        return None
    mentions = line_item_mentions(question[m.end() : m.end() + 60])
    return mentions[0][2] if mentions and mentions[0][0] == 0 else None


def sign_asked(question: str) -> tuple[str, int] | None:
    """What sign settles a yes-or-no question, if one does: ("change", +1) for "Did it grow its PP&E?",
    ("change", -1) for "Did debt decrease?", ("value", +1) for "Does it have positive working capital?",
    ("amount", +1) for "Has it paid dividends?". None for judgements ("a high growth company?")."""
    if not asks_yes_no(question) or JUDGEMENT_RE.search(question):
        return None
    if sign := sign_words(question):
        return ("value", sign)
    if moved := direction(question):
        return ("change", moved)
    if _asks_whether_cash_was_spent(question):
        return ("amount", 1)
    return None


def _asks_whether_cash_was_spent(question: str) -> bool:
    """'Has it paid dividends in FY2022?', 'Did it buy back shares?': a yes or no that a cash-flow line
    item answers — the answer states the amount, which says yes (or no) with a citation."""
    return asks_did(question) and any(
        item.statement == "cash_flow" for _, _, item in line_item_mentions(question)
    )


def figure_requests(question: str, default_year: int | None = None) -> list[FigureRequest]:
    """The figures `question` asks for (empty when it asks for none)."""
    unit = unit_asked(question)
    defined = defined_formula(question)
    if defined is not None:
        name, formula = defined
        tree = parse_formula(formula)
        years = _years(question, default_year, formula)
        explicit = [o for o in operands(tree) if any(isinstance(y, int) for y in o.years)]
        if explicit:  # the formula names its years itself: evaluate it once, for its latest year
            years = [max(y for o in explicit for y in o.years if isinstance(y, int))]
        less = _less_item(question, question.lower().find(name.lower()) + len(name))
        if less is not None:
            name, formula = f"{name} less {less.name}", f"({formula}) - {less.name}"
        elif re.search(rf"{re.escape(name)}\s*%?\s*margin", question, re.I):
            # "EBITDA % margin" with EBITDA defined: the defined amount as a share of revenue.
            name, formula = f"{name} margin", f"({formula}) / revenue"
        return [
            FigureRequest(
                name=name,
                formula=formula,
                kind=_kind_for(name, question, "ratio"),
                years=years,
                aggregate=_aggregate(question, years),
                defined_in_question=True,
                unit_asked=unit,
                line_items=[o.item for o in operands(tree) if o.item],
            )
        ]
    if HYPOTHETICAL_RE.search(question):
        return []  # a sensitivity ("what would a 100 bp rise do") is stated by the filing, not computed
    requests: list[FigureRequest] = []
    spans: list[tuple[int, int]] = []
    for start, end, metric in metric_mentions(question):
        spans.append((start, end))
        years = _with_prior_year(question, _years(question, default_year))
        qualifier = qualifier_before(question, start)
        if qualifier:
            # A segment's metric ("Robotics Systems gross margin") is read from the row that reports it.
            name = f"{qualifier} {metric.name}"
            formula, items, fallbacks = name, [], []
        else:
            name, formula = metric.name, metric.formula
            fallbacks = list(metric.fallbacks)
            less = _less_item(question, end)
            if less is not None:  # "EBITDA less capex"
                name, formula, fallbacks = f"{name} less {less.name}", f"({formula}) - {less.name}", []
                spans.append((end, end + 40))
            items = [o.item for o in operands(parse_formula(formula)) if o.item]
        requests.append(
            FigureRequest(
                name=name,
                formula=formula,
                kind=metric.kind,
                years=years,
                aggregate=_aggregate(question, years),
                unit_asked=unit,
                line_items=items,
                fallbacks=fallbacks,
            )
        )
    for m in _INTENSITY_RE.finditer(question):
        # "R&D intensity", "capital intensity": the line item as a share of revenue.
        mentions = line_item_mentions(m.group("a"))
        if not mentions or any(m.start() < e and s < m.end() for s, e in spans):
            continue
        item = mentions[-1][2]
        years = _with_prior_year(question, _years(question, default_year))
        spans.append((m.start("a") + mentions[-1][0], m.end()))
        requests.append(
            FigureRequest(
                name=f"{item.name} as a share of revenue",
                formula=f"{item.name} / revenue",
                kind="percent",
                years=years,
                aggregate=_aggregate(question, years),
                unit_asked=unit,
                line_items=[item, LINE_ITEM_BY_KEY["revenue"]],
            )
        )
    for m in _SHARE_OF_RE.finditer(question):
        # "R&D expense as a share of revenue", "capex to revenue": a ratio of two line items.
        top, bottom = line_item_mentions(m.group("a")), line_item_mentions(m.group("b"))
        if not top or not bottom or any(m.start() < e and s < m.end() for s, e in spans):
            continue
        a, b = top[-1][2], bottom[0][2]
        percent = bool(re.search(r"share|percent|%", m.group("how"), re.I))
        years = _with_prior_year(question, _years(question, default_year))
        # The ratio's own words: its numerator's mention and what follows it.
        spans.append((m.start("a") + top[-1][0], m.end()))
        requests.append(
            FigureRequest(
                name=f"{a.name} as a {'share' if percent else 'ratio'} of {b.name}",
                formula=f"{a.name} / {b.name}",
                kind="percent" if percent else "ratio",
                years=years,
                aggregate=_aggregate(question, years),
                unit_asked=unit,
                line_items=[a, b],
            )
        )
    if (
        not requests
        and _GROWTH_RE.search(question)
        and not line_item_mentions(question)
        and not asks_why(question)
        and not PART_OF_COMPANY_RE.search(question)
    ):
        # "Is it a high growth company?": growth that names no figure is an analyst's sales growth. Not when
        # it is a part's growth (a segment's, a product line's) or the question asks what drove a growth: those
        # are answered from the part's own rows or from prose.
        revenue = LINE_ITEM_BY_KEY["revenue"]
        years = _with_prior_year(question, _years(question, default_year))
        return [
            FigureRequest(
                name=revenue.name,
                formula=revenue.name,
                kind="amount",
                years=years,
                aggregate=_aggregate(question, years),
                unit_asked=unit,
                line_items=[revenue],
            )
        ]
    if (
        not requests
        and not AMOUNT_RE.search(question)
        and not CHANGE_RE.search(question)
        and not _asks_whether_cash_was_spent(question)
        and not (RANKING_RE.search(question) and len(line_item_mentions(question)) >= 2)
    ):
        return []
    for start, end, item in line_item_mentions(question):
        if any(s <= start < e or s < end <= e for s, e in spans):
            continue  # part of a metric's name ("capex as a % of revenue")
        years = _with_prior_year(question, _years(question, default_year))
        qualifier = qualifier_before(question, start)
        name = f"{qualifier} {item.name}" if qualifier else item.name
        if any(r.name == name for r in requests):
            continue
        requests.append(
            FigureRequest(
                name=name,
                formula=name,
                kind="amount",
                years=years,
                aggregate=_aggregate(question, years),
                unit_asked=unit,
                line_items=[item],
            )
        )
    # The same figure named twice ("R&D intensity (R&D expense as a share of revenue)") is computed once.
    unique: dict[tuple[str, str], FigureRequest] = {}
    for request in requests:
        unique.setdefault((request.formula.lower(), request.aggregate or ""), request)
    return list(unique.values())
