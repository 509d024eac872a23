"""What figures a question asks for: a metric (defined in the question, or known to the lexicon) or a
line item, for which fiscal years, and whether to compare or average them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from core.finance.formula import FormulaError, defined_formula, operands, parse_formula
from core.finance.question import (
    AMOUNT_RE,
    AVERAGE_OVER_RE,
    CAGR_RE,
    CHANGE_RE,
    HISTORY_RE,
    HYPOTHETICAL_RE,
    JUDGEMENT_RE,
    PART_OF_COMPANY_RE,
    PER_SHARE_RE,
    PERCENT_RE,
    QUESTION_WORDS,
    RANKING_RE,
    asks_did,
    asks_for_change,
    asks_why,
    asks_yes_no,
    clause_texts,
    direction,
    figure_words,
    sign_words,
    strip_instructions,
    unit_asked,
)
from core.finance.vocabulary import (
    LINE_ITEM_BY_KEY,
    METRICS,
    NEUTRAL_WORDS,
    LineItem,
    label_rank,
    line_item_for,
    line_item_mentions,
    line_item_named,
    line_items_in,
    metric_mentions,
    metrics_in,
    parts_named,
    qualifier_before,
    qualifiers_before,
    with_filing_words,
    words_beyond,
)
from core.text.periods import FISCAL_WORD_RE, FiscalCalendar, fiscal_years, months_asked
from core.text.tokens import STOPWORDS, content_terms

_GROWTH_RE = re.compile(r"\b(growth|growing|grow|grew)\b", re.I)
_SHARE_OF_RE = re.compile(
    r"(?P<a>[\w&'’ ,-]{2,60}?)\s+(?P<how>as (?:an? )?(?:share|percentage|percent|%|proportion|ratio) of|to|divided by|over|/)\s+"
    r"(?P<b>(?:total |net )?[\w&'’ -]{2,40})",
    re.I,
)
_ITEM_MARGIN_RE = re.compile(r"(?P<a>[\w&'’ -]{2,40}?)\s*%?\s*margins?\b", re.I)
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
    position: int = field(default=-1, compare=False)  # where the question names it (-1: not one place)
    # A quarterly report's calendar: the years are then its quarter in each fiscal year (or `months` to date).
    calendar: FiscalCalendar | None = None
    months: int | None = None  # the year to date asked for (6, 9) instead of the quarter
    by_part: bool = False  # the line item broken into the parts the filing reports (segments, products)
    parts_asked: str = ""  # the question's word for those parts ("segments", "service offerings")

    @property
    def statements(self) -> list[str]:
        return list(dict.fromkeys(li.statement for li in self.line_items))

    def period_name(self, year: int) -> str:
        """How the answer names the period of `year`'s figure: "FY2023"; of a quarterly report "Q1 FY2023"
        (a balance before the report's own year is the fiscal year end the balance sheet compares with)."""
        if self.calendar is None:
            return f"FY{year}"
        if self.statements == ["balance"] and year < self.calendar.fiscal_year:
            return f"FY{year} year end"
        return self.calendar.period_name(year, self.months)

    def describe(self) -> str:
        """'fixed asset turnover ratio (FY2019)' — how the plan and the answer name it."""
        years = ", ".join(self.period_name(y) for y in self.years)
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


def _request(question: str, years: list[int], unit: str | None, **fields) -> FigureRequest:
    """A figure request for `years` of `question`: its aggregate (change, average, CAGR) read from the
    question, and the unit it asks for."""
    return FigureRequest(years=years, aggregate=_aggregate(question, years), unit_asked=unit, **fields)


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


#: "Did it earn more than it paid?", "Does its cash exceed its debt?": one figure measured against another.
_MORE_THAN_RE = re.compile(
    r"\b(?:more|less|higher|lower|greater|larger|smaller|bigger)\s+than\b|\b(?:exceed|outweigh|cover)(?:s|ed)?\b",
    re.I,
)


def weighs_two_figures(question: str) -> int:
    """+1 when a yes-or-no clause asks whether one figure is more than another ("Did it earn more than it
    paid?"), -1 when whether it is less ("Is its debt lower than its cash?"), 0 when it weighs none: the sign of
    their difference (first minus second) answers it."""
    for clause in clause_texts(question):
        m = _MORE_THAN_RE.search(clause) if asks_yes_no(clause) else None
        if m:
            return -1 if re.match(r"less|lower|smaller", m.group(), re.I) else 1
    return 0


def sign_asked(question: str) -> tuple[str, int] | None:
    """What sign settles a yes-or-no question, if one does: ("change", +1) for "Did it grow its PP&E?",
    ("change", -1) for "Did debt decrease?", ("value", +1) for "Does it have positive working capital?",
    ("amount", +1) for "Has it paid dividends?". None for judgements ("a high growth company?")."""
    if (weighs := weighs_two_figures(question)) and not direction(question):
        # Its own clause asks it ("For fiscal 2023, give …. Did it earn more than it paid?"); "higher than
        # last year" is one figure's change, read below.
        return ("value", weighs)
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


#: What a figure phrase may be left with that names no figure: a change, a size, a side of a balance sheet.
_NOT_A_FIGURE = set(
    content_terms(
        "grow growth grew change changed increase decrease rise fall fast fastest much many big large current "
        "long short long-term short-term term yoy year-over-year each both compare compared respectively "
        # How it moved ("the effective tax rate jumped") is not what it is.
        "rose fell jumped jump dropped declined surged soared climbed slumped improved improve worsened"
    )
)
_PHRASE_SPLIT_RE = re.compile(r"\s*(?:,|\band\b|\bas well as\b|\bplus\b|\bversus\b|\bvs\.?)\s*", re.I)


def _split_phrase(words: str) -> list[str]:
    """A figure phrase cut at "and" and commas, never inside a name the vocabulary knows ("research and
    development", "cash and cash equivalents")."""
    protected = [(m.start, m.end) for m in [*line_item_mentions(words), *metric_mentions(words)]]
    parts, last = [], 0
    for m in _PHRASE_SPLIT_RE.finditer(words):
        if any(s < m.start() < e for s, e in protected):
            continue
        # Whose the figure is ("Apple's") is not one of its words.
        left = [w for w in words[last : m.start()].split() if not re.search(r"['’]s$", w)]
        if len(left) == 1 and left[0].islower() and not line_item_mentions(left[0]):
            continue  # "interest and dividend income": one word shares the noun that follows
        parts.append(words[last : m.start()])
        last = m.end()
    parts.append(words[last:])
    # "cash paid for income taxes and for interest": the second shares the first's head ("cash paid").
    for k in range(1, len(parts)):
        lead = re.match(r"\s*(for|of|in|on|from)\s", parts[k], re.I)
        head = re.search(rf"^(.+?)\s{lead.group(1)}\s", parts[0], re.I) if lead else None
        if head:
            parts[k] = f"{head.group(1)} {parts[k].strip()}"
    return [
        p.strip()
        for p in parts
        if set(content_terms(p)) - _NOT_A_FIGURE - set(content_terms(" ".join(NEUTRAL_WORDS)))
    ]


def _uncovered(phrase: str) -> set[str]:
    """The words of a figure phrase that no line item or metric it names accounts for (a change or a size
    aside): "deferred" in "deferred revenue"."""
    return set(content_terms(" ".join(words_beyond(phrase)))) - _NOT_A_FIGURE


def _as_operand(phrase: str) -> str:
    """A phrase written as one formula operand: no characters the formula reader treats as arithmetic."""
    return " ".join(re.sub(r"[()/*+×÷]|\s-\s", " ", phrase).split())


_QUESTION_START_RE = re.compile(
    rf"^\s*(?:{QUESTION_WORDS}|is|are|was|were|did|does|do|has|have|had|can|could|will|would|should)\b", re.I
)


def _names_a_figure(clause: str) -> bool:
    """A clause with no question word that names a period or a unit ("Goodwill at year-end 2021, in USD
    millions?", "SBC expense FY24?"): it asks for the figure it names."""
    return not _QUESTION_START_RE.match(clause) and bool(fiscal_years(clause) or unit_asked(clause))


#: A clause that asks for an amount in so many words ("how much", "the balance of", "in USD millions", "paid").
_FIGURE_ASK_RE = re.compile(
    r"\b(?:how much|how many|how big|how large|amounts? of|values? of|balance|in (?:usd|us\$|\$|dollars)"
    r"|(?:usd|us\$|\$) ?(?:thousands|millions|billions)|spen[dt]|pa(?:y|id)|cost|charged?|booked?|recorded?)\b",
    re.I,
)
#: A clause that asks how the filing puts something: its words are asked for, not a figure.
_DESCRIBES_RE = re.compile(
    r"\b(?:describes?|described|discuss(?:es|ed)?|characteri[sz]es?|characteri[sz]ed)\b", re.I
)
#: A phrase opening like this asks for a list or a judgement, not a figure ("major acquisitions").
_NOT_A_FIGURE_START_RE = re.compile(
    r"^(?:major|key|main|primary|largest|biggest|top|which|any|times)\b", re.I
)
#: A relative clause ("geographies that it operates in") makes a sentence, not a line item's name.
_RELATIVE_RE = re.compile(r"\b(?:that|which|who|whom|whose|where)\b", re.I)
#: Longest figure phrase, in words other than names: longer ones are sentences, not line items.
_MAX_PHRASE_WORDS = 6


def _modified(phrase: str) -> bool:
    """A line item named with a word that changes it, within two words of its name: "deferred revenue",
    "cash paid for income taxes"."""
    beyond = set(words_beyond(phrase))
    if re.search(r"\bper\s+[A-Za-z]", phrase) and not PER_SHARE_RE.search(phrase):
        return True  # "revenue per Active Rider" is its own figure
    for m in line_item_mentions(phrase):
        near = [w.lower().strip(",") for w in [*phrase[: m.start].split()[-2:], *phrase[m.end :].split()[:2]]]
        if beyond & set(near):
            return True
    return bool(beyond) and not line_item_mentions(phrase)


_WHAT_IS_RE = re.compile(r"^\s*what (?:is|was|were|are)\b", re.I)


def _asks_what_at(clause: str) -> bool:
    """ "What was the insurance reserve at December 31, 2021?": what a thing was at a period named."""
    return bool(_WHAT_IS_RE.match(clause)) and bool(fiscal_years(clause))


#: "revenue per employee", "net sales per head": an amount over the company's headcount. Not per share (a
#: metric), per cent, or per period.
_PER_COUNT_RE = re.compile(r"\bper\s+(?P<count>(?:[A-Z][\w-]*\s+)?[A-Za-z][\w-]*)")
_NOT_A_COUNT = frozenset(
    [
        "share",
        "shares",
        "diluted",
        "basic",
        "cent",
        "annum",
        "year",
        "quarter",
        "month",
        "week",
        "day",
        "hour",
        "unit",
        "the",
        "each",
    ]
)
#: What an analyst calls a company's people, and what filings count them as.
_HEADCOUNT_RE = re.compile(
    r"^(?:heads?|headcount|employees?|fte|ftes|full-time equivalents?|staff|workers?|workforce|personnel)$",
    re.I,
)


def _per_count_requests(question: str) -> list[tuple[int, int, LineItem, str]]:
    """(start, end, amount's line item, count noun) for each "<line item> per <count>" the question asks: the
    line item must end right before "per" ("revenue per employee")."""
    found = []
    for m in _PER_COUNT_RE.finditer(question):
        count = m.group("count")
        if count.split()[0].lower() in _NOT_A_COUNT:
            continue
        before = question[: m.start()].rstrip()
        mentions = [x for x in line_item_mentions(before) if x.end >= len(before) - 1]
        if not mentions:
            continue
        if not _HEADCOUNT_RE.match(count):
            continue  # "revenue per Active Rider" is a figure a company reports itself: found as one
        found.append((mentions[-1].start, m.end(), mentions[-1].entry, "employees"))
    return found


#: "what share of revenue", "the percentage of total net sales", "as a % of revenue": a share asked of a whole.
_SHARE_WORDS_RE = re.compile(
    r"\b(?:share|percentage|percent|portion|proportion|fraction)\s+of\s+|%\s+of\s+|\b(?P<amount>how much of)\s+",
    re.I,
)
#: Lower-case words that belong to the name of a part of a company ("United States and Canada region").
_PART_NAME_WORDS = frozenset(
    ["and", "&", "of", "the", "region", "regions", "segment", "business", "division", "unit"]
)
#: Words that frame a share without naming its part ("came from", "did … contribute", "was accounted for by").
_SHARE_FRAMING_RE = re.compile(
    r"\b(?:c[oa]me|comes|coming|from|contribut\w*|account\w*|for|made|makes?|make up|up|represent\w*"
    r"|generat\w*|by|as|an?|on|of|to|what|which|how|much|large|big|did|does|do|was|were|is|are|has|have|had"
    r"|in|during|fiscal|year|quarter|its|their|the|total|company|went|go|goes|eat|ate|eaten|take|took|taken"
    r"|consum\w*|give|state|show)\b|\b\w+['’]s\b",
    re.I,
)
#: A part that points back at the figure asked just before ("… and what share of revenue was that?").
_ANAPHORA_RE = re.compile(
    r"^(?:that|this|it|these|those|them|th(?:at|is|ese) (?:figure|amount|sum)s?)$", re.I
)
#: A company named after its figure ("R&D at NVIDIA", "capex for Activision Blizzard") says whose, not what.
_WHOSE_RE = re.compile(r"\s+(?:at|of|for)\s+(?:[A-Z][\w&.'’-]*\s*)+$")
_NAME_AFTER_RE = re.compile(r"(?:\s+(?:on|at|for|of|in|from|by))?(?:\s+[A-Z][\w&.'’-]*)+$")
#: Longest part of a share, in words: a longer one is a list or a sentence, not a figure's name.
_MAX_PART_WORDS = 4
#: How many words may stand between "share of" and the whole's name ("share of Apple's total net sales").
_WHOLE_LEAD_WORDS = 3


@dataclass(frozen=True)
class ShareAsk:
    """A share a question asks for: its part (None when the part is the figure asked just before), the
    line item it is a share of, and where the ask sits in the question."""

    part: str | None
    whole: LineItem | None  # None: the figure asked just before ("how much of it came from Delivery")
    amount: bool  # "how much of revenue came from Delivery": the part's amount (and its share beside it)
    start: int
    end: int
    clause: tuple[int, int]  # the clause it is asked in: an explicit part's line items are the share's


def share_asks(question: str) -> list[ShareAsk]:
    """Each share a question asks for, read with its subject: "What share of Apple's total net sales came
    from Services?" (part Services), "R&D as a percentage of revenue", "How much did it spend on R&D, and
    what share of revenue was that?" (part: the R&D just asked)."""
    asks: list[ShareAsk] = []
    for at, _, clause in _clause_spans(question):
        if asks_yes_no(clause):
            continue  # "Are there any categories that represent more than 20% of revenue?" is not a share asked
        for m in _SHARE_WORDS_RE.finditer(clause):
            after = clause[m.end() :]
            mentions = line_item_mentions(after)
            pronoun = re.match(r"(?:it|that|this|them)\b", after, re.I)
            if pronoun:
                whole, whole_end = None, m.end() + pronoun.end()
            elif mentions and len(after[: mentions[0].start].split()) <= _WHOLE_LEAD_WORDS:
                whole, whole_end = mentions[0].entry, m.end() + mentions[0].end
            else:
                continue
            # The part is named beside the share, within its own item of a list ("…, how much of it came from
            # Delivery, …").
            rest = (
                f"{re.split(r'[,;:—]', clause[: m.start()])[-1]} {re.split(r'[,;:—]', clause[whole_end:])[0]}"
            )
            rest = re.sub(r"\bas an?\s*$", " ", rest.strip())
            part = _WHOSE_RE.sub("", figure_words(rest))
            while True:  # framing words uncover others once removed
                shorter = " ".join(_SHARE_FRAMING_RE.sub(" ", part).split()).strip(" ,'’")
                if shorter == part:
                    break
                part = shorter
            if part:  # as written, from its first word to its last ("United States and Canada")
                words = part.split()
                span = re.search(rf"{re.escape(words[0])}.*?{re.escape(words[-1])}", rest)
                part = span.group() if span else part
            if (
                len([w for w in part.split() if w.lower() not in ("and", "&", "of", "the")]) > _MAX_PART_WORDS
                or re.search(r"\d", part)
                or set(content_terms(part)) & _NOT_A_FIGURE
            ):
                continue  # not a figure's name: a list ("revenue, growth, share of …") or an average's years
            asks.append(
                ShareAsk(
                    part=None if not part or _ANAPHORA_RE.match(part) else part,
                    whole=whole,
                    amount=bool(m.group("amount")),
                    start=at + m.start(),
                    end=at + whole_end,
                    clause=(at, at + len(clause)),
                )
            )
    return asks


def _clause_spans(question: str) -> list[tuple[int, int, str]]:
    """(start, end, text) of each clause of the question, where it stands in the question."""
    spans, offset = [], 0
    for clause in clause_texts(question):
        at = max(question.find(clause, offset), 0)
        offset = at + len(clause)
        spans.append((at, at + len(clause), clause))
    return spans


def _parts_at(question: str, start: int, clauses: list[tuple[int, int, str]]) -> list[str]:
    """The part(s) of the company a figure named at `start` is asked for: the segment named just before it
    ("Data Center revenue"), else the part or list of parts its clause names as its subject ("Uber's
    Delivery business … revenue", "its segments, Compute & Networking and Graphics"); empty for the whole."""
    qualifiers = qualifiers_before(question, start)
    qualifier = qualifiers[-1] if qualifiers else None
    at = next((k for k, (s, e, _) in enumerate(clauses) if s <= start < e), None)
    # A list of parts may run on past the clause's end ("its two segments, Compute & Networking and Graphics").
    named = (
        parts_named(clauses[at][2]) or parts_named(" ".join(text for _, _, text in clauses[at : at + 2]))
        if at is not None
        else []
    )
    if len(qualifiers) > 1:
        return qualifiers  # "Data Center Group or IoT segment revenues": each part's figure
    if qualifier:
        # The clause's own name for it when that is longer ("Greater China" where a sentence opens with it).
        return [next((p for p in named if p.endswith(qualifier)), qualifier)]
    if len(named) == 1 and at is not None:
        # A part written just before one figure modifies that figure only ("its Fleet Software segment revenue
        # and R&D spending": the R&D is the company's).
        clause = clauses[at][2]
        mentions = [*line_item_mentions(clause), *metric_mentions(clause)]
        if any((qualifier_before(clause, m.start) or "").endswith(named[0].split()[-1]) for m in mentions):
            return []
    if not named and at is not None and _POSSESSIVE_PRONOUN_RE.search(question[:start]):
        return _part_referred_to(question, start, clauses[:at])
    return named


#: A figure owned by a pronoun: "… but its operating income fell", "what happened to their margins".
_POSSESSIVE_PRONOUN_RE = re.compile(r"\b(?:its|their)\s+$", re.I)


def _part_referred_to(question: str, start: int, earlier: list[tuple[int, int, str]]) -> list[str]:
    """The part a pronoun before a figure at `start` refers to: the part the nearest figure before it is of
    ("AWS sales grew but its operating income fell": AWS), else the part an earlier clause names as its
    subject ("Apple FY2024 Services: revenue, growth; what happened to its margin?"); empty for the company."""
    before = [m.start for m in [*line_item_mentions(question), *metric_mentions(question)] if m.start < start]
    for at in sorted(before, reverse=True):
        qualifier = qualifier_before(question, at)
        if qualifier:
            return [qualifier]
    for _, _, clause in reversed(earlier):
        if named := parts_named(clause):
            return named if len(named) == 1 else []
    return []


def _position(question: str, phrase: str) -> int:
    """Where a figure phrase is named in the question: the phrase, else its last word (-1: not found)."""
    at = question.find(phrase)
    if at < 0 and phrase.split():
        last = re.search(rf"\b{re.escape(phrase.split()[-1])}\b", question)
        at = last.start() if last else -1
    return at


def _same_share(a: FigureRequest, b: FigureRequest) -> bool:
    """Two shares of one whole whose parts are the same figure in other words ("SBC", "stock-based
    compensation")."""
    if "/" not in a.formula or "/" not in b.formula:
        return False
    (top_a, whole_a), (top_b, whole_b) = a.formula.rsplit("/", 1), b.formula.rsplit("/", 1)
    if whole_a.strip() != whole_b.strip():
        return False
    said_a, said_b = set(content_terms(top_a)), set(content_terms(top_b))
    meant_a, meant_b = (
        set(content_terms(with_filing_words(top_a))),
        set(content_terms(with_filing_words(top_b))),
    )
    return bool(said_a) and bool(said_b) and (said_a <= meant_b or said_b <= meant_a)


def _share_request(
    ask: ShareAsk, referent: FigureRequest | None, question: str, years: list[int], unit: str | None
) -> FigureRequest | None:
    """The ratio a share ask names: its part (a line item, a named part of the whole such as a segment or a
    product line, any figure by its words, or the figure asked just before) over the whole."""
    whole = ask.whole
    if whole is None:  # a share of the figure asked just before
        if referent is None or ask.part is None:
            return None
        named = referent.line_items or line_items_in(referent.formula)
        if len(named) != 1:
            return None
        whole = named[0]
    if ask.part is None:
        if referent is None:
            return None
        name, numerator, items = referent.name, referent.formula, list(referent.line_items)
        if referent.kind != "amount" or "/" in numerator or numerator == whole.name:
            return None  # a ratio, or the whole itself ("revenue, growth, share of total revenue")
        numerator = f"({numerator})" if re.search(r"\s[-+]\s", numerator) else numerator
    else:
        item = line_item_named(ask.part)
        if item is not None:
            # "Data Center revenue as a share of revenue": the part's own row of the line item.
            named = line_item_mentions(ask.part)
            before = ask.part[: named[0].start].split() if named else []
            qualifier = (
                " ".join(w for w in before if w[:1].isupper() and w.lower() not in NEUTRAL_WORDS) or None
            )
            name = f"{qualifier} {item.name}" if qualifier else item.name
            numerator, items = name, [item]
        elif all(
            (w[:1].isupper() and not w.isupper()) or w.lower() in _PART_NAME_WORDS for w in ask.part.split()
        ):
            # A name ("Services", "Data Center"): that part's row of the whole.
            name, numerator, items = ask.part, f"{ask.part} {whole.name}", []
        else:
            name, numerator, items = ask.part, _as_operand(ask.part), []
    if ask.amount:
        return _request(
            question,
            years,
            unit,
            name=numerator if ask.part else name,
            formula=numerator,
            kind="amount",
            line_items=items,
        )
    return _request(
        question,
        years,
        unit,
        name=f"{name} as a share of {whole.name}",
        formula=f"{numerator} / {whole.name}",
        kind="percent",
        line_items=[*items, whole],
    )


def unknown_figure_phrases(question: str) -> list[str]:
    """The figures a question asks for in words the vocabulary does not know ("deferred revenue", "cash paid
    for income taxes", "insurance reserves"): in each clause that asks for an amount, the figure's words
    (its framing removed), cut at "and". A clause the lexicon already answers keeps only a phrase that
    changes a line item it names ("deferred revenue" beside "revenue")."""
    phrases: list[str] = []
    need, _ = strip_instructions(question)  # "Answer in USD millions.", "Using only the balance sheet, …"
    for clause in clause_texts(need or question):
        if (
            asks_why(clause)
            or asks_yes_no(clause)
            or RANKING_RE.search(clause)
            or share_asks(clause)
            or _per_count_requests(clause)
        ):
            continue
        if not (_FIGURE_ASK_RE.search(clause) or _names_a_figure(clause) or _asks_what_at(clause)):
            continue
        if _DESCRIBES_RE.search(clause):
            continue  # "how does the company describe its approach to its people and pay": prose asked
        known = bool(metric_mentions(clause)) or any(
            line_item_named(clause[m.start : m.end]) for m in line_item_mentions(clause)
        )
        # A parenthesis says where or how ("(supplemental cash flow info)", "(cash, net of refunds)").
        words = figure_words(re.sub(r"\([^)]*\)", " ", clause))
        if _NOT_A_FIGURE_START_RE.match(words):
            continue
        for phrase in _split_phrase(words):
            # A growth rate is a change of the figure, not a figure ("total revenue growth rate"); whose it is
            # ("NVIDIA's") and how it moved ("grow YoY") are not its name either.
            phrase = re.sub(r"\bgrowth rates?\b", "growth", phrase.strip(" -–—")).strip()
            phrase = re.sub(r"^(?:[A-Z][\w&.-]*\s+)*[A-Z][\w&.-]*['’]s\s+", "", phrase)
            kept = phrase.split()
            while kept and set(content_terms(kept[-1])) <= _NOT_A_FIGURE and len(kept) > 1:
                kept.pop()
            phrase = " ".join(kept)
            unnamed = re.sub(r"^(?:[A-Z][\w&.-]*\s+)+", "", phrase)
            first = phrase.split()[0]
            # A capital mid-sentence, or before a year or a colon, is a name ("What did Apple spend on …",
            # "Uber 2021: what was total revenue"); one opening the clause may be the figure's own word
            # ("Restricted cash & cash equivalents").
            is_name = not clause.lstrip().startswith(first) or re.search(
                rf"\b{re.escape(first)}(?:['’]s\b|\s+(?:FY)?\d{{2,4}}\b|\s*:)", clause
            )
            if unnamed != phrase and is_name and line_item_named(unnamed):
                continue  # the company's name before a line item the vocabulary knows
            # A name after a figure's words is whose it is ("short-term investments Northwind [held]"): a part
            # of the company is named before them ("Data Center revenue").
            named_after = _NAME_AFTER_RE.search(phrase)
            if (
                named_after
                and re.search(r"\b[a-z]", phrase[: named_after.start()])
                and not re.search(r"\bper$", phrase[: named_after.start()])  # "revenue per Active Rider"
            ):
                phrase = phrase[: named_after.start()]
            plain = [w for w in phrase.split() if not w[:1].isupper() or (w.isupper() and len(w) <= 5)]
            if (
                not _uncovered(phrase)
                or _RELATIVE_RE.search(phrase)
                or (
                    line_item_mentions(phrase)
                    and (_ITEM_MARGIN_RE.search(phrase) or _SHARE_OF_RE.search(phrase))
                )
                or len(plain) > _MAX_PHRASE_WORDS
                or not re.match(r"[A-Za-z]", phrase)  # "3- average of …": what is left of a period
                or _NOT_A_FIGURE_START_RE.match(phrase)
                or _NAMES_PARTS_RE.search(phrase)  # "direct segments": parts of the company, not a figure
                # Beside a figure the lexicon knows, a phrase is another figure only when it names none of
                # the known ones ("operating expenses" beside "revenue") or changes one ("deferred revenue").
                or (known and _names_known(phrase) and not _modified(phrase))
                or phrase in phrases
            ):
                continue
            phrases.append(phrase)
    return phrases


#: "(generated) from": what joins a figure to what it comes from.
_COMES_FROM = r"(?:(?:generated|derived|earned|coming)\s+)?from"
#: What joins two names of one figure: "revenue (generated) from iPhone sales", "sales of its cloud services".
_SAME_FIGURE_JOIN_RE = re.compile(rf"^\s+(?:{_COMES_FROM}|of)\s+", re.I)


def _named_again_with_part(
    question: str, mentions: list, k: int, clauses: list[tuple[int, int, str]]
) -> bool:
    """The line item mentioned at `k` is named again at once with the part it comes from ("revenue from
    Apple's iPhone sales"): the second mention, the part's figure, is the one asked for."""
    _, end, item = mentions[k]
    later = next((m for m in mentions[k + 1 :] if m.entry.key == item.key), None)
    if later is None or later.start - end > 40 or not _SAME_FIGURE_JOIN_RE.match(question[end : later.start]):
        return False
    return bool(_parts_at(question, later.start, clauses))


#: "revenue (generated) from online retail services": what a figure comes from, up to where the clause goes
#: on ("across quarters", "in Q3", "and …").
_SOURCE_AFTER_RE = re.compile(
    rf"^\s+{_COMES_FROM}\s+(?:(?:the|its|their)\s+)?"
    r"(?P<what>(?:(?!(?:across|over|in|during|for|by|at|and|compared|versus|vs|between|through|throughout|to|as"
    r"|since|from|per|each|was|were|is|are|has|have|had|compar\w*|\w+ed)\b)[A-Za-z][\w&'’.-]*\s*){1,11})",
    re.I,
)
#: Where a figure is printed, not what it comes from: "from the cash flow statement", "from the 10-Q".
_PRINTED_IN_RE = re.compile(r"\b(?:statements?|reports?|filings?|10-?[KQ]|tables?|notes?|MD&A)\b", re.I)
#: What a figure is said to come from that is the whole company's figure, not a part's.
_WHOLE_SOURCES = frozenset(["operations", "continuing operations", "customers", "contracts with customers"])


#: What joins parts named as alternatives ("Windows or Surface devices"): each is a part of its own.
_ALTERNATIVES_RE = re.compile(r"\s+or\s+")
#: Longest name of a part a figure comes from, in words ("online retail services"); a longer run of words
#: after "from" is a clause, not a name.
_MAX_SOURCE_WORDS = 5


def _sources_named_after(question: str, end: int) -> list[str]:
    """The part(s) of the business a figure named just before `end` is said to come from ("revenue from
    online retail services" -> "online retail services"; "revenue from Windows or Surface devices" -> both,
    each its own figure); empty when nothing, a period or the whole company is named."""
    source = _source_named_after(question, end)
    if source is None:
        return []
    return [part for part in _ALTERNATIVES_RE.split(source) if part]


def _source_named_after(question: str, end: int) -> str | None:
    """The part of the business a figure named just before `end` is said to come from ("revenue from online
    retail services" -> "online retail services"); None when nothing, a period or the whole company is named."""
    m = _SOURCE_AFTER_RE.match(question[end:])
    if m is None:
        return None
    what = re.sub(r"^(?:[A-Z][\w&.-]*\s+)*[A-Z][\w&.-]*['’]s\s+", "", m.group("what").strip())
    what = what.strip(" .,?")
    moved = CHANGE_RE.search(what)  # "online retail services vary": the phrase ends where the verb starts
    what = what[: moved.start()].strip() if moved else what
    if (
        not what
        or any(len(part.split()) > _MAX_SOURCE_WORDS for part in _ALTERNATIVES_RE.split(what))
        or what.lower() in _WHOLE_SOURCES
        or _PRINTED_IN_RE.search(what)
        # "from its e-commerce and AWS segments": parts named in a list, read part by part.
        or _SEGMENTS_OF_RE.search(" ".join(question[end:].split()[:8]))
        or fiscal_years(what)
        or line_item_mentions(what)
        or metric_mentions(what)
        or not set(content_terms(what)) - _NOT_A_FIGURE
    ):
        return None
    return what


#: Right before a metric's name: the company's adjusted (non-GAAP) measure of it.
ADJUSTED_RE = re.compile(r"\b(?:adjusted|non-gaap)\s+$", re.I)


def _names_known(phrase: str) -> bool:
    """The phrase names a line item or metric the lexicon knows."""
    return bool(line_item_mentions(phrase) or metric_mentions(phrase))


def _share_of_revenue(item: LineItem, question: str, years: list[int], unit: str | None) -> FigureRequest:
    """A line item as a share of revenue ("R&D intensity", "COGS % margin")."""
    return _request(
        question,
        years,
        unit,
        name=f"{item.name} as a share of revenue",
        formula=f"{item.name} / revenue",
        kind="percent",
        line_items=[item, LINE_ITEM_BY_KEY["revenue"]],
    )


def figure_requests(
    question: str, default_year: int | None = None, calendar: FiscalCalendar | None = None
) -> list[FigureRequest]:
    """The figures `question` asks for (empty when it asks for none). With a quarterly report's `calendar`
    each is the report's quarter of each fiscal year, or the year to date the question asks for."""
    by_part = BY_PART_RE.search(question) is not None
    # The parts asked for are how to state the figure, not its name ("revenue across its segments").
    requests = _figure_requests(BY_PART_RE.sub(lambda m: m.group("item") or " ", question), default_year)
    if not by_part and _SEGMENTS_OF_RE.search(question) and all(_plain_item(r) for r in requests):
        # "NVIDIA's gaming and professional GPU segments": parts named in the analyst's words, not the filing's,
        # are found among the parts the filing reports: the line item is stated part by part.
        by_part = True
    if by_part:
        asked = parts_asked(question)
        requests = [
            replace(r, by_part=True, parts_asked=asked, years=[max(r.years)], aggregate=None)
            if _plain_item(r) and r.years
            else r
            for r in requests
        ]
    if calendar is None or calendar.quarter is None:
        return requests
    months = months_asked(question, calendar.quarter)
    quarterly = [
        replace(
            r,
            years=_fiscal_years_meant(r.years, calendar, question),
            calendar=calendar,
            # A balance is at a date: "so far this year" is the length of the flows beside it, not its own.
            months=None if r.statements == ["balance"] else months,
        )
        for r in requests
    ]
    return [_since_year_end(r) for r in quarterly]


def _since_year_end(request: FigureRequest) -> FigureRequest:
    """A balance asked of a quarterly report at the quarter's end, stated beside the fiscal year end its
    balance sheet compares it with ("Inventories were $12,831 million in Q3 FY2022, up 19.1% from $10,776
    million at the FY2021 year end"): the change since the annual report."""
    if not _plain_item(request) or request.statements != ["balance"] or request.by_part:
        return request
    if request.aggregate or len(request.years) != 1 or request.months is not None:
        return request
    year = request.years[0]
    return replace(request, years=[year - 1, year], aggregate="change")


#: The words that name the parts a line item is broken into: segments, products, regions, offerings.
_PART_NOUNS = (
    r"segments?|product lines?|product categories|categories|divisions?|geographies|geographic areas|regions"
    r"|(?:end )?markets|channels|(?:product |service )?offerings|products(?: and services)?|services"
    r"|lines of business|business lines"
)
#: A phrase that ends naming parts of the company ("wholesale and direct segments") names no figure.
_NAMES_PARTS_RE = re.compile(rf"\b(?:{_PART_NOUNS})$", re.I)
#: "by segment", "across its various business segments", "among different product lines", "revenue
#: distribution": the line item broken into the parts the filing reports.
BY_PART_RE = re.compile(
    r"\b(?:by|across|among|between|for each of|of each of)\s+(?:(?:its|the|their|each|various|different|"
    r"diverse|individual|reportable|operating|business|[a-z]+|[A-Z][\w.]*['’]s)\s+){0,3}?"
    rf"(?P<parts>{_PART_NOUNS})\b"
    r"|\b(?P<item>revenue|sales)\s+(?:distribution|breakdown|mix)\b",
    re.I,
)
#: A company's segments named in an analyst's own words: "Amazon's e-commerce and AWS segments".
_SEGMENTS_OF_RE = re.compile(
    r"(?:\b(?:its|their)|['’]s)\s+(?:[\w&-]+\s+){1,5}?(?:segments|divisions|product lines|businesses)\b", re.I
)


def _in_question_order(requests: list[FigureRequest]) -> list[FigureRequest]:
    """Plain figures in the order the question names them, so the answer states them as they were asked; a
    computed figure (a ratio, a metric) keeps its place: it is what the figures beside it are asked for."""
    slots = [
        k
        for k, r in enumerate(requests)
        if r.kind == "amount" and r.position >= 0 and not re.search(r"[/*+]|\s-\s", r.formula)
    ]
    ordered = sorted((requests[k] for k in slots), key=lambda r: r.position)
    out = list(requests)
    for k, request in zip(slots, ordered, strict=True):
        out[k] = request
    return out


def parts_asked(question: str) -> str:
    """The words a question names the parts it asks for with ("service offerings", "regions", "gaming and
    professional GPU segments"); empty when it asks for no parts."""
    named = [m.group("parts") for m in BY_PART_RE.finditer(question) if m.group("parts")]
    if named:
        return named[0].lower()
    own_words = _SEGMENTS_OF_RE.search(question)
    # The parts in the question's words ("gaming and professional GPU segments"): by meaning, they say which
    # of the filing's breakdowns is meant (its market platforms, not its regions).
    return re.sub(r"^(?:its|their|['’]s)\s+", "", own_words.group(), flags=re.I) if own_words else ""


def asked_wording(mention: str, item: LineItem) -> str:
    """How a request names a line item the question names: in the question's words when they are another of
    the item's printed labels than its first ("net sales" for revenue), so that the row printed as asked is
    read where a filing prints several ("Net sales" beside "Total revenue") and the answer names it as asked;
    else by the item's name."""
    words = " ".join(mention.lower().split())
    if set(content_terms(words)) == set(content_terms(item.name)):
        return item.name  # the item's own name, maybe in the plural ("revenues")
    # A plain name only ("net sales", "turnover"): a phrase with joining words ("purchases of property" of
    # "purchases of property and equipment") may be a piece of a longer name.
    plain = not set(words.split()) & STOPWORDS
    # Words that print the item's first label ("total revenue") change nothing: that row is read first anyway.
    if plain and (label_rank(item, words) or 0) > 0 and line_item_for(words) is item:
        return words
    return item.name


def _plain_item(request: FigureRequest) -> bool:
    """A request for one line item of the whole company, as printed (no formula, no part named)."""
    return len(request.line_items) == 1 and request.formula in (
        request.line_items[0].name,
        asked_wording(request.formula, request.line_items[0]),
    )


def _fiscal_years_meant(years: list[int], calendar: FiscalCalendar, question: str) -> list[int]:
    """The fiscal years a question means: one naming the calendar year a quarterly report's period ends in
    ("NVIDIA's Q1 2023 10-Q" for the quarter ended April 30, 2023, NVIDIA's fiscal 2024), without saying
    fiscal, means the report's own year; the other years it names move with it."""
    shift = calendar.fiscal_year - calendar.period_end.year
    if not shift or calendar.fiscal_year in years or calendar.period_end.year not in years:
        return years
    if FISCAL_WORD_RE.search(question):
        return years
    return sorted({y + shift for y in years})


def _figure_requests(question: str, default_year: int | None) -> list[FigureRequest]:
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
                # A sum or difference of amounts is an amount; a quotient or product, a ratio.
                kind=_kind_for(name, question, "ratio" if re.search(r"[/*]", formula) else "amount"),
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
    clauses = _clause_spans(question)
    shares = share_asks(question)
    spans: list[tuple[int, int]] = [(a.start, a.end) for a in shares]
    for start, end, metric in metric_mentions(question):
        if any(a.start <= start < a.end for a in shares):
            continue  # the whole of a share ("what share of operating income …") is the share's
        spans.append((start, end))
        years = _with_prior_year(question, _years(question, default_year))
        for qualifier in _parts_at(question, start, clauses):
            # A segment's metric ("Robotics Systems gross margin") is read from the row that reports it, else
            # computed from the segment's own rows ("Greater China operating income / Greater China revenue").
            name = f"{qualifier} {metric.name}"
            own = metric.formula
            for item_name in sorted(
                {o.item.name for o in operands(parse_formula(own)) if o.item}, key=len, reverse=True
            ):
                own = re.sub(rf"(?<![\w ]{{2}})\b{re.escape(item_name)}\b", f"{qualifier} {item_name}", own)
            requests.append(
                _request(
                    question,
                    years,
                    unit,
                    name=name,
                    formula=name,
                    kind=metric.kind,
                    fallbacks=[own] if own != metric.formula and own != name else [],
                    position=start,
                )
            )
        if not _parts_at(question, start, clauses) and ADJUSTED_RE.search(question[:start]):
            # "Adjusted EBITDA" is the company's own measure as it reports it (non-GAAP): read from its row
            # by meaning, never computed by the textbook formula ("unadjusted EBITDA" is that formula).
            name = f"adjusted {metric.name}"
            requests.append(
                _request(question, years, unit, name=name, formula=name, kind=metric.kind, position=start)
            )
        elif not _parts_at(question, start, clauses):
            name, formula = metric.name, metric.formula
            fallbacks = list(metric.fallbacks)
            less = _less_item(question, end)
            if less is not None:  # "EBITDA less capex"
                name, formula, fallbacks = f"{name} less {less.name}", f"({formula}) - {less.name}", []
                spans.append((end, end + 40))
            items = [o.item for o in operands(parse_formula(formula)) if o.item]
            requests.append(
                _request(
                    question,
                    years,
                    unit,
                    name=name,
                    formula=formula,
                    kind=metric.kind,
                    line_items=items,
                    fallbacks=fallbacks,
                    position=start,
                )
            )
    for start, end, item, noun in _per_count_requests(question):
        # An amount per head: the amount over a count the filing states (in a table or in prose).
        spans.append((start, end))
        years = _with_prior_year(question, _years(question, default_year))
        requests.append(
            _request(
                question,
                years,
                unit,
                name=f"{item.name} per {noun[:-1] if noun.endswith('s') else noun}",
                formula=f"{item.name} / number of {noun}",
                kind="amount",
                line_items=[item],
                position=start,
            )
        )
    metric_spans = [(m.start, m.end) for m in metric_mentions(question)]
    shares = [a for a in shares if not any(s < a.end and a.start < e for s, e in metric_spans)]
    # A share's explicit part is read by the share ("what percentage of revenue was spent on R&D").
    spans += [ask.clause for ask in shares if ask.part]
    for m in _ITEM_MARGIN_RE.finditer(question):
        # "COGS % margin", "R&D margin": a line item as a share of revenue (a metric's own margin is a metric).
        mentions = line_item_mentions(m.group("a"))
        if not mentions or any(m.start() < e and s < m.end() for s, e in spans):
            continue
        item = mentions[-1].entry
        if item.key == "revenue":
            continue
        years = _with_prior_year(question, _years(question, default_year))
        spans.append((m.start("a") + mentions[-1].start, m.end()))
        requests.append(_share_of_revenue(item, question, years, unit))
    for m in _INTENSITY_RE.finditer(question):
        # "R&D intensity", "capital intensity": the line item as a share of revenue.
        mentions = line_item_mentions(m.group("a"))
        if not mentions or any(m.start() < e and s < m.end() for s, e in spans):
            continue
        item = mentions[-1][2]
        years = _with_prior_year(question, _years(question, default_year))
        spans.append((m.start("a") + mentions[-1][0], m.end()))
        requests.append(_share_of_revenue(item, question, years, unit))
    for m in _SHARE_OF_RE.finditer(question):
        # "R&D expense as a share of revenue", "capex to revenue": a ratio of two line items.
        top, bottom = line_item_mentions(m.group("a")), line_item_mentions(m.group("b"))
        if not top or not bottom or any(m.start() < e and s < m.end() for s, e in spans):
            continue
        a, b = top[-1][2], bottom[0][2]
        percent = bool(re.search(r"share|percent|%", m.group("how"), re.I))
        years = _with_prior_year(question, _years(question, default_year))
        if not (m.group("how").lower() == "to" and re.search(r"\bcompar\w*\s*$", m.group("a"), re.I)):
            # The ratio's own words: its numerator's mention and what follows it. Two figures compared ("how
            # did X compare to Y") are also stated each on its own, beside their ratio.
            spans.append((m.start("a") + top[-1][0], m.end()))
        requests.append(
            _request(
                question,
                years,
                unit,
                name=f"{a.name} as a {'share' if percent else 'ratio'} of {b.name}",
                formula=f"{a.name} / {b.name}",
                kind="percent" if percent else "ratio",
                line_items=[a, b],
            )
        )
    if (
        not requests
        and _GROWTH_RE.search(question)
        and not line_item_mentions(question)
        and not unknown_figure_phrases(question)
        and not asks_why(question)
        and not PART_OF_COMPANY_RE.search(question)
    ):
        # "Is it a high growth company?": growth that names no figure is an analyst's sales growth. Not when
        # it is a part's growth (a segment's, a product line's) or the question asks what drove a growth: those
        # are answered from the part's own rows or from prose.
        revenue = LINE_ITEM_BY_KEY["revenue"]
        years = _with_prior_year(question, _years(question, default_year))
        return [
            _request(
                question,
                years,
                unit,
                name=revenue.name,
                formula=revenue.name,
                kind="amount",
                line_items=[revenue],
            )
        ]
    if (
        not requests
        and not AMOUNT_RE.search(question)
        and not CHANGE_RE.search(question)
        and not _asks_whether_cash_was_spent(question)
        # Two figures ranked, or a figure set against another ("How did its operating expenses stack up
        # against its earnings?": the figure the vocabulary knows is read even when the other is not).
        and not (RANKING_RE.search(question) and len(line_item_mentions(question)) >= 2)
        and not (
            _SET_AGAINST_RE.search(question) and (line_item_mentions(question) or metric_mentions(question))
        )
        and not unknown_figure_phrases(question)
        and not shares
        and not any(_names_a_figure(c) for c in clause_texts(question))
    ):
        return []
    unknown = unknown_figure_phrases(question)
    # A line item named inside an unknown phrase is not asked for ("revenue" in "deferred revenue"); the same
    # line item named elsewhere still is ("Windows revenue …? … Surface devices revenue …?"). A phrase not
    # written as such in the question (its framing removed) rules out its line items everywhere.
    inside_spans: list[tuple[int, int]] = []
    inside_keys: set[str] = set()
    for phrase in unknown:
        found = [(m.start(), m.end()) for m in re.finditer(re.escape(phrase), question, re.I)]
        inside_spans += found
        if not found:
            inside_keys |= {m.entry.key for m in line_item_mentions(phrase)}
    mentions = line_item_mentions(question)
    for k, (start, end, item) in enumerate(mentions):
        if any(s <= start < e or s < end <= e for s, e in spans):
            continue  # part of a metric's name ("capex as a % of revenue")
        if _named_again_with_part(question, mentions, k, clauses):
            continue  # "revenue from iPhone sales" is the iPhone's revenue, asked once
        sources = _sources_named_after(question, end)
        if sources and not _parts_at(question, start, clauses):
            # "revenue from online retail services": that part's figure, found among the facts by meaning.
            for source in sources:
                name = f"{source} {item.name}"
                if not any(r.name == name for r in requests):
                    requests.append(
                        _request(
                            question,
                            _with_prior_year(question, _years(question, default_year)),
                            unit,
                            name=name,
                            formula=_as_operand(name),
                            kind="amount",
                            position=start,
                        )
                    )
            continue
        inside = item.key in inside_keys or any(s <= start and end <= e for s, e in inside_spans)
        if inside and not any(
            not _uncovered(p) and item in line_items_in(p) for p in _split_phrase(figure_words(question))
        ):
            continue
        years = _with_prior_year(question, _years(question, default_year))
        for qualifier in _parts_at(question, start, clauses) or [None]:
            name = f"{qualifier} {item.name}" if qualifier else asked_wording(question[start:end], item)
            if any(r.name == name for r in requests) or (
                qualifier is None and any(r.line_items == [item] and _plain_item(r) for r in requests)
            ):
                continue  # asked already, maybe in other words ("net sales" … "revenue")
            requests.append(
                _request(
                    question,
                    years,
                    unit,
                    name=name,
                    formula=name,
                    kind="amount",
                    line_items=[item],
                    position=start,
                )
            )
    for phrase in unknown:
        # A figure the lexicon does not list: found among the filing's facts by meaning. A company's people
        # ("How big is its workforce?") are the count of employees the filing states.
        years = _with_prior_year(question, _years(question, default_year))
        counted = "number of employees" if _HEADCOUNT_RE.match(phrase) else None
        requests.append(
            _request(
                question,
                years,
                unit,
                name=counted or phrase,
                formula=counted or _as_operand(phrase),
                kind="amount",
                position=_position(question, phrase),
            )
        )
    for ask in shares:
        if any(r.position >= ask.start and "/" in r.formula for r in requests):
            continue  # the share is read already ("R&D intensity (R&D as a share of revenue)")
        # A share is computed where the question asks it: after the figure it refers back to.
        earlier = [r for r in requests if 0 <= r.position < ask.start]
        referent = max(earlier, key=lambda r: r.position) if earlier else None
        years = _years(question, default_year)
        share = _share_request(ask, referent, question, years, unit)
        if share is None or any(_same_share(share, r) for r in requests):
            continue
        found = [share]
        if ask.amount:  # "How much of it came from Delivery": the part's amount and its share of the whole.
            portion = _share_request(replace(ask, amount=False), referent, question, years, unit)
            if portion is not None and not any(_same_share(portion, r) for r in requests):
                found.append(portion)
        for request in found:
            request.position = ask.start
            later = next((k for k, r in enumerate(requests) if r.position > ask.start), len(requests))
            requests.insert(later, request)
    # The same figure named twice ("R&D intensity (R&D expense as a share of revenue)") is computed once.
    unique: dict[tuple[str, str], FigureRequest] = {}
    for request in _in_question_order(requests):
        unique.setdefault((request.formula.lower(), request.aggregate or ""), request)
    return _with_difference_asked(question, list(unique.values()))


#: Two figures set against each other: "How did its operating expenses stack up against its net sales?".
_SET_AGAINST_RE = re.compile(
    r"\b(?:stack(?:s|ed)?\s+up\s+(?:against|to|with)|compar\w*|versus|vs\.?|relative\s+to|measure[sd]?\s+up)\b",
    re.I,
)


def _with_difference_asked(question: str, requests: list[FigureRequest]) -> list[FigureRequest]:
    """`requests`, and when a yes-or-no clause weighs the question's two amounts against each other, their
    difference (first minus second): the figure that says yes or no."""
    amounts = [r for r in requests if r.kind == "amount" and not r.aggregate]
    if not weighs_two_figures(question) or len(amounts) != 2 or amounts[0].years != amounts[1].years:
        return requests
    a, b = amounts
    formula = f"{_as_operand(a.formula)} - {_as_operand(b.formula)}"
    try:
        parse_formula(formula)
    except FormulaError:
        return requests
    # The difference answers the question: it is stated first, its two figures after it.
    return [
        FigureRequest(
            name=f"{a.name} minus {b.name}",
            formula=formula,
            kind="amount",
            defined_in_question=True,  # its formula travels with it to the calculator
            years=list(a.years),
            line_items=[*a.line_items, *b.line_items],
            unit_asked=a.unit_asked,
        ),
        *requests,
    ]
