"""Planner agent: splits a question into research steps (rule-based offline, or an LLM)."""

from __future__ import annotations

import re

from core.agents.base import AgentDeps
from core.agents.contracts import DraftStep, FilingInfo, PlanDraft, PlannerInput
from core.agents.plan_tools import finalise_plan
from core.agents.structured import LLMOutputError, structured_call
from core.models import Plan
from core.prompts import PLANNER_HUMAN, PLANNER_SYSTEM
from core.tools.calculation_step import detect_operation
from core.tools.figures import find_years
from core.tools.sentences import STOPWORDS

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
    ("Item 2", re.compile(r"propert|facilit|headquarter|office space", re.I)),
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
    r"\b(latest|recent(ly)?|news|current(ly)?|today|this (year|quarter|month)|upcoming|announce(d|ments?)?"
    r"|since the filing|after the filing)\b",
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


def _company_names(filings: list[FilingInfo]) -> list[str]:
    names = []
    for f in filings:
        words = re.sub(r"[,.]", " ", f.company).split()
        if words:
            names.append(words[0])
    return names


def _mentions(text: str, name: str) -> bool:
    return re.search(rf"\b{re.escape(name)}\b", text, re.I) is not None


def _scope_company(question: str, filings: list[FilingInfo]) -> str | None:
    for name in _company_names(filings):
        if _mentions(question, name):
            m = re.search(rf"\b{re.escape(name)}\b", question, re.I)
            return m.group(0) if m else name
    names = _company_names(filings)
    return names[0] if len(names) == 1 else None


_HYPOTHETICAL_RE = re.compile(r"\b(would|could|if|hypothetical|sensitivity)\b", re.I)
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
        dangling = topic is None and not _METRIC_RE.search(clause)
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
    own = {n.lower() for n in _company_names(filings)}
    others = {c for c in _KNOWN_COMPANIES if c.lower() not in own and _mentions(clause, c)}
    possessives = {
        m.group(1)
        for m in re.finditer(r"\b([A-Z][A-Za-z0-9&]+)['’]s\b", clause)
        if m.group(1).lower() not in own and m.start() > 0
    }
    if others or (possessives - {"Item"}):
        return True
    if _TIME_SENSITIVE_RE.search(clause):
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


_OPERATION_WORDS_RE = re.compile(
    r"^(how (much )?(did|does|do|has|have|was|were|is|are)|what (was|were|is|are)( the)?|by how much( did)?"
    r"|calculate|compute)\s+|\b(change[ds]?|grow(th)?|grew|increase[ds]?|decrease[ds]?|rate|ratio|difference)\b",
    re.I,
)


def _metric_phrase(clause: str, company: str | None) -> str:
    """'How did Northwind's Fleet Software revenue change in FY2025' -> 'Fleet Software revenue in FY2025'."""
    text = _OPERATION_WORDS_RE.sub(" ", clause)
    if company:
        text = re.sub(rf"\b{re.escape(company)}(['’]s)?\s*", "", text, flags=re.I)
    text = re.sub(r"\s+", " ", text).strip(" ?.,")
    return text or clause


def offline_plan(inputs: PlannerInput, deps: AgentDeps) -> Plan:
    """Rule-based plan: clauses become steps, routed to the filing Item, the web or the calculator."""
    company = _scope_company(inputs.question, inputs.filings)
    single_filing = inputs.filings[0].filing_id if len(inputs.filings) == 1 else None
    steps: list[DraftStep] = []
    for clause in split_clauses(inputs.question):
        text = _resolve_pronouns(clause, company)
        keywords = _keywords(text, company)
        filing_id = single_filing or next(
            (f.filing_id for f in inputs.filings if _mentions(text, _company_names([f])[0])), None
        )
        if _is_outside(clause, inputs.filings):
            steps.append(DraftStep(sub_question=_as_question(text), tool="search_web", keywords=keywords))
            continue
        operation = detect_operation(text)
        # "What would a 100 bp rise do" is a sensitivity the filing states, not a change to compute.
        if operation and _METRIC_RE.search(text) and not _HYPOTHETICAL_RE.search(text):
            steps.append(
                DraftStep(
                    sub_question=f"What figures does the filing report for {_metric_phrase(text, company)}?",
                    keywords=keywords,
                    document_section=item_for(text) or "Item 7",
                    filing_id=filing_id,
                )
            )
            steps.append(DraftStep(sub_question=_as_question(text), tool="calculator", keywords=keywords))
            continue
        steps.append(
            DraftStep(
                sub_question=_as_question(text),
                keywords=keywords,
                document_section=item_for(text),
                filing_id=filing_id,
            )
        )
    tools = ", ".join(sorted({s.tool for s in steps}))
    rationale = f"Rule-based plan: {len(steps)} clause(s) of the question, each routed to one tool ({tools})."
    return finalise_plan(PlanDraft(steps=steps, rationale=rationale), inputs.filings, inputs.max_steps)


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
    plan = finalise_plan(draft, inputs.filings, inputs.max_steps)
    if not plan.steps:
        raise LLMOutputError("the model returned a plan with no steps")
    return plan
