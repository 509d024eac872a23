"""Planner agent: splits a question into research steps (rule-based offline, or an LLM)."""

from __future__ import annotations

import re

from core.agents.base import AgentDeps
from core.agents.contracts import DraftStep, FilingInfo, PlanDraft, PlannerInput
from core.agents.plan_tools import FIGURE_REASON, finalise_plan
from core.agents.structured import LLMOutputError, structured_call
from core.finance.formula import FormulaError, operands, parse_formula
from core.finance.lexicon import STATEMENT_SEARCH_TERMS, STATEMENT_TITLES, LineItem
from core.finance.periods import fiscal_years
from core.finance.requests import FigureRequest, asks_why, figure_requests, unit_asked
from core.models import Plan
from core.prompts import PLANNER_HUMAN, PLANNER_SYSTEM
from core.retrieval.analysis import strip_instructions
from core.retrieval.routing import company_forms, mentions_company
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


def _keywords(clause: str, company: str | None) -> list[str]:
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


def _is_outside(clause: str, filings: list[FilingInfo]) -> bool:
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


def _resolve_pronouns(clause: str, company: str | None) -> str:
    if not company:
        return clause
    if MERGED in clause:
        head, tail = clause.split(MERGED, 1)
        return _resolve_pronouns(head, company) + MERGED + tail
    clause = re.sub(r"\bits\b", f"{company}'s", clause)
    return re.sub(r"\b(does|did|do|has|is) it\b", rf"\1 {company}", clause)


def _as_question(clause: str) -> str:
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


def offline_plan(inputs: PlannerInput, deps: AgentDeps) -> Plan:
    """Rule-based plan, decomposed the way an analyst would: for each filing in scope, the statements that
    report the figures asked for and a calculator step that computes them with cited inputs; then the
    narrative parts of the question, each in the Item that discusses it; the web only for what is outside
    the filings. (The graph puts the anchor step, the question as asked, in front of every plan.)"""
    need, _ = strip_instructions(inputs.question)
    scope = filings_in_scope(need, inputs.filings)
    figure_steps = figure_plan_steps(inputs)
    narrative = _narrative_steps(need, inputs.filings, scope, has_figures=bool(figure_steps))
    steps = _within_room(figure_steps, narrative, inputs.max_steps)
    if not steps:
        steps = [
            DraftStep(
                sub_question=_as_question(need.strip(" ?.")),
                keywords=_keywords(need, None),
                document_section=item_for(need),
                filing_id=scope[0].filing_id if len(scope) == 1 else None,
            )
        ]
    tools = ", ".join(sorted({s.tool for s in steps}))
    names = ", ".join(_short_name(f) for f in scope) or "the selected filings"
    rationale = (
        f"Rule-based plan over {names}: {len(steps)} step(s) ({tools}); figures are read from the financial "
        "statements and computed with their inputs cited."
    )
    return finalise_plan(PlanDraft(steps=steps, rationale=rationale), inputs.filings, inputs.max_steps)


#: Steps the planners leave free for reflection's follow-ups (and the anchor step).
RESERVED_FOR_REFLECTION = 3


def figure_plan_steps(inputs: PlannerInput) -> list[DraftStep]:
    """For each filing in scope, the statement searches that report the figures the question asks for and
    the calculator step that computes them (none when it asks for no figure)."""
    need, _ = strip_instructions(inputs.question)
    scope = filings_in_scope(need, inputs.filings)
    return [s for f in scope for s in _figure_steps(need, inputs.question, f, single=len(scope) == 1)]


def _within_room(figure_steps: list[DraftStep], others: list[DraftStep], max_steps: int) -> list[DraftStep]:
    """Figure steps first, then the others, leaving room in the budget for reflection and the anchor."""
    room = max(2, max_steps - RESERVED_FOR_REFLECTION)
    return (figure_steps + others)[:room] if len(figure_steps) < room else figure_steps[:room]


_DEFINITION_RE = re.compile(r"\b(defined|define|calculated|computed) as\b", re.I)


_EACH_RE = re.compile(r"\b(each of them|each|both|either|they|them)\b", re.I)


