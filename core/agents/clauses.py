"""How a question reads for planning: its clauses, the 10-K Item each one discusses, its keywords, and whether
it asks about something outside the filings."""

from __future__ import annotations

import re

from core.agents.contracts import FilingInfo
from core.retrieval.routing import mentions_company
from core.text.figures import find_years
from core.text.sentences import STOPWORDS

# Topic -> Item, in priority order: a tie goes to the earlier (more specific) Item.
_TOPIC_ITEMS: list[tuple[str, re.Pattern[str]]] = [
    (
        "Item 7A",
        re.compile(
            r"market risk|interest rate risk|foreign (currenc|exchange)|exchange rate|hedg|basis point|sofr|libor"
            r"|sensitivity|hypothetical|adverse (move|change)|rising (interest )?rates|exposed to|exposure",
            re.I,
        ),
    ),
    (
        "Item 3",
        re.compile(r"legal|litigation|lawsuit|proceeding|settlement|allege|defendant|plaintiff", re.I),
    ),
    ("Item 1C", re.compile(r"cyber", re.I)),
    (
        "Item 1A",
        re.compile(r"risk|threat|uncertaint|vulnerab|dependen|single source|sole source|concentrat", re.I),
    ),
    # Properties before statements: "which properties does it lease" is Item 2, "lease liabilities" Item 8.
    ("Item 2", re.compile(r"propert|facilit|headquarter|office space", re.I)),
    (
        "Item 8",
        re.compile(
            r"balance sheet|income statement|statements? of (cash flows|operations|income)|financial statements?"
            r"|notes? to|goodwill|income tax|lease|debt|stock-based|share-based|inventor|depreciat|intangible",
            re.I,
        ),
    ),
    (
        "Item 7",
        re.compile(
            r"result|revenue|sales|segment|margin|liquidity|cash|capital resources|operating (income|expense)"
            r"|expense|r&d|research and development|growth|profit|income|earnings|outlook|performance",
            re.I,
        ),
    ),
    ("Item 5", re.compile(r"dividend|repurchase|buyback|stock price|holders of record", re.I)),
    (
        "Item 1",
        re.compile(
            r"competi|business|product|customer|supplier|manufactur|employee|strategy|compete|human capital",
            re.I,
        ),
    ),
    ("Item 11", re.compile(r"executive compensation", re.I)),
    ("Item 9A", re.compile(r"internal control|disclosure controls", re.I)),
]
_PREAMBLE_RE = re.compile(
    r"^\s*(?:from|in|according to|based on|using|per)\s+[^,?]{0,80}?(?:10-?k|filing|annual report|report)\b[^,?]*,\s*",
    re.I,
)
_QUESTION_WORDS = r"by how much|how|what|why|which|where|when|whether|who|assess|compare|find|list|describe|explain|evaluate|calculate|compute|identify|summari[sz]e|check|determine|estimate"
_SPLIT_RE = re.compile(
    rf";|\?\s+|\.\s+(?=[A-Z])|\bthen\b|,\s*(?:and\s+)?(?=(?:{_QUESTION_WORDS})\b)|\s+and\s+(?=(?:{_QUESTION_WORDS})\b)",
    re.I,
)
_LEADING_JUNK_RE = re.compile(r"^(?:\s|,|and\b|then\b|also\b|finally\b|next\b|first\b|second\b)+", re.I)
_COORD_RE = re.compile(
    r"\b(?!(?:its|their|the|our|his|her|a|an)\b)([\w&.-]+(?: [A-Z][\w&.-]*)?) and ([\w&.-]+(?: [A-Z][\w&.-]*)?) "
    r"(results|revenues?|expenses|costs|segments|margins|risks|sales|businesses|performance)\b"
)
_TIME_SENSITIVE_RE = re.compile(
    r"\b(latest|recent(ly)?|news|currently|current (events|news|price|valuation|market)|today"
    r"|this (year|quarter|month)|upcoming|announce(d|ments?)?|since the filing|after the filing)\b",
    re.I,
)
# Well-known issuers that a question may name although their filing is not selected.
_KNOWN_COMPANIES = [
    "AMD",
    "Intel",
    "Qualcomm",
    "Apple",
    "Microsoft",
    "Google",
    "Alphabet",
    "Amazon",
    "Meta",
    "Tesla",
    "Broadcom",
    "TSMC",
    "Samsung",
    "Arm",
    "Marvell",
    "Micron",
    "IBM",
    "Oracle",
    "Cisco",
    "Huawei",
    "Baidu",
    "Alibaba",
    "Tencent",
    "Netflix",
    "Walmart",
    "Costco",
    "Target",
    "Nike",
    "Adidas",
    "Boeing",
    "Airbus",
    "Pfizer",
    "Moderna",
    "Uber",
    "Lyft",
    "Salesforce",
    "Adobe",
    "Nvidia",
    "NVIDIA",
    "OpenAI",
    "Anthropic",
    "Cerebras",
    "Groq",
]
_KEYWORD_EXPANSIONS = {
    "r&d": ["research and development expenses"],
    "competition": ["competitors", "competitive"],
    "competitive": ["competitors"],
    "liquidity": ["cash", "capital resources"],
    "capex": ["capital expenditures"],
}
# Calculations need a quantity to compute on; "how they change those risks" is not one.
_METRIC_RE = re.compile(
    r"revenue|sales|income|earnings|margin|expense|cost|cash|assets|liabilit|debt|\beps\b|profit|capex"
    r"|capital expenditure|spend|headcount|price|dividend|r&d|research and development|\bshares?\b",
    re.I,
)
_GENERIC = {
    "result",
    "results",
    "relate",
    "affect",
    "impact",
    "change",
    "changes",
    "list",
    "does",
    "say",
    "assess",
    "find",
    "describe",
    "explain",
    "evaluate",
    "compare",
    "identify",
    "summarize",
    "summarise",
    "moves",
}


