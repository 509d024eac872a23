"""Line items as analysts name them and as filings label them: the lexicon's priors for finding a figure.

Each entry says how analysts word the line item (aliases, regexes over the question), how filings label
its row (regexes over a normalised row label, best first), the statement that reports it, and the words a
keyword search adds for it. It is not the list of what can be found: any labelled row a filing prints is a
fact; these entries rank the rows of the line items they know and define the inputs of derived metrics.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from core.finance.vocabulary.mentions import Mention, all_hits, pattern_of, scan
from core.finance.vocabulary.metrics import metric_mentions
from core.finance.vocabulary.statements import Statement


@dataclass(frozen=True)
class LineItem:
    """A line item: what analysts call it, how filings label the row, where it is reported."""

    key: str
    name: str
    aliases: tuple[str, ...]  # regexes over the analyst's wording
    labels: tuple[str, ...]  # regexes over a normalised row label (full match), best first
    statement: Statement
    search_terms: str = ""  # wordings to add to a keyword search
    flow: bool = True  # reported for a period (income, cash flow) rather than at a date (balance sheet)
    # An expense or a use of cash that some filings print in parentheses: its size is stated, unsigned.
    outflow: bool = False


# "activities" after a list ("operating, investing and financing activities"): each word of the list names
# its own cash flow.
_LISTED_ACTIVITY = r"(?=(?:,? (?:and |or )?(?:operat\w*|investing|financing))* activities\b)"


def _li(
    key: str,
    name: str,
    aliases: list[str],
    labels: list[str],
    statement: Statement,
    search: str = "",
    *,
    outflow: bool = False,
) -> LineItem:
    return LineItem(
        key,
        name,
        tuple(aliases),
        tuple(labels),
        statement,
        search,
        flow=statement != "balance",
        outflow=outflow,
    )


LINE_ITEMS: list[LineItem] = [
    _li(
        "revenue",
        "revenue",
        [
            r"total (net )?revenues?",
            r"net revenues?",
            r"revenues?",
            r"net sales",
            r"total (net )?sales",
            r"sales",
            r"top[- ]?line",
            r"turnover",
        ],
        [
            r"total (net )?revenues?( and other income)?",
            r"(total )?net revenues?",
            r"total (net )?sales( and revenues?)?",
            r"net sales( and revenues?)?",
            r"(total )?revenues?(, net)?",
            r"(total )?net sales and other operating revenues?",
            r"sales to customers",
            r"(total )?sales",
        ],
        "income",
        "total revenues net sales",
    ),
    _li(
        "cost_of_revenue",
        "cost of revenue",
        [r"cogs", r"cost of (goods|products) sold", r"cost of sales", r"cost of revenues?"],
        [
            r"(total )?cost of (goods|products|merchandise) sold",
            r"(total )?cost of sales",
            r"(total )?cost of revenues?",
            r"cost of sales, excluding .*",
            r"cost of products sold.*",
        ],
        "income",
        "cost of sales cost of revenue cost of goods sold",
        outflow=True,
    ),
    # Some income statements print the cost of products and of services with no total (an aerospace
    # maker's "Cost of products" and "Cost of services"): a gross margin falls back to their sum.
    _li(
        "cost_of_products",
        "cost of products",
        [r"cost of products"],
        [r"cost of products"],
        "income",
        "cost of products",
        outflow=True,
    ),
    _li(
        "cost_of_services",
        "cost of services",
        [r"cost of services"],
        [r"cost of services"],
        "income",
        "cost of services",
        outflow=True,
    ),
    _li(
        "gross_profit",
        "gross profit",
        [r"gross profit", r"gross income"],
        [r"gross (profit|margin)"],
        "income",
        "gross profit",
    ),
    _li(
        "operating_income",
        "operating income",
        [
            r"operating (income|profit)",
            r"income from operations",
            r"\bebit\b",
            r"unadjusted operating income",
        ],
        [
            r"(total )?operating income( \(loss\))?",
            r"income( \(loss\))? from operations",
            r"operating (profit|income)( \(loss\))?",
            r"(income|earnings) from operations",
        ],
        "income",
        "operating income income from operations",
    ),
    _li(
        "pretax_income",
        "income before income taxes",
        [r"(pre-?tax|before tax(es)?) (income|profit|earnings)", r"income before (income )?tax(es)?"],
        [
            r"\(?(income|earnings|loss)\)?( ?[/(]? ?(income|loss|earnings)\)?)? (from continuing operations )?before (provision for )?income tax(es| expense)?.*",
            r"(income|earnings)( \(loss\))? before taxes.*",
        ],
        "income",
        "income before income taxes",
    ),
    _li(
        "income_tax",
        "income tax expense",
        [r"income tax(es)?( expense| provision)?", r"provision for income taxes", r"tax expense"],
        [
            r"(provision for|\(provision\) benefit for|benefit from) income taxes",
            r"provision for (income )?taxes( on income)?",
            r"income tax(es)?( expense)?( \(benefit\))?",
            r"income tax(es)? \(?(expense|benefit)\)?( ?/ ?\(?(expense|benefit)\)?)?",
            r"income tax (provision|expense)",
            r"provision for income taxes",
        ],
        "income",
        "provision for income taxes income tax expense",
        outflow=True,
    ),
    _li(
        "net_income",
        "net income",
        [
            r"net income( attributable to [\w\s.&']+)?",
            r"net earnings",
            r"net profit",
            r"profit after tax",
            r"bottom line",
        ],
        [
            r"net (income|earnings)( \(loss\))? attributable to (?!non-?controlling|minority)[\w\s.,&'()]+",
            r"net (income|earnings)( \(loss\))?",
            r"(consolidated )?net (income|earnings)( \(loss\))?( including non-?controlling interests?)?",
        ],
        "income",
        "net income",
    ),
    _li(
        "interest_expense",
        "interest expense",
        [r"interest expense", r"interest costs?"],
        [r"interest expense(, net)?( of capitalized interest)?", r"interest and debt expense"],
        "income",
        "interest expense",
        outflow=True,
    ),
    _li(
        "rd_expense",
        "research and development expense",
        [r"r&d", r"research (and|&) development"],
        [r"research(,)? (and|&) development( expenses?)?", r"research, development and .*"],
        "income",
        "research and development expenses",
    ),
    _li(
        "sga_expense",
        "selling, general and administrative expense",
        [r"sg&a", r"selling, general and administrative"],
        [r"selling, general(,)? and administrative( expenses?)?", r"marketing, general and administrative.*"],
        "income",
        "selling general and administrative expenses",
    ),
    _li(
        "operating_expenses",
        "operating expenses",
        [r"(total )?operat(ing|ional) (expenses|expenditures?|spending|outlays)", r"opex"],
        [r"(total )?operating expenses", r"total costs and (operating )?expenses"],
        "income",
        "total operating expenses",
    ),
    _li(
        "d_and_a",
        "depreciation and amortization",
        [r"d&a", r"depreciation (and|&) amortization", r"depreciation"],
        [
            r"depreciation(,)? (and|&) amortization( expense)?",
            r"depreciation, depletion and amortization",
            r"depreciation, amortization and .*",
            r"depreciation and amortization of .*",
            r"depreciation",
        ],
        "cash_flow",
        "depreciation and amortization",
    ),
    _li(
        "cfo",
        "cash from operations",
        [
            r"cash (flows? )?from operations",
            r"operating cash flows?",
            r"cash (flows? )?(provided by|from|generated by) operating activities",
            r"\bcfo\b",
            rf"\boperat(ing|ions){_LISTED_ACTIVITY}",
        ],
        [
            r"net cash (provided|generated)? ?(by|from)( \(used (in|for)\))? operating activities.*",
            r"net cash (provided by|from) operations",
            r"cash (provided by|from) operating activities.*",
            r"net cash provided by \(used in\) operating activities",
            r"(total |net )?cash\b.*\b(by|from|in) operations\b.*",  # "Cash provided (used) by operations"
            r"operating activities",
        ],
        "cash_flow",
        "net cash provided by operating activities",
    ),
    _li(
        "cfi",
        "cash from investing activities",
        [r"cash (flows? )?(used )?(in|for|from) investing activities", rf"\binvesting{_LISTED_ACTIVITY}"],
        [r"(total |net )?cash\b.*\binvesting activities.*", r"investing activities"],
        "cash_flow",
        "net cash used in investing activities",
    ),
    _li(
        "cff",
        "cash from financing activities",
        [r"cash (flows? )?(used )?(in|for|from) financing activities", rf"\bfinancing{_LISTED_ACTIVITY}"],
        [r"(total |net )?cash\b.*\bfinancing activities.*", r"financing activities"],
        "cash_flow",
        "net cash used in financing activities",
    ),
    _li(
        "capex",
        "capital expenditure",
        [r"capex", r"capital expenditures?", r"capital spending", r"purchases? of property"],
        [
            r"purchases? of property(,)? (plant )?(and|&) equipment.*",
            r"(payments for |purchases of )?(additions to|acquisitions? of) property(,)? (plant )?(and|&) equipment.*",
            r"capital expenditures?.*",
            r"capital spending",
            r"payments for (property|capital) .*",
            r"purchases? of (land,? )?(buildings|property)\b.*",
        ],
        "cash_flow",
        "purchases of property plant and equipment capital expenditures",
        outflow=True,
    ),
    _li(
        "dividends_paid",
        "dividends paid",
        [
            r"dividends? paid",
            r"cash dividends",
            r"dividend payments?",
            r"pa(?:y|ys|id|ying) (?:out )?(?:in )?(?:cash )?dividends?",
        ],
        [
            r"(cash )?dividends paid( to [\w\s]+)?",
            r"payments? (of|for) (cash )?dividends.*",
            r"dividends( paid)?( on common stock)?",
        ],
        "cash_flow",
        "cash dividends paid",
        outflow=True,
    ),
    _li(
        "share_repurchases",
        "share repurchases",
        [
            r"(share|stock) (repurchases?|buybacks?)",
            r"purchases? of treasury stock",
            r"(repurchas(e|es|ed|ing)|buy(s|ing)? back|bought back) (its |of )?(own )?(common )?(stock|shares)",
            # "how many shares did NVIDIA buy back", "what stock has Apple repurchased"
            r"(stock|shares) ((did|does|do|has|have|had) )?(\w+ ){0,2}(buy back|bought back|repurchased?)\b",
        ],
        [
            r"(repurchases?|purchases?) of (common |ordinary )?(stock|shares)( under [\w\s]+)?",
            r"purchases? of treasury (stock|shares)",
            r"common stock repurchased",
        ],
        "cash_flow",
        "repurchases of common stock",
        outflow=True,
    ),
    _li(
        "cash",
        "cash and cash equivalents",
        [r"cash,? (and|&)? ?(cash )?equivalents", r"cash balances?", r"cash on hand"],
        [r"(total )?cash and cash equivalents.*", r"cash and equivalents", r"cash"],
        "balance",
        "cash and cash equivalents",
    ),
    _li(
        "short_term_investments",
        "short-term investments",
        [r"short-term investments", r"marketable securities"],
        [
            r"short-term (investments|marketable securities).*",
            r"(current )?marketable securities.*",
            r"investments",
        ],
        "balance",
        "short-term investments marketable securities",
    ),
    _li(
        "accounts_receivable",
        "accounts receivable",
        [r"(accounts |trade )?receivables?", r"\bar\b"],
        [
            r"(trade )?accounts receivable.*",
            r"(trade )?receivables?(, net)?.*",
            r"accounts and notes receivable.*",
        ],
        "balance",
        "accounts receivable net",
    ),
    _li(
        "inventory",
        "inventories",
        [r"inventor(y|ies)"],
        [r"(merchandise )?inventor(y|ies)(, net)?.*", r"total inventor(y|ies)"],
        "balance",
        "inventories",
    ),
    _li(
        "total_current_assets",
        "total current assets",
        [r"(total )?current assets"],
        [r"total current assets"],
        "balance",
        "total current assets",
    ),
    _li(
        "total_assets",
        "total assets",
        [r"total assets", r"\bassets\b"],
        [r"total assets"],
        "balance",
        "total assets",
    ),
    _li(
        "accounts_payable",
        "accounts payable",
        [r"(accounts |trade )?payables?"],
        [r"(trade )?accounts payable.*", r"trade payables.*", r"accounts payable and accrued .*"],
        "balance",
        "accounts payable",
    ),
    _li(
        "total_current_liabilities",
        "total current liabilities",
        [r"(total )?current liabilities"],
        [r"total current liabilities"],
        "balance",
        "total current liabilities",
    ),
    _li(
        "total_liabilities",
        "total liabilities",
        [r"total liabilities"],
        [r"total liabilities"],
        "balance",
        "total liabilities",
    ),
    _li(
        "total_equity",
        "total shareholders' equity",
        [r"(total )?(shareholders'?|stockholders'?|share ?owners'?)? ?equity", r"book value"],
        [
            r"total ([\w.&]+ )?(shareholders|stockholders|shareowners)'? equity.*",
            r"total equity",
        ],
        "balance",
        "total shareholders equity",
    ),
    _li(
        "long_term_debt",
        "long-term debt",
        [r"long[- ]term debt"],
        [
            r"long-term debt(, net)?(, (less|excluding|net of) current (portion|maturities).*)?",
            r"long-term borrowings",
        ],
        "balance",
        "long-term debt",
    ),
    _li(
        "current_debt",
        "current portion of long-term debt",
        [
            r"current (portion|maturities) of (long[- ]term )?(debt|borrowings)",
            r"debt (due|maturing) within one year",
        ],
        [
            r"current (portion|maturities) of (long-term )?(debt|borrowings).*",
            r"long-term (debt|borrowings),? (current portion|current maturities|due within one year).*",
            r"(short-term (debt|borrowings)|notes payable|commercial paper),? (and|including) current "
            r"(portion|maturities) of long-term (debt|borrowings).*",
            r"debt (due|maturing) within one year",
            r"current debt",
        ],
        "balance",
        "current portion of long-term debt current maturities debt due within one year",
    ),
    _li(
        "short_term_borrowings",
        "short-term borrowings",
        [r"short[- ]term (borrowings|debt)", r"commercial paper", r"notes payable"],
        # "Short-term debt" alone may include the current maturities: it is then the only current debt row,
        # and the total-debt fallbacks add it to long-term debt without a current-portion row.
        [
            r"short-term (borrowings|debt)",
            r"commercial paper",
            r"(short-term )?notes payable( to banks)?",
            r"loans payable",
        ],
        "balance",
        "short-term borrowings commercial paper notes payable",
    ),
    _li(
        "ppe_net",
        "property, plant and equipment, net",
        [
            r"pp&?e",
            r"ppne",
            r"property,? plant,? (and|&) equipment",
            r"fixed assets",
            r"property and equipment",
        ],
        [
            r"(total )?property,? (plant,? )?and equipment,? ?(- ?)?net( of .*)?",
            r"net property,? (plant,? )?and equipment",
            r"property,? (plant,? )?and equipment, at cost, net",
            r"property,? (plant,? )?and equipment",
        ],
        "balance",
        "property plant and equipment net",
    ),
]
LINE_ITEM_BY_KEY = {li.key: li for li in LINE_ITEMS}


def _norm(text: str) -> str:
    text = text.lower().replace("’", "'").replace("&", " and ").replace("—", "-").replace("–", "-")
    text = re.sub(r"\s*\(\d\)|\*+|\s+", " ", text)
    return re.sub(r"\s+", " ", text).strip(" :.;,")


def normalise_label(label: str) -> str:
    """A row label in the form the label patterns match ('Less: Inventories, net (1)' -> 'inventories, net')."""
    label = _norm(label)
    return re.sub(r"^(less|add|plus)\s*:\s*", "", label)


# Labels are normalised ("&" -> "and", dashes, spacing) before these patterns see them.
_LABEL_RES = {li.key: [re.compile(p, re.I) for p in li.labels] for li in LINE_ITEMS}
# PDF text sometimes splits words ("attributab le", "op erations"): labels are also compared without spaces.
_SQUASHED_RES = {
    li.key: [re.compile(p.replace(" ?", "").replace(" ", ""), re.I) for p in li.labels] for li in LINE_ITEMS
}
# A name is always one of its own aliases, so that a step naming it ("Calculate the ...") reads back.
# A plural is the same line item ("interest expenses", "capital expenditures").
_ALIAS_RES = [
    (li, pattern_of([f"(?:{a})s?" for a in [*li.aliases, re.escape(li.name)]], closed=True))
    for li in LINE_ITEMS
]


#: A sign's alternative printed inside a label: "Provision for (benefit from) taxes", "Other (income) expense".
_SIGN_ALTERNATIVE_RE = re.compile(
    r"\s*\((?:benefit|loss|losses|income|gain|gains|expense|provision)(?: from| for)?\)"
)


def label_rank(item: LineItem, label: str) -> int | None:
    """Position of the first of `item`'s label patterns that the whole row label matches (lower = better);
    a label is also read without the sign's alternative it prints ("Provision for (benefit from) taxes")."""
    norm = normalise_label(label)
    plain = _SIGN_ALTERNATIVE_RE.sub("", norm)
    for text in dict.fromkeys((norm, plain)):
        for rank, rx in enumerate(_LABEL_RES[item.key]):
            if rx.fullmatch(text):
                return rank
    squashed = norm.replace(" ", "")
    for rank, rx in enumerate(_SQUASHED_RES[item.key]):
        if rx.fullmatch(squashed):
            return rank
    return None