def _without_company(text: str, company: str) -> str:
    """`text` with the company's name (in its usual forms, possessive included) replaced by 'the company'."""
    for form in company_forms(company):
        text = re.sub(rf"(?<![\w&]){re.escape(form)}(?:['’]s?)?(?![\w&])", "the company", text, flags=re.I)
    return text


def _asks_for_figures(clause: str) -> bool:
    try:
        return bool(figure_requests(clause, None))
    except FormulaError:
        return False


def _short_name(filing: FilingInfo) -> str:
    forms = company_forms(filing.company)
    year = f" FY{filing.fiscal_year}" if filing.fiscal_year else ""
    return (forms[0] if forms else filing.label) + year


def filings_in_scope(question: str, filings: list[FilingInfo]) -> list[FilingInfo]:
    """The filings a question is about: those whose company it names (narrowed to the fiscal years it
    names when a company has several filings), or every selected filing when it names none."""
    named = [f for f in filings if mentions_company(question, f.company)]
    scope = named or list(filings)
    years = set(fiscal_years(question))
    if years and len(scope) > 1:
        in_years = [f for f in scope if f.fiscal_year in years]
        companies = {f.company for f in scope}
        # Keep one filing per company at least: a year can be reported in the next year's filing.
        if in_years and {f.company for f in in_years} == companies:
            scope = in_years
    return scope


def _request_question(request: FigureRequest) -> str:
    """A calculator sub-question that names the request so the calculator reads it back exactly."""
    years = " and ".join(f"FY{y}" for y in request.years)
    how = {"change": " and how it changed", "cagr": " and its compound annual growth"}.get(
        request.aggregate or "", ""
    )
    lead = f"the {len(request.years)}-year average of " if request.aggregate == "average" else ""
    unit = f" (in USD {request.unit_asked})" if request.unit_asked else ""
    if request.defined_in_question:
        return (
            f"What is {lead}the {request.name} for {years}{how}{unit}? "
            f"{request.name} is defined as: {request.formula}."
        )
    if request.formula == request.name:
        return f"What is {lead}the {request.name} amount for {years}{how}{unit}?"
    return f"What is {lead}the {request.name} for {years}{how}{unit}?"


def _figure_steps(need: str, question: str, filing: FilingInfo, *, single: bool) -> list[DraftStep]:
    """Statement searches for the line items the requested figures need, then one calculator step each."""
    try:
        # The company's own name is not a segment: "How much did American Water Works pay in dividends".
        requests = figure_requests(_without_company(need, filing.company), filing.fiscal_year)
    except FormulaError:
        return []
    if not requests:
        return []
    unit = unit_asked(question)
    name = _short_name(filing).rsplit(" FY", 1)[0]
    steps: list[DraftStep] = []
    by_statement: dict[str, list[LineItem]] = {}
    unknown: list[str] = []
    segments: list[str] = []  # line items of a segment or product, reported in MD&A and segment notes
    years: set[int] = set()
    for request in requests:
        request.unit_asked = request.unit_asked or unit
        years.update(request.years)
        tree = parse_formula(request.formula)
        for operand in operands(tree):
            years.update(y for y in operand.resolved(max(request.years)).years if isinstance(y, int))
            if operand.qualifier:
                segments.append(operand.phrase)
            elif operand.item is None:
                unknown.append(operand.phrase)
            else:
                by_statement.setdefault(operand.item.statement, []).append(operand.item)
    year_text = ", ".join(f"FY{y}" for y in sorted(years))

    def search(what: list[str], keywords: list[str], section: str | None, reason: str) -> DraftStep:
        return DraftStep(
            sub_question=f"{name} {', '.join(dict.fromkeys(what))}{where} for {year_text}",
            keywords=list(dict.fromkeys(keywords))[:8],
            document_section=section,
            filing_id=filing.filing_id,
            reason=reason,
        )

    for statement, items in by_statement.items():
        items = list(dict.fromkeys(items))
        where = f" in the {STATEMENT_TITLES[statement]}"
        keywords = [STATEMENT_SEARCH_TERMS[statement], *(i.search_terms for i in items)]
        steps.append(search([i.name for i in items], keywords, "Item 8", f"{FIGURE_REASON} from{where[3:]}"))
    where = ""
    if segments:  # a segment's or product's figures are reported in MD&A and the segment notes
        steps.append(
            search(segments, segments, None, f"{FIGURE_REASON} (segment figures: MD&A and the notes)")
        )
    if unknown:
        steps.append(search(unknown, unknown, "Item 8", FIGURE_REASON))
    # One calculator step per defined metric (its definition must travel with it); the other figures of
    # the filing are computed together by one step.
    groups = [[r] for r in requests if r.defined_in_question] + (
        [[r for r in requests if not r.defined_in_question]]
        if any(not r.defined_in_question for r in requests)
        else []
    )
    for group in groups:
        steps.append(
            DraftStep(
                sub_question=" ".join(_request_question(r) for r in group),
                tool="calculator",
                keywords=[],
                filing_id=filing.filing_id,
            )
        )
    return steps


