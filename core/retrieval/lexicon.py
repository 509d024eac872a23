"""Small finance lexicon: topic words that point to 10-K Items, and terms that make a query specific."""

from __future__ import annotations

import re


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: (pattern, Item) pairs; a query mentioning the topic is likely answered in that Item.
#: Order matters only for ties: more specific topics come before the broad ones they contain.
ITEM_TOPICS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(p, re.IGNORECASE), item)
    for p, item in [
        (r"\bcyber\s?security\b|\bcyber[- ]?attacks?\b|\binformation security\b", "Item 1C"),
        (
            r"\bmarket risks?\b|\binterest rate (risk|sensitivity|exposure)|\bforeign (currency|exchange)"
            r"|\bfx\b|\bcurrency risk|\bcommodity price risk|\bhedg",
            "Item 7A",
        ),
        (r"\brisks?\b|\bthreats?\b|\buncertaint|\bvulnerab|\bheadwinds?\b", "Item 1A"),
        (r"\bunresolved staff comments\b", "Item 1B"),
        (r"\bpropert(y|ies)\b(?!,? plant)|\bfacilities\b|\bheadquarters\b|\bsquare feet\b", "Item 2"),
        (r"\blegal\b|\blitigation|\blawsuits?\b|\bproceedings\b|\bsettlements?\b|\bsubpoena", "Item 3"),
        (r"\bmine safety\b", "Item 4"),
        (
            r"\bshare repurchases?\b|\bbuybacks?\b|\bstock performance\b|\bholders of record\b"
            r"|\bdividend polic|\bmarket for (the )?registrant",
            "Item 5",
        ),
        (
            r"\bresults of operations\b|\bresults\b|\bsegments?\b|\bliquidity\b|\bmd&a\b"
            r"|\bmanagement'?s discussion\b|\boperating margin|\bgross margin|\bdrove\b|\bdrivers?\b"
            r"|\bguidance\b|\boutlook\b|\bregions?\b|\btop[- ]?line\b|\bcapital resources\b|\bnon-gaap\b"
            r"|\bgrowth\b",
            "Item 7",
        ),
        (
            r"\bfinancial statements?\b|\bbalance sheets?\b|\bcash flows?\b|\bincome statements?\b"
            r"|\bstatements? of (income|operations|cash flows?|financial position|comprehensive income"
            r"|earnings|shareholders|stockholders)|\bp&l\b|\bnotes to\b|\bfootnotes?\b"
            r"|\baccounts (receivable|payable)\b|\binventor(y|ies)\b|\bcapex\b|\bcapital expenditures?\b"
            r"|\bdepreciation\b|\bamortization\b|\bgoodwill\b|\beffective tax rate\b|\bdebt\b"
            r"|\bearnings per share\b|\beps\b|\bnet income\b|\brevenues?\b|\bcogs\b|\bcost of (goods|sales)"
            r"|\bpp&e\b|\bproperty,? plant\b|\btotal assets\b|\bliabilities\b|\bequity\b|\bacquisitions?\b"
            r"|\bdividends?\b",
            "Item 8",
        ),
        (
            r"\bbusiness\b|\bcompetition\b|\bcompetitors?\b|\bproducts?\b|\bservices?\b|\bemployees\b"
            r"|\bhuman capital\b|\bcustomers?\b|\bsuppliers?\b|\bgeograph|\bstrategy\b|\bseasonal",
            "Item 1",
        ),
        (r"\binternal control|\bcontrols and procedures\b|\bdisclosure controls\b|\bsox\b", "Item 9A"),
        (r"\bdirectors\b|\bexecutive officers\b|\bcorporate governance\b|\bcode of ethics\b", "Item 10"),
        (r"\bexecutive compensation\b|\bcompensation of (our )?executives|\bceo pay\b", "Item 11"),
        (r"\bbeneficial owners?\b|\bsecurity ownership\b", "Item 12"),
        (r"\brelated[- ]part(y|ies)\b|\bdirector independence\b", "Item 13"),
        (r"\baccountant fees\b|\baudit fees\b|\bauditor fees\b", "Item 14"),
        (r"\bexhibits?\b|\bfinancial statement schedules\b", "Item 15"),
    ]
]

#: Topic words that make the Item 1A hint win over more generic ones (a risk question is a risk question).
RISK_WORDS = re.compile(r"\brisks?\b|\bthreats?\b|\buncertaint|\bvulnerab|\bexposure\b", re.IGNORECASE)