def as_item_value(item: LineItem | None, value: float, label: str) -> float:
    """A row's value as the line item's figure: an outflow printed in parentheses ("Purchases of property
    and equipment (1,234)") is still the amount spent, unless the label names what a negative value is
    ("Provision for (benefit from) taxes (362)": a benefit), so the printed sign is the figure's own."""
    if item is None or not item.outflow or _SIGN_ALTERNATIVE_RE.search(normalise_label(label)):
        return value
    return abs(value)


@lru_cache(maxsize=4096)
def labelled_items(label: str) -> frozenset[str]:
    """Keys of the line items a row label is labelled as ("Income (loss) before taxes": pretax income)."""
    return frozenset(li.key for li in LINE_ITEMS if label_rank(li, label) is not None)


def line_item_for(phrase: str) -> LineItem | None:
    """The line item a phrase names ('average PP&E' -> ppe_net); the longest alias match wins."""
    hits = all_hits(phrase, _ALIAS_RES)
    return max(hits, key=lambda h: h.end - h.start).entry if hits else None


def line_item_mentions(text: str) -> list[Mention[LineItem]]:
    """Each line item `text` names, in order; a longer alias shadows the ones inside it."""
    return scan(text, _ALIAS_RES)


def line_items_in(text: str) -> list[LineItem]:
    """Line items a question names, in order of mention; a longer alias shadows the ones inside it."""
    return list(dict.fromkeys(m.entry for m in line_item_mentions(text)))


