"""How a question reads for planning: its clauses, the 10-K Item each one discusses, its keywords, and whether
it asks about something outside the filings."""

from __future__ import annotations

import re

from core.agents.contracts import FilingInfo
from core.finance.formula import FormulaError
from core.finance.question import (
    ASKING_PREPOSITION,
    AUXILIARY_VERBS,
    DEFINITION_RE,
    IMPERATIVE_RE,
    PRONOUN_RE,
    QUESTION_WORDS,
    TIME_SENSITIVE_RE,
    asks_why,
    clause_texts,
    strip_instructions,
)
from core.finance.requests import ADJUSTED_RE, figure_requests, unknown_figure_phrases, weighs_two_figures
from core.finance.vocabulary import (
    item_for,
    line_item_mentions,
    metric_mentions,
    parts_named,
    qualifier_before,
    search_terms_for,
)
from core.retrieval.routing import mentions_company
from core.text.periods import LATEST_REPORT_RE, YEAR_TO_DATE_RE, find_time_expressions, fiscal_years
from core.text.tokens import FRAMING_WORDS, STOPWORDS, content_terms

_COORD_RE = re.compile(
    r"\b(?!(?:its|their|the|our|his|her|a|an)\b)([\w&.-]+(?: [A-Z][\w&.-]*)?) and ([\w&.-]+(?: [A-Z][\w&.-]*)?) "
    r"(results|revenues?|expenses|costs|segments|margins|risks|sales|businesses|performance)\b"
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
    "disclose",
    "discloses",
    "disclosed",
    "mention",
    "mentioned",
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


#: "does it", "did it", "is it": the company asked about, as the subject of its clause.
_COMPANY_ASKED_RE = re.compile(r"\b(?:does|did|do|has|is|was|will|can|could)\s+it$", re.I)

# Joins a clause that points back at the one before it; pronouns after it are left alone.
MERGED = "; and"
_GIVEN_RE = re.compile(r"^(given|considering|in light of|because of)\s+", re.I)


_COPULA = {"is", "are", "was", "were"}
_NP_WORD = r"[\w&.'’-]+"
#: "What government antitrust actions does Apple disclose …": what the clause asks about, before its verb.
_ASKED_THINGS_RE = re.compile(
    rf"^{ASKING_PREPOSITION}(?:what|which)\s+(?!{AUXILIARY_VERBS}\b)((?:{_NP_WORD}\s+){{0,5}}?{_NP_WORD})"
    rf"\s+{AUXILIARY_VERBS}\b",
    re.I,
)
#: "Where does the class action over … stand as of …": the clause's subject after its auxiliary verb.
_ASKED_SUBJECT_RE = re.compile(
    rf"^{ASKING_PREPOSITION}(?:what|where|how|when|why)\s+({AUXILIARY_VERBS})\s+(the\s+.+?)"
    r"(?=\s+(?:as of|in|at|on|during|since|after|before|by|for)\b|$)",
    re.I,
)
#: A pronoun standing for a thing (not the company asking, nor a possessive): "for it", "could they bring".
_THING_PRONOUN_RE = re.compile(r"\b(they|them|it)\b", re.I)
#: A clause naming its own subject ("how does the company describe its approach", "has NVIDIA accrued"):
#: its possessives are that subject's.
_OWN_SUBJECT_RE = re.compile(rf"\b{AUXILIARY_VERBS}\s+(?:the company|[A-Z][\w&.-]*)\b")


def _referent(clause: str) -> str | None:
    """What a later clause's "it" or "they" points back to in this clause: the things it asks about ("What
    government antitrust actions does Apple disclose" -> "the government antitrust actions") or its subject
    ("Where does the class action over X stand" -> "the class action over X"); None when unclear."""
    things = _ASKED_THINGS_RE.match(clause)
    if things and content_terms(things.group(1)):
        return f"the {things.group(1)}"
    subject = _ASKED_SUBJECT_RE.match(clause)
    if not subject:
        return None
    words = subject.group(2).split()
    if subject.group(1).lower() not in _COPULA:
        words = words[:-1]  # the clause's verb ("stand", "rule")
    if len(words) < 2 or words[-1].lower() in STOPWORDS:
        return None
    return " ".join(words)


def _resolve_to_previous(clause: str, previous: str) -> str | None:
    """The clause with each pronoun that points back resolved ("and what penalties could they bring" ->
    "and what penalties could the government antitrust actions bring"), or None when one stays unclear.
    "does it" asked of the company and a possessive after the clause's own subject are left as they are."""
    own_subject = _OWN_SUBJECT_RE.search(clause)
    for m in PRONOUN_RE.finditer(clause):
        word = m.group(0).lower()
        if word in ("its", "their") and own_subject and own_subject.end() <= m.start():
            continue
        if word == "it" and _COMPANY_ASKED_RE.search(clause[: m.end()]):
            return None  # "what does it allege": the company or the thing before; merged as before
        if not _THING_PRONOUN_RE.fullmatch(word):
            return None
    referent = _referent(previous)
    if referent is None:
        return None if _THING_PRONOUN_RE.search(clause) else clause
    return _THING_PRONOUN_RE.sub(referent, clause)


def _merge_dangling(clauses: list[str]) -> list[str]:
    """Clauses that only point back ("and what does it allege") join the clause they depend on, unless their
    pronouns resolve to what the clause before asked about (then the clause stands alone with it named);
    a "Given X" premise becomes a clause about X."""
    out: list[str] = []
    for clause in clauses:
        clause = _GIVEN_RE.sub("", clause)
        resolved = _resolve_to_previous(clause, out[-1]) if out and PRONOUN_RE.search(clause) else None
        if resolved is not None:
            out.append(resolved)
            continue
        topic = item_for(clause)
        # A clause about another company stays apart: it may be searched on the web.
        outside = any(_mentions(clause, c) for c in _KNOWN_COMPANIES)
        dangling = topic is None and not _METRIC_RE.search(clause) and not outside
        # "… and on what factors does it compete?": a clause of its own whose only pronoun is the company
        # asking ("does it"); it stays apart, its "it" resolved to the company.
        of_company = all(
            m.group(0).lower() == "it" and _COMPANY_ASKED_RE.search(clause[: m.end()])
            for m in PRONOUN_RE.finditer(clause)
        )
        if (
            out
            and PRONOUN_RE.search(clause)
            and (dangling or (topic == item_for(out[-1]) and not of_company))
        ):
            out[-1] = f"{out[-1]}{MERGED} {clause[0].lower()}{clause[1:]}"
        else:
            out.append(clause)
    return out


#: A change named without what changed ("what drove the increase?", "why did it fall?").
_BARE_CHANGE_RE = re.compile(
    r"\b(?:the|this|that)\s+(?:increase|decrease|rise|decline|growth|change|drop|improvement|fall|jump)\b"
    r"|\b(?:drove|drive|drives|caused?|explains?|behind)\s+(?:it|this|that)\b|\bdid it\s+\w+",
    re.I,
)


def figure_named(clause: str) -> str | None:
    """The figure a clause asks about, by the name a search finds it by ("research and development expense")."""
    mentions = [*metric_mentions(clause), *line_item_mentions(clause)]
    if mentions:
        first = min(mentions, key=lambda m: m.start)
        qualifier = qualifier_before(clause, first.start)
        if not qualifier and ADJUSTED_RE.search(clause[: first.start]):
            qualifier = "adjusted"  # the company's own measure ("adjusted EBITDA")
        if not qualifier and len(named := parts_named(clause)) == 1:
            qualifier = named[0]  # the part a heading names ("Apple FY2024 Services: revenue, … why it grew")
        return f"{qualifier} {first.entry.name}" if qualifier else first.entry.name
    unknown = unknown_figure_phrases(clause)
    return unknown[0] if unknown else None


def _with_subjects(clauses: list[str]) -> list[str]:
    """Each why-clause that names a change but not what changed gets the figure of the clause before it:
    "What drove the increase?" after "How much did it spend on R&D" asks what drove the increase in research
    and development expense."""
    out: list[str] = []
    for clause in clauses:
        bare = _BARE_CHANGE_RE.search(clause)
        if out and bare and asks_why(clause) and figure_named(clause) is None:
            subject = next((f for f in map(figure_named, reversed(out)) if f), None)
            if subject:
                change = bare.group()
                if re.match(r"(?:the|this|that)\s", change, re.I):
                    clause = f"{clause[: bare.end()]} in {subject}{clause[bare.end() :]}"
                else:
                    clause = re.sub(r"\b(it|this|that)\b", subject, clause, count=1)
        out.append(clause)
    return out


def split_clauses(question: str) -> list[str]:
    """The question's clauses: split on ';', '?', 'then', and ', and how/what/...'; preamble dropped."""
    clauses: list[str] = []
    for part in clause_texts(question):
        if len([w for w in re.findall(r"[\w&]+", part) if w.lower() not in STOPWORDS | FRAMING_WORDS]) >= 1:
            clauses.append(part)
        elif clauses and asks_why(part):
            clauses[-1] = f"{clauses[-1]} and {part}"  # "… what was it and why?": why it was, not a clause

    clauses = _with_subjects(_merge_dangling(clauses))
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


#: Up to three words joined to a figure's name by "and"/"or" ("debt structure or interest expenses").
_CONJUNCT = r"[A-Za-z][\w&'’-]*(?:\s+[A-Za-z][\w&'’-]*){0,2}"
_BEFORE_FIGURE_RE = re.compile(rf"({_CONJUNCT})(\s+(?:and|or)\s+)$")
_AFTER_FIGURE_RE = re.compile(rf"^(\s+(?:and|or)\s+)({_CONJUNCT})")


def _topic_beside_figure(clause: str) -> str | None:
    """The clause asked of what it joins to a figure by "and"/"or" when that is no figure: "What changes in
    debt structure or interest expenses did Apple disclose" also asks "What changes in debt structure did
    Apple disclose", a topic to read about that the figure steps do not answer. None when every conjunct is
    a figure (or a company, a period, a word that only frames the question)."""
    # A parenthesis says where or how ("D&A (from cash flow statement)"); a definition says how to compute.
    bare = re.sub(r"\s*\([^)]*\)", "", clause)
    if DEFINITION_RE.search(bare):
        return None
    try:
        requests = figure_requests(bare, None)
    except FormulaError:
        return None
    figure_words = {t for r in requests for t in content_terms(f"{r.name} {r.formula}")}
    mentions = [*metric_mentions(bare), *line_item_mentions(bare)]

    def a_topic(words: str) -> bool:
        # Whose it is ("Intel's") and when are not what it is.
        words = re.sub(r"\b[\w&.-]+['’]s\b", " ", words)
        terms = [t for t in content_terms(words) if t not in _GENERIC and not fiscal_years(t)]
        named = [*metric_mentions(words), *line_item_mentions(words)]
        # A figure's word with a word of its own is a topic about the figure ("debt structure" beside total
        # debt: its instruments and maturities); the figure's words alone are the figure.
        return bool(set(terms) - figure_words) and not named

    for m in mentions:
        before = _BEFORE_FIGURE_RE.search(bare[: m.start])
        if before and a_topic(before.group(1)):
            return f"{bare[: before.start(2)]}{bare[m.end :]}".strip()
        after = _AFTER_FIGURE_RE.match(bare[m.end :])
        if after and a_topic(after.group(2)):
            return f"{bare[: m.start]}{after.group(2)}{bare[m.end + after.end() :]}".strip()
    return None


def _asks_known_figures(clause: str) -> bool:
    """The clause asks for figures the vocabulary knows (or defines), and not why."""
    if asks_why(clause):
        return False
    try:
        requests = figure_requests(clause, None)
    except FormulaError:
        return False
    return bool(requests) and all(r.line_items or r.defined_in_question for r in requests)


def clause_asks_only_for_figures(clause: str) -> bool:
    """True when the clause asks only for figures the vocabulary knows, and not why (a figure in other words
    may be stated in prose, "how many employees": its passages are searched too), nor about a topic beside
    them ("debt structure or interest expenses")."""
    return _asks_known_figures(clause) and _topic_beside_figure(clause) is None


def topic_beside_figures(clause: str) -> str | None:
    """What a clause that asks for known figures also asks about, as a clause of its own (see
    `_topic_beside_figure`); None when it asks for nothing else or is no figure clause."""
    return _topic_beside_figure(clause) if _asks_known_figures(clause) else None


def asks_beyond_figures(question: str) -> bool:
    """A clause of the question asks for something no figure answers (risks, strategy, who, which, why); not
    one that weighs the question's figures against each other ("Did it earn more than it paid?"), an
    instruction ("Answer using the cash flow statement") or a definition ("X is defined as …")."""
    need, _ = strip_instructions(question)
    return any(
        (not figure_requests(clause) and not weighs_two_figures(clause)) or topic_beside_figures(clause)
        for clause in clause_texts(need)
        if clause.strip() and not DEFINITION_RE.search(clause) and not names_only_a_period(clause)
    )


def names_only_a_period(clause: str) -> bool:
    """A clause that only says when ("In the latest quarter, …", "For fiscal 2023") or only points back ("If
    so"): it asks for nothing. "… and why?" asks why."""
    if asks_why(clause):
        return False
    rest = clause
    for expression in find_time_expressions(clause)[0]:
        rest = rest.replace(expression, " ")
    return not content_terms(rest)


def keywords_for(clause: str, company: str | None) -> list[str]:
    words = re.findall(r"[A-Za-z][\w&.'’-]*", clause)
    keys: list[str] = []
    for word in words:
        w = word.rstrip(".").removesuffix("'s").removesuffix("’s")
        low = w.lower()
        if (
            low in STOPWORDS
            or low in FRAMING_WORDS
            or low in _GENERIC
            or len(w) < 2
            or (company and low == company.lower())
        ):
            continue
        keys.append(w)
        keys.extend(search_terms_for(w))
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
    # "The latest 10-Q" is a report of the library, not news; so is "so far this year" asked of a quarterly
    # report (its year to date).
    own = LATEST_REPORT_RE.sub(" ", clause)
    if any(f.fiscal_quarter for f in filings):
        own = YEAR_TO_DATE_RE.sub(" ", own)
    if others or TIME_SENSITIVE_RE.search(own):
        return True
    filing_years = [f.fiscal_year for f in filings if f.fiscal_year]
    return bool(filing_years) and any(y > max(filing_years) for y in fiscal_years(clause))


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
    if re.match(rf"^{ASKING_PREPOSITION}(?:{QUESTION_WORDS})\b", text, re.I) and not IMPERATIVE_RE.match(
        text
    ):
        return text.rstrip(".") + "?"
    if not re.match(
        rf"^{ASKING_PREPOSITION}(?:{QUESTION_WORDS}|{AUXILIARY_VERBS})\b",
        text,
        re.I,
    ):
        # A bare topic ("Northwind's dependence on one manufacturer") becomes a question about it.
        return f"What does the filing say about {clause.rstrip('?.')}?"
    # "Has NVIDIA accrued anything …?" is a question too; an imperative ("Calculate …") is a request.
    return text.rstrip("?.") + ("." if IMPERATIVE_RE.match(text) else "?")