#: Financial terms and metric names: their presence makes a query specific (keyword-friendly).
FINANCE_TERMS: frozenset[str] = _words(
    """
    revenue revenues sales income ebit ebitda eps margin margins capex expenditure expenditures
    depreciation amortization goodwill inventory inventories receivable receivables payable payables
    dividend dividends debt liabilities assets equity cash flow flows ratio turnover dpo dso dio ccc
    cogs sg&a r&d opex roa roe roic wacc cagr yoy qoq gaap non-gaap tax taxes buyback buybacks
    repurchase repurchases impairment restructuring lease leases backlog guidance segment segments
    acquisition acquisitions divestiture bps basis points shares outstanding diluted basic liquidity
    quick current working capital pp&e opex net gross operating interest expense
    """
)

#: Words that signal an abstract, conceptual information need (vector-friendly).
ABSTRACT_WORDS: frozenset[str] = _words(
    """
    how why impact impacts affect affects affected effect effects influence approach approaches strategy
    strategies overall describe explain discuss assess evaluate implications implication factors factor
    drivers driver drove drive driving challenges challenge outlook position positioning competitive
    landscape themes theme nature purpose role relationship view perspective sentiment concerns concern
    changing evolve evolving shift shifts dynamics environment consider considering broadly general
    """
)

#: Words that are capitalised in questions without naming anything.
NON_ENTITY_CAPS: frozenset[str] = _words(
    """
    what which who whom whose when where why how is are was were does do did has have had can could
    should would will may might the a an in on at of for from by to and or as if among between
    according based basing give provide answer round please assume assuming using use calculate compute
    we you i it this that these those there then also item items part fiscal fy q1 q2 q3 q4 total net
    from to roughly approximately given considering define defined adjusted unadjusted non excluding
    including january february march april may june july august september october november december
    does did do yes no not any all our its their year years quarter annual report compare contrast list
    describe explain summarize summarise identify find show tell assess evaluate discuss analyze analyse
    """
)

#: Words of a statement name, to pull "balance sheet", "cash flow statement" etc. out of instructions.
STATEMENT_NAMES = re.compile(
    r"\b(?:cash flow statement|statements? of cash flows?|balance sheet|statement of financial position"
    r"|income statement|statements? of (?:income|operations|earnings|comprehensive income)"
    r"|p&l(?: statement)?|statements? of (?:shareholders'?|stockholders'?) equity)\b",
    re.IGNORECASE,
)

#: Metric names and abbreviations -> the line items a filing reports them under. Financial statements
#: rarely use an analyst's metric name ("capex"), so keyword search looks for the line items too.
METRIC_LINE_ITEMS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(p, re.IGNORECASE), items)
    for p, items in [
        (
            r"\bcapex\b|\bcapital expenditures?\b",
            "purchases of property, plant and equipment capital expenditures",
        ),
        (r"\bpp&?ne?\b|\bpp&e\b|\bfixed assets?\b", "property, plant and equipment, net"),
        (r"\bcogs\b|\bcost of goods sold\b", "cost of sales cost of goods sold cost of revenue"),
        (r"\bd&a\b", "depreciation and amortization"),
        (r"\bsg&a\b", "selling, general and administrative expenses"),
        (r"\br&d\b", "research and development expenses"),
        (r"\bebitda\b", "operating income depreciation and amortization"),
        (r"\bebit\b", "operating income"),
        (r"\b(operating cash flow|cash from operations)\b", "net cash provided by operating activities"),
        (r"\bfree cash flow\b|\bfcf\b", "net cash provided by operating activities purchases of property"),
        (r"\b(net )?ar\b|\baccounts receivable\b|\bdso\b", "accounts receivable, net"),
        (r"\bdpo\b|\bdays payable\b", "accounts payable cost of sales inventories"),
        (r"\bdio\b|\binventory turnover\b|\bdays inventory\b", "inventories cost of sales"),
        (
            r"\bcash conversion cycle\b|\bccc\b",
            "inventories accounts receivable accounts payable cost of sales",
        ),
        (
            r"\bquick ratio\b",
            "cash and cash equivalents receivables total current assets total current liabilities",
        ),
        (r"\bcurrent ratio\b|\bworking capital\b", "total current assets total current liabilities"),
        (r"\broa\b|\breturn on assets\b|\basset turnover\b", "net income total assets"),
        (r"\broe\b|\breturn on equity\b", "net income total shareholders equity"),
        (
            r"\b(gross|operating|net|profit) margin\b",
            "gross profit operating income net income net sales revenue",
        ),
        (r"\bdividend payout\b|\bretention ratio\b", "cash dividends paid net income"),
        (r"\beps\b", "earnings per share diluted"),
        (r"\btopline\b|\btop line\b", "net sales revenue"),
        (r"\brevenues?\b", "net sales total revenues"),
        (r"\binterest coverage\b", "operating income interest expense"),
        (r"\bdebt\b", "long-term debt borrowings notes"),
    ]
]