def _mentions(text: str, name: str) -> bool:
    return re.search(rf"\b{re.escape(name)}\b", text, re.I) is not None


# Joins a clause that points back at the one before it; pronouns after it are left alone.
MERGED = "; and"
_GIVEN_RE = re.compile(r"^(given|considering|in light of|because of)\s+", re.I)
_PRONOUN_RE = re.compile(r"\b(it|its|they|them|their|this|that|these|those)\b", re.I)


def _merge_dangling(clauses: list[str]) -> list[str]:
    """Clauses that only point back ("and what does it allege") join the clause they depend on;
    a "Given X" premise becomes a clause about X."""
    out: list[str] = []
    for clause in clauses:
        clause = _GIVEN_RE.sub("", clause)
        topic = item_for(clause)
        # A clause about another company stays apart: it may be searched on the web.
        outside = any(_mentions(clause, c) for c in _KNOWN_COMPANIES)
        dangling = topic is None and not _METRIC_RE.search(clause) and not outside
        if out and _PRONOUN_RE.search(clause) and (dangling or topic == item_for(out[-1])):
            out[-1] = f"{out[-1]}{MERGED} {clause[0].lower()}{clause[1:]}"
        else:
            out.append(clause)
    return out


def split_clauses(question: str) -> list[str]:
    """The question's clauses: split on ';', '?', 'then', and ', and how/what/...'; preamble dropped."""
    body = _PREAMBLE_RE.sub("", question.strip())
    parts = [_LEADING_JUNK_RE.sub("", p or "").strip(" ,.?!") for p in _SPLIT_RE.split(body)]
    clauses = [
        p for p in parts if len([w for w in re.findall(r"[\w&]+", p) if w.lower() not in STOPWORDS]) >= 1
    ]
    clauses = _merge_dangling(clauses)
    out: list[str] = []
    for clause in clauses:
        m = _COORD_RE.search(clause)
        if m and len(clause) < 160:
            head = m.group(3)
            out.append(clause[: m.start()] + f"{m.group(1)} {head}" + clause[m.end() :])
            out.append(clause[: m.start()] + f"{m.group(2)} {head}" + clause[m.end() :])
        else:
            out.append(clause)
    return out or [question.strip()]


def item_for(text: str) -> str | None:
    """The 10-K Item whose topics `text` matches best (ties go to the more specific Item)."""
    best, best_score = None, 0
    for item, pattern in _TOPIC_ITEMS:
        score = len(pattern.findall(text))
        if score > best_score:
            best, best_score = item, score
    return best


def keywords_for(clause: str, company: str | None) -> list[str]:
    words = re.findall(r"[A-Za-z][\w&.'’-]*", clause)
    keys: list[str] = []
    for word in words:
        w = word.rstrip(".").removesuffix("'s").removesuffix("’s")
        low = w.lower()
        if low in STOPWORDS or low in _GENERIC or len(w) < 2 or (company and low == company.lower()):
            continue
        keys.append(w)
        keys.extend(_KEYWORD_EXPANSIONS.get(low, []))
    # Keep multi-word proper names together ("Data Center") because BM25 and readers both benefit.
    joined = re.findall(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)+\b", clause)
    inside = {w for phrase in joined for w in phrase.split()}
    merged = list(dict.fromkeys([*joined, *(k for k in keys if k not in inside)]))
    return merged[:8]


def is_outside(clause: str, filings: list[FilingInfo]) -> bool:
    """A clause about something the selected filings cannot hold: a well-known company that is not one of
    them, recent news, or a fiscal year after the latest filing. A name the planner does not know is taken
    to be the filing's own company (a filing names itself in many ways)."""
    others = {
        c
        for c in _KNOWN_COMPANIES
        if _mentions(clause, c)
        and not any(mentions_company(c, f.company) or _mentions(f.company, c) for f in filings)
    }
    if others or _TIME_SENSITIVE_RE.search(clause):
        return True
    filing_years = [f.fiscal_year for f in filings if f.fiscal_year]
    return bool(filing_years) and any(y > max(filing_years) for y in find_years(clause))


def resolve_pronouns(clause: str, company: str | None) -> str:
    if not company:
        return clause
    if MERGED in clause:
        head, tail = clause.split(MERGED, 1)
        return resolve_pronouns(head, company) + MERGED + tail
    clause = re.sub(r"\bits\b", f"{company}'s", clause)
    return re.sub(r"\b(does|did|do|has|is) it\b", rf"\1 {company}", clause)


def as_question(clause: str) -> str:
    text = clause[0].upper() + clause[1:] if clause else clause
    if re.match(rf"^(?:{_QUESTION_WORDS})\b", text, re.I) and not re.match(
        r"^(list|find|describe|explain|assess|compare|evaluate|calculate|compute|identify|summari[sz]e|check|determine|estimate)\b",
        text,
        re.I,
    ):
        return text.rstrip(".") + "?"
    if not re.match(rf"^(?:{_QUESTION_WORDS}|is|are|does|do|did|was|were|has|have|can|will)\b", text, re.I):
        # A bare topic ("Northwind's dependence on one manufacturer") becomes a question about it.
        return f"What does the filing say about {clause.rstrip('?.')}?"
    return text.rstrip("?") + "."