# Capitalised words right before a line item that narrow it to a segment or product ("Data Center
# revenue", "iPhone net sales"); words that only describe the line item itself do not count.
_QUALIFIER_RE = re.compile(
    r"((?:(?:[a-z]*[A-Z][\w&.+-]*|of|and|&)\s+){1,4})(?:(?:segment|division|business|unit|product line)s?['’]?s?\s+)?$"
)
_NOT_QUALIFIERS = frozenset(
    [
        "total",
        "net",
        "gross",
        "consolidated",
        "company",
        "group",
        "annual",
        "fiscal",
        "year",
        "end",
        "year-end",
        "the",
        "what",
        "how",
        "is",
        "was",
        "are",
        "were",
        "does",
        "did",
        "has",
        "have",
        "which",
        "its",
        "their",
        "our",
        "adjusted",
        "unadjusted",
        "reported",
        "operating",
    ]
)


def qualifier_before(text: str, start: int) -> str | None:
    """The segment or product named just before position `start` ('Data Center' in '... Data Center
    revenue'), or None; possessives ("Acme's") and sentence openings end the search."""
    m = _QUALIFIER_RE.search(text[:start])
    if not m:
        return None
    words = m.group(1).split()
    opens_sentence = not text[: m.start(1)].strip() or text[: m.start(1)].rstrip()[-1:] in ".?!:;"
    if (
        words
        and opens_sentence
        and words[0][:1].isupper()
        and not re.search(r"[A-Z].*[A-Z]|\d", words[0][1:] + " ")
    ):
        words = words[1:]  # "Calculate the ...", "Revenue ...": a capital that only opens the sentence
    while words and (words[0].lower() in _NOT_QUALIFIERS or words[0] in ("of", "and", "&")):
        words = words[1:]
    words = [w for w in words if not re.fullmatch(r"FY\d*|\d+|Q[1-4]", w)]
    if not words or any(w.endswith(("'s", "’s")) for w in words) or words[-1] in ("of", "and", "&"):
        return None
    if all(w.lower() in _NOT_QUALIFIERS for w in words):
        return None
    return " ".join(words)


