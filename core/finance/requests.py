"""What figures a question asks for: a metric (defined in the question, or known to the lexicon) or a
line item, for which fiscal years, and whether to compare or average them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.finance.formula import defined_formula, operands, parse_formula
from core.finance.lexicon import (
    LINE_ITEM_BY_KEY,
    METRICS,
    LineItem,
    line_item_mentions,
    metric_mentions,
    metrics_in,
    qualifier_before,
)
from core.finance.periods import asks_for_change, fiscal_years

_AMOUNT_WORDS = re.compile(
    r"\b(how much|how many|what (is|was|were|are)|amount|figure|value|total|level|balance|spend|spent|compar\w*"
    r"|in (usd|us\$|\$|dollars)|(usd|us\$|\$) ?(millions|billions|thousands))\b",
    re.I,
)
#: "Which of them brought in the most?": the figures named are compared, each stated.
RANKING_RE = re.compile(
    r"\b(which|what)\b[^?]*?\b(most|least|largest|highest|lowest|smallest|biggest|greatest)\b", re.I
)
_PERCENT_WORDS = re.compile(r"\bpercent|%|\bpercentage\b|\bas a share\b", re.I)
_AVERAGE_OVER_RE = re.compile(r"\b(\d+|two|three|four|five)[- ]year average\b|\baverage (of|over)\b", re.I)
_CHANGE_RE = re.compile(
    r"\b(year[- ]over[- ]year|yoy|change|growth|grow|grew|increase|decrease|improv|declin)\w*", re.I
)
_WHY_RE = re.compile(
    r"\b(why|drove|drive[sn]?|driver|drivers|driving|reasons?|explain|caus\w*|factors?|led to|contribut\w*"
    r"|attribut\w*|impact\w*|affect\w*|relate|dragged|behind)\b",
    re.I,
)
_GROWTH_RE = re.compile(r"\b(growth|growing|grow|grew)\b", re.I)
_PART_OF_COMPANY_RE = re.compile(
    r"\b(segments?|divisions?|business(es)? units?|product (lines?|categor(y|ies))|brands?|regions?|geograph\w*)\b",
    re.I,
)
_HYPOTHETICAL_RE = re.compile(r"\b(would|hypothetical(ly)?|sensitivity|basis points?|bps)\b", re.I)
_SHARE_OF_RE = re.compile(
    r"(?P<a>[\w&'’ ,-]{2,60}?)\s+(?P<how>as an? (?:share|percentage|percent|%|proportion) of|to|divided by|over|/)\s+"
    r"(?P<b>(?:total |net )?[\w&'’ -]{2,40})",
    re.I,
)
_INTENSITY_RE = re.compile(r"(?P<a>[\w&'’ -]{2,40}?)\s+intensity\b", re.I)
_CAGR_RE = re.compile(r"\bcagr\b|compound(ed)? annual growth", re.I)
_UNIT_ASKED_RE = re.compile(r"\b(?:usd|us\$|\$|dollars)?\s*(thousands|millions|billions)\b", re.I)


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
    if _PERCENT_WORDS.search(question) or re.search(r"\b(margin|rate|%)", name, re.I):
        return "percent"
    return default


def _years(question: str, default_year: int | None, formula_text: str = "") -> list[int]:
    outside = question.replace(formula_text, " ") if formula_text else question
    years = fiscal_years(outside) or fiscal_years(formula_text)
    if not years and default_year:
        years = [default_year]
    return sorted(set(years))


_HISTORY_RE = re.compile(r"\b(historical(ly)?|consistent(ly)?|over time|trend|past (three|3) years)\b", re.I)


def _aggregate(question: str, years: list[int]) -> str | None:
    if len(years) < 2:
        return None
    if _AVERAGE_OVER_RE.search(question):
        return "average"
    if _CAGR_RE.search(question):
        return "cagr"
    if _CHANGE_RE.search(question) or asks_for_change(question) or _HISTORY_RE.search(question):
        return "change"
    return None


_PERIOD_CHANGE_RE = re.compile(
    r"\b(year[- ]over[- ]year|yoy|change|growth|grow|grew|increase|decrease|improv|declin|deteriorat|profile"
    r"|trajectory|trend)\w*",
    re.I,
)


def _with_prior_year(question: str, years: list[int]) -> list[int]:
    """A single year plus the one before when the question asks how the figure changed ("improving"), or
    the three years a 10-K's statements cover when it asks about the history ("consistent")."""
    if len(years) == 1 and _HISTORY_RE.search(question):
        return [years[0] - 2, years[0] - 1, years[0]]
    # "Compare A's and B's R&D in FY2023" compares companies, not periods: no prior year then.
    if len(years) == 1 and _PERIOD_CHANGE_RE.search(question):
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