def _narrative_steps(
    need: str, filings: list[FilingInfo], scope: list[FilingInfo], *, has_figures: bool
) -> list[DraftStep]:
    """Clauses that ask for text (risks, drivers, descriptions), one step per clause and filing in scope."""
    steps: list[DraftStep] = []
    latest = max((f.fiscal_year for f in filings if f.fiscal_year), default=None)
    years = [y for y in fiscal_years(need) if latest is None or y <= latest]
    for clause in split_clauses(need):
        if _DEFINITION_RE.search(clause):
            continue  # "X is defined as ..." tells the calculator how, it is nothing to search for
        if _is_outside(clause, filings):
            steps.append(
                DraftStep(
                    sub_question=_as_question(clause), tool="search_web", keywords=_keywords(clause, None)
                )
            )
            continue
        if has_figures and not asks_why(clause) and _asks_for_figures(clause):
            continue  # the figure steps answer it
        if years and not fiscal_years(clause):
            # The question's period holds for each of its parts: "... in fiscal 2023, and how many employees".
            clause = f"{clause.rstrip(' ?.')} in fiscal {' and '.join(map(str, years))}"
        named = [f for f in scope if mentions_company(clause, f.company)] or scope
        for filing in named:
            company = _short_name(filing).rsplit(" FY", 1)[0]
            text = _resolve_pronouns(clause, company)
            if len(named) > 1 and not mentions_company(text, filing.company):
                # "how many employees did each have" -> "how many employees did Apple have"
                text, replaced = _EACH_RE.subn(company, text, count=1)
                if not replaced:
                    text = f"{text} ({company})"
            item = item_for(text)
            if has_figures and item in (None, "Item 8"):
                item = "Item 7"  # what drove a figure is discussed in MD&A
            steps.append(
                DraftStep(
                    sub_question=_as_question(text),
                    keywords=_keywords(text, company),
                    document_section=item,
                    filing_id=filing.filing_id,
                )
            )
    return steps


def llm_plan(inputs: PlannerInput, deps: AgentDeps) -> Plan:
    """LLM plan through structured output; raises when the model's plan is empty or invalid."""
    filings = "\n".join(f"- {f.filing_id}: {f.label}" for f in inputs.filings) or "- (none selected)"
    draft = structured_call(
        deps,
        PLANNER_SYSTEM,
        PLANNER_HUMAN,
        {"max_steps": inputs.max_steps, "filings": filings, "question": inputs.question},
        PlanDraft,
    )
    if not draft.steps:
        raise LLMOutputError("the model returned a plan with no steps")
    figure_steps = figure_plan_steps(inputs)
    if figure_steps:
        # A figure the question asks for is read from the statements and computed from cited inputs the
        # way the offline planner does, whatever the model planned for it: its own calculator steps give
        # way to these, its other steps follow.
        others = [s for s in draft.steps if s.tool != "calculator"]
        draft = draft.model_copy(update={"steps": _within_room(figure_steps, others, inputs.max_steps)})
    plan = finalise_plan(draft, inputs.filings, inputs.max_steps)
    if not plan.steps:
        raise LLMOutputError("the model returned a plan with no steps")
    return plan