#: A name as analysts write a part of a company: capitalised words, "&" inside ("Compute & Networking").
_NAME = r"[A-Z][\w.+-]*(?:\s+&\s+[A-Z][\w.+-]*|\s+[A-Z][\w.+-]*)*"
#: "Data Center Group or ": another part named before a qualifier, as an alternative ("or" never joins the
#: words of one part's name, where "and" may: "Data Center and AI").
_ALTERNATIVE_BEFORE_RE = re.compile(
    r"(?<![\w'’])((?:[a-z]*[A-Z][\w.+-]*)(?:\s+&\s+[a-z]*[A-Z][\w.+-]*|\s+[a-z]*[A-Z][\w.+-]*)*)\s+or\s+$"
)


def qualifiers_before(text: str, start: int) -> list[str]:
    """The part(s) named just before position `start`: the qualifier ("IoT" in "... IoT segment revenues"),
    with the part named as its alternative ("Data Center Group or IoT segment revenues": both, each its own
    figure); empty when none."""
    qualifier = qualifier_before(text, start)
    if qualifier is None:
        return []
    at = text.rfind(qualifier, 0, start)
    other = _ALTERNATIVE_BEFORE_RE.search(text[:at]) if at >= 0 else None
    alternative = qualifier_before(text, other.end(1) + 1) if other else None
    return [alternative, qualifier] if alternative else [qualifier]