_YES_NO_RE = re.compile(r"^\s*(has|have|had|did|does|do|is|are|was|were|can|will)\b", re.I)
_DID_RE = re.compile(r"^\s*(has|have|had|did|does|do)\b", re.I)


def asks_yes_no(text: str) -> bool:
    """True for a question answered yes or no ("Has it paid dividends…?", "Is it capital-intensive?")."""
    return bool(_YES_NO_RE.match(text))


_ASKS_UP_RE = re.compile(r"\b(increas|grow|grew|rais|rose|rise|improv|expand)\w*", re.I)
_ASKS_DOWN_RE = re.compile(r"\b(decreas|declin|fall|fell|drop|shrink|shrank|reduc|lower)\w*", re.I)
_ASKS_SIGN_RE = re.compile(r"\b(positive|negative)\b", re.I)
# "a high growth company?", "a healthy liquidity profile?": a judgement of size, not of sign.
_JUDGEMENT_RE = re.compile(
    r"\b(high|low|strong|weak|significant\w*|substantial\w*|healthy|reasonabl\w*|material\w*|consistent\w*"
    r"|stable|sharp\w*|intensive)\b",
    re.I,
)


def sign_asked(question: str) -> tuple[str, int] | None:
    """What sign settles a yes-or-no question, if one does: ("change", +1) for "Did it grow its PP&E?",
    ("change", -1) for "Did debt decrease?", ("value", +1) for "Does it have positive working capital?",
    ("amount", +1) for "Has it paid dividends?". None for judgements ("a high growth company?")."""
    if not asks_yes_no(question) or _JUDGEMENT_RE.search(question):
        return None
    sign = _ASKS_SIGN_RE.search(question)
    if sign:
        return ("value", 1 if sign.group(1).lower() == "positive" else -1)
    up, down = bool(_ASKS_UP_RE.search(question)), bool(_ASKS_DOWN_RE.search(question))
    if up != down:
        return ("change", 1 if up else -1)
    if _asks_whether_cash_was_spent(question):
        return ("amount", 1)
    return None


def _asks_whether_cash_was_spent(question: str) -> bool:
    """'Has it paid dividends in FY2022?', 'Did it buy back shares?': a yes or no that a cash-flow line
    item answers — the answer states the amount, which says yes (or no) with a citation."""
    return bool(_DID_RE.match(question)) and any(
        item.statement == "cash_flow" for _, _, item in line_item_mentions(question)
    )


def asks_why(text: str) -> bool:
    """True when the question asks for reasons or drivers ("what drove", "why", "factors"), not only a figure."""
    return bool(_WHY_RE.search(text))


def unit_asked(question: str) -> str | None:
    """'millions' / 'billions' / 'thousands' when the question asks for its answer in that unit."""
    m = _UNIT_ASKED_RE.search(question)
    return m.group(1).lower() if m else None


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
    if _HYPOTHETICAL_RE.search(question):
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
        and not _PART_OF_COMPANY_RE.search(question)
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
        and not _AMOUNT_WORDS.search(question)
        and not _CHANGE_RE.search(question)
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