#: "the Delivery business", "Apple's Greater China segment", "Data Center and AI segment": one part, named
#: before the word that says it is a part (singular).
_ONE_PART_RE = re.compile(
    rf"(?<![\w'’])({_NAME}(?:\s+(?:and|of)\s+{_NAME})?)\s+(?:reportable\s+)?(?:segment|business|division|unit|region)(?:['’]s)?\b(?!s)"
)
#: "segments, Compute & Networking and Graphics", "for Mobility and Delivery": several parts in a list.
_PART_LIST_RE = re.compile(rf"(?<![\w'’])({_NAME}(?:\s*,\s*{_NAME})*\s*,?\s+and\s+{_NAME})(?!['’]s)")
_PART_WORDS_RE = re.compile(r"\b(?:segments?|divisions?|business(?:es)?|regions?|units?)\b", re.I)
#: Capitalised only because they open a question: never part of a name.
_OPENERS = frozenset(
    [
        "compare",
        "what",
        "which",
        "how",
        "give",
        "show",
        "list",
        "state",
        "provide",
        "calculate",
        "find",
        "did",
        "does",
        "is",
        "was",
    ]
)


#: A name right after a company's possessive: "Apple's Services", "NVIDIA's Data Center", "Amazon's AWS".
_OWNED_NAME_RE = re.compile(rf"[\w.&-]['’]s\s+({_NAME})(?![\w&'’-])")
#: Names that follow a company's possessive without being a part of it: its reports and its people.
_NOT_PARTS_RE = re.compile(
    r"^(?:Q[1-4]|FY\S*|Form|Board|CEO|CFO|Management|Annual|Quarterly|Fiscal|Total)\b|\d", re.I
)


def _owned_part(text: str) -> list[str]:
    """The part a company's possessive names when no word says it is a part: "the gross margin of Apple's
    Services" -> ["Services"]; not a line item or a statement written with capitals ("Apple's Net Sales")."""
    m = _OWNED_NAME_RE.search(text)
    if m is None:
        return []
    name = m.group(1).strip()
    if (
        _NOT_PARTS_RE.search(name)
        or name.split()[0].lower() in _NOT_QUALIFIERS | _OPENERS
        or line_item_mentions(name)
        or metric_mentions(name)
    ):
        return []
    return [name]


#: Words that open a sentence or a phrase, never a list of figures or a part's name.
_QUESTION_WORDS = frozenset(
    ["why", "when", "where", "who", "whether", "in", "for", "during", "at", "on", "by", "note"]
)
#: A heading that names what the figures after its colon are of: "Apple FY2024 Services: revenue, growth, …".
_HEADING_RE = re.compile(r"^(?P<head>[^:?]{2,80}):\s+\S")
#: Periods a heading may name beside its subject: "FY2024", "fiscal 2024", "quarter ended September 30, 2023".
_HEADING_PERIOD_RE = re.compile(
    r"\b(?:(?:three|six|nine|twelve)\s+months|quarter|year|fiscal\s+year|period)\s+end(?:ed|ing)\s+[A-Z][a-z]+\.?"
    r"\s+\d{1,2},?\s+\d{4}|\b(?:FY|Q[1-4])\s?'?\d{2,4}\b|\bfiscal\s+\d{4}\b|\b\d{4}\b"
)


def _heading_part(text: str) -> list[str]:
    """The part a heading names as the subject of the figures listed after its colon ("the company FY2024
    Services: revenue, growth" -> ["Services"]); empty when the heading names only the company or a period."""
    m = _HEADING_RE.match(text.strip())
    if m is None:
        return []
    listed = text.strip()[m.end("head") + 1 :].split()
    if not listed or listed[0].lower() in _OPENERS | _QUESTION_WORDS:
        return []  # "Note: what was …" is a sentence after a colon, not a list of figures
    head = _HEADING_PERIOD_RE.sub(",", m.group("head"))
    names = list(re.finditer(_NAME, head))
    if not names or not head[: names[-1].start()].strip(" ,"):
        return []  # a name that opens the heading is the company's ("Lyft 2021: revenue, …")
    name = names[-1].group(0).strip()
    words = name.split()
    while words and (words[0].lower() in _NOT_QUALIFIERS | _OPENERS or _NOT_PARTS_RE.search(words[0])):
        words = words[1:]
    name = " ".join(words)
    if (
        not name
        or name.lower() in _QUESTION_WORDS
        or _NOT_PARTS_RE.search(name)
        or line_item_mentions(name)
        or metric_mentions(name)
    ):
        return []
    return [name]


def parts_named(clause: str) -> list[str]:
    """The parts of the company (segments, businesses, regions) a clause names as the subject of its figures:
    one ("What did Uber's Delivery business bring in?") or a list ("Compare the operating income of its two
    segments, Compute & Networking and Graphics"). A company's own name (possessive) is not a part."""
    text = re.sub(r"\([^)]*\)", " ", clause)
    one = _ONE_PART_RE.search(text)
    if one:
        words = one.group(1).split()
        while words and (words[0].lower() in _NOT_QUALIFIERS or words[0].lower() in _OPENERS):
            words = words[1:]
        if words:
            return [" ".join(words)]
    if not _PART_WORDS_RE.search(text):
        return _owned_part(text) or _heading_part(text)
    listed = _PART_LIST_RE.search(text)
    if not listed:
        return []
    parts = [p.strip() for p in re.split(r"\s*,\s*|\s+and\s+", listed.group(1)) if p.strip()]
    parts = [" ".join(w for w in p.split() if w.lower() not in _OPENERS) for p in parts]
    parts = [p for p in parts if p and p.split()[0].lower() not in _NOT_QUALIFIERS]
    return parts if len(parts) >= 2 else []
