"""Query analysis: separate the information need from instruction boilerplate and read its signals."""

from __future__ import annotations

import re

from core.finance.formula import FormulaError
from core.finance.requests import figure_requests
from core.finance.rows import statement_kind
from core.index.tokenizer import normalize_number, tokenize
from core.models import ITEM_NUMBER, ITEM_TITLES, QueryAnalysis
from core.retrieval.lexicon import (
    ABSTRACT_WORDS,
    FINANCE_TERMS,
    ITEM_TOPICS,
    METRIC_LINE_ITEMS,
    NON_ENTITY_CAPS,
    RISK_WORDS,
    STATEMENT_NAMES,
)
from core.text.sentences import split_sentences

# --- instruction boilerplate ----------------------------------------------------------------

# A clause is an instruction (how to answer, not what to find) when it matches any of these.
_INSTRUCTION_RES = [
    re.compile(p, re.IGNORECASE)
    for p in [
        r"^(please\s+)?(round|answer|respond|give|provide|address|approach|utili[sz]e|base|assume|assuming)\b",
        r"^(please\s+)?(compute|calculate)\s+(\(or extract\)|or extract|what was asked|the answer"
        r"|your answer)",
        r"^(please\s+)?use\s+(the|only|information|details|data)\b",
        r"\bround(ed|ing)?\s+(your\s+|the\s+|final\s+)*(answer|result|response)\b|\bround to\b",
        r"\banswer in\b|\bin units of\b|\bexpressed in\b|\bto (one|two|three|\d) decimal",
        r"\bas if you (are|were)\b|\b(perspective|standpoint|role) of an?\b|\bassum(e|ing) (that )?you\b",
        r"\byou are an?\b|\bact as\b",
        r"\bif\b.*\bnot\b.*\b(useful|relevant|meaningful|applicable|explicitly|available|outlined)\b"
        r".*\b(state|explain|say|answer)\b",
        r"\bthen (please\s+)?state\b|\bstate that and explain\b",
        r"\bwe (want|need|would like) to (calculate|compute|know|find)\b|\bplease help\b",
        r"\bhere'?s the question\b|\bthe question is\b",
        r"\b(relying|rely|based|basing|focusing|focus)\s+(your \w+\s+)?(on|by|upon)\s+(the\s+)?"
        r"(details|information|data|line items|figures)\b",
        r"\b(only|primarily) (have access|has access|use|using|utili[sz]ing|rely)\b",
        r"\blost (your )?internet\b|\bmetric providers\b",
        r"\b(details|information|data|line items)\s+(clearly\s+|plainly\s+)?"
        r"(shown|outlined|provided|displayed|presented|stated)\b",
    ]
]

# Parentheticals about units or rounding, e.g. "(in USD millions)".
_UNIT_PARENS = re.compile(
    r"\(\s*(?:in\s+(?:usd|us\$|\$|dollars|units|millions|billions|thousands|percent)|round|as a %|in %)"
    r"[^()]*\)",
    re.IGNORECASE,
)
_QUESTION_START = (
    r"(?:what|which|who|how|when|where|why|is|are|does|did|do|has|have|was|were|can|could|list|describe"
    r"|explain|identify)\b"
)
_COLON_QUESTION = re.compile(rf"^(?P<lead>.+?):\s*(?P<rest>{_QUESTION_START}.*)$", re.IGNORECASE | re.DOTALL)
_LEAD_CLAUSE = re.compile(
    rf"^(?P<lead>[^,?]{{8,}}),\s*(?P<rest>{_QUESTION_START}.*)$", re.IGNORECASE | re.DOTALL
)


def is_instruction(clause: str) -> bool:
    """True when a clause tells how to answer rather than what to find."""
    text = clause.strip()
    return any(rx.search(text) for rx in _INSTRUCTION_RES)


def strip_instructions(query: str) -> tuple[str, list[str]]:
    """The information need of a query and the instruction clauses removed from it."""
    removed: list[str] = []
    kept: list[str] = []
    for sentence in split_sentences(" ".join(query.split())):
        if kept and not kept[-1].endswith((".", "?", "!", ";")):
            kept[-1] += ";"  # clauses of one sentence stay apart, so a planner can split them again
        colon = _COLON_QUESTION.match(sentence)
        if colon and (
            is_instruction(colon.group("lead")) or re.search(r"\bquestion\b", colon.group("lead"), re.I)
        ):
            removed.append(colon.group("lead"))
            sentence = colon.group("rest")
        for clause in re.split(r";\s*", sentence):
            clause = _strip_unit_parens(clause, removed)
            lead = _LEAD_CLAUSE.match(clause)
            if lead and (is_instruction(lead.group("lead")) or STATEMENT_NAMES.search(lead.group("lead"))):
                removed.append(lead.group("lead"))
                clause = lead.group("rest")
            if is_instruction(clause):
                removed.append(clause)
            elif clause.strip(" .;,"):
                if kept and not kept[-1].endswith((".", "?", "!", ";")):
                    kept[-1] += ";"
                kept.append(clause.strip())
    core = " ".join(kept).strip()
    if not core:  # everything looked like an instruction: better the whole query than nothing
        return " ".join(query.split()), []
    core = core[0].upper() + core[1:]
    return core, removed


def _strip_unit_parens(clause: str, removed: list[str]) -> str:
    removed.extend(m.group() for m in _UNIT_PARENS.finditer(clause))
    return re.sub(r"\s{2,}", " ", _UNIT_PARENS.sub("", clause)).replace(" ?", "?").strip()


# --- time expressions -----------------------------------------------------------------------

_TIME_RES = [
    re.compile(p, re.IGNORECASE)
    for p in [
        r"\bQ[1-4]\s*(?:of\s+)?(?:FY\s?|fiscal\s+)?'?(?P<y>\d{4}|\d{2})\b",
        r"\bFY\s?'?(?P<y>\d{4}|\d{2})(?:\s?Q[1-4])?\b",
        r"\bfiscal(?:\s+year)?\s+'?(?P<y>\d{4}|\d{2})\b",
        r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2},?\s+(?P<y>\d{4})\b",
        r"\b(?:first|second|third|fourth)\s+quarter(?:\s+of)?(?:\s+fiscal)?(?:\s+(?P<y>\d{4}))?\b",
        r"\b(?:latest|most recent|recent|current|last|prior|previous)\s+(?:fiscal\s+)?"
        r"(?:year|quarter|period)\b",
        r"\b(?:latest|most recent)\b",
        r"\b(?:year[- ]over[- ]year|trailing twelve months|ttm)\b",
        r"\b(?P<y>(?:19[5-9]|20[0-4])\d)\b",
    ]
]


def find_time_expressions(text: str) -> tuple[list[str], list[int]]:
    """Time expressions in order of appearance and the fiscal years they name (sorted)."""
    spans: list[tuple[int, int, str]] = []
    years: set[int] = set()
    for rx in _TIME_RES:
        for m in rx.finditer(text):
            if any(s <= m.start() < e or s < m.end() <= e for s, e, _ in spans):
                continue  # already covered by a more specific expression
            spans.append((m.start(), m.end(), m.group()))
            if m.groupdict().get("y"):
                raw = m.group("y")
                years.add(int(raw) if len(raw) == 4 else 2000 + int(raw))
    spans.sort()
    return list(dict.fromkeys(s for _, _, s in spans)), sorted(years)


# --- entities, numbers, quotes --------------------------------------------------------------

_CAP_SPAN = re.compile(
    r"(?<![\w'])(?:[A-Z0-9][\w&.'’-]*[A-Za-z0-9&]|[A-Z])(?:\s+(?:of|&|and|de)?\s*(?:[A-Z][\w&.'’-]*[A-Za-z0-9&]))*"
)
_QUOTED = re.compile(r"\"([^\"]{2,80})\"|“([^”]{2,80})”|‘([^’]{2,80})’")
_NUMBER = re.compile(r"\$?\(?\d[\d,]*(?:\.\d+)?%?")
_ITEM_REF = re.compile(rf"\bitem\s+({ITEM_NUMBER})\b", re.IGNORECASE)
_FORM_TOKEN = re.compile(r"^(?:10-?K|10-?Q|8-?K|20-?F)$", re.IGNORECASE)
_TIME_TOKEN = re.compile(r"^(?:FY\d{2,4}(?:Q[1-4])?|Q[1-4]|(?:19|20)\d{2})$", re.IGNORECASE)


def find_entities(text: str) -> list[str]:
    """Capitalised spans that name something (companies, products, segments), in order, deduplicated."""
    found: list[str] = []
    # Blank Item references out (same length, so offsets hold): "Item 1A" names a section, not a thing.
    text = _ITEM_REF.sub(lambda m: " " * len(m.group()), text)
    sentence_starts = {0} | {m.end() for m in re.finditer(r"[.?!:;]\s+", text)}
    for m in _CAP_SPAN.finditer(text):
        words = [w for w in re.sub(r"['’]s\b", "", m.group()).split() if w]
        # Break the span at words that name nothing ("What", "FY2022", "EBITDA"): the rest are names.
        group: list[str] = []
        first_word = True
        for word in [*words, ""]:
            if word and not _is_breaker(word):
                group.append(word)
                continue
            if group:
                span = " ".join(group)
                opens_sentence = first_word and m.start() in sentence_starts
                sentence_word = opens_sentence and len(group) == 1 and not _looks_like_name(span)
                if not sentence_word and span.lower() not in {e.lower() for e in found}:
                    found.append(span)
                group = []
            first_word = False
    return found


def _is_breaker(word: str) -> bool:
    low = word.lower()
    return (
        low in NON_ENTITY_CAPS
        or low in FINANCE_TERMS
        or bool(_TIME_TOKEN.match(word))
        or bool(_FORM_TOKEN.match(word))
        or bool(_NUMBER.fullmatch(word))
    )


def _looks_like_name(word: str) -> bool:
    return any(c.isdigit() for c in word) or sum(c.isupper() for c in word) > 1


def find_numbers(text: str) -> list[str]:
    """Significant numbers (amounts, percentages, decimals; not years or small counts), normalised."""
    out: list[str] = []
    for m in _NUMBER.finditer(text):
        raw = m.group().rstrip(",")
        before = text[max(0, m.start() - 6) : m.start()].lower()
        if re.search(r"(fy|q[1-4]|item|\d)\s?'?$", before) or re.match(r"[a-z]", text[m.end() : m.end() + 1]):
            continue  # part of a time expression, an Item reference or a word like "10-K"
        value = normalize_number(raw)
        if value is None or re.fullmatch(r"(19[5-9]|20[0-4])\d", value):
            continue
        significant = any(c in raw for c in "$%,.") or len(value) >= 3
        if significant and value not in out:
            out.append(value)
    return out


def find_quoted(text: str) -> list[str]:
    """Terms the analyst put in quotes, which must match verbatim."""
    return [next(g for g in m.groups() if g) for m in _QUOTED.finditer(text)]


# --- Items and intent -----------------------------------------------------------------------


def explicit_items(text: str) -> list[str]:
    """Items the text names ("Item 7", "item 1a"), as 'Item 7' / 'Item 1A', in order, deduplicated."""
    return list(dict.fromkeys(f"Item {m.group(1).upper()}" for m in _ITEM_REF.finditer(text)))


def find_item_hints(text: str) -> list[str]:
    """Items the query points to: explicit references first, then topic words (most matches first)."""
    hints = [item for item in explicit_items(text) if item in ITEM_TITLES]
    counts: dict[str, int] = {}
    for order, (rx, item) in enumerate(ITEM_TOPICS):
        n = len(rx.findall(text))
        if n:
            counts[item] = counts.get(item, 0) + n * 100 - order  # pattern order breaks ties
    # A question about risks is answered in Risk Factors first, unless a more specific risk Item matched.
    if RISK_WORDS.search(text) and "Item 1A" in counts and not {"Item 1C", "Item 7A"} & counts.keys():
        counts["Item 1A"] += 10_000
    for item, _ in sorted(counts.items(), key=lambda kv: -kv[1]):
        if item not in hints:
            hints.append(item)
    return hints[:3]


_INTENTS: list[tuple[str, re.Pattern[str]]] = [
    ("risk", RISK_WORDS),
    (
        "comparison",
        re.compile(
            r"\bcompar|\bversus\b|\bvs\.?\b|\brelative to\b|\bdiffer|\bthan\b|\boutperform"
            r"|\bwhich\b.*\b(most|least|highest|lowest|largest|smallest|best|worst)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "trend",
        re.compile(
            r"\btrends?\b|\bover (time|the (past|last))\b|\bhistorical|\bconsistent\b|\bcagr\b|\bgrowth\b"
            r"|\bgrew\b|\bincreas|\bdecreas|\bdeclin|\bchang(e|ed|es)\b|\bfrom (fy)?\s?\d{2,4} to\b",
            re.IGNORECASE,
        ),
    ),
    (
        "numeric",
        re.compile(
            r"\bhow (much|many)\b|\bcalculat|\bcompute\b|\bratio\b|\bmargin\b|\bamount\b|\bpercent|%|\brate\b"
            r"|\btotal\b|\baverage\b|\b(usd|dollars|millions|billions)\b",
            re.IGNORECASE,
        ),
    ),
]


def classify_intent(text: str) -> str:
    """One of risk / comparison / trend / numeric / fact, the first whose cue words appear."""
    for intent, rx in _INTENTS:
        if rx.search(text):
            return intent
    return "fact"


# --- the analysis ---------------------------------------------------------------------------

_GENERIC = frozenset(
    "what which who how when where why company companies amount value number figure much many question fy".split()  # noqa: SIM905
)


def analyze_query(query: str) -> QueryAnalysis:
    """Analyse a query: core information need, entities, time, numbers, intent and Item hints."""
    core, removed = strip_instructions(query)
    statement_hints = [m.group() for m in STATEMENT_NAMES.finditer(" ".join(removed))]
    time_expressions, years = find_time_expressions(core)
    entities = find_entities(core)
    numbers = find_numbers(core)
    quoted = find_quoted(query)
    content = tokenize(core, fold_plurals=False)
    keywords = list(dict.fromkeys(t for t in content if t not in _GENERIC))
    # Where the answer lives (a named statement) and how filings word the metric are part of what to find.
    expansions = statement_hints + line_item_expansions(core)
    for phrase in expansions:
        keywords.extend(t for t in tokenize(phrase, fold_plurals=False) if t not in keywords)
    item_hints = find_item_hints(" ".join([core, *statement_hints]))
    statements, line_items = statements_asked(query, core)
    return QueryAnalysis(
        original=query,
        core_query=core,
        keywords=keywords,
        entities=entities,
        time_expressions=time_expressions,
        fiscal_years=years,
        intent=classify_intent(core),  # type: ignore[arg-type]
        item_hints=item_hints,
        quoted_terms=quoted,
        numbers=numbers,
        statements=statements,
        line_items=line_items,
        term_density=_term_density(content, entities, numbers, quoted, time_expressions),
        abstractness=_abstractness(core, content),
    )


def statements_asked(query: str, core: str) -> tuple[list[str], list[str]]:
    """The primary statements that report what the query asks for, and the line items it asks for: those
    of the figures it requests (a metric's inputs, a line item) and any statement it names ("using the
    cash flow statement"), which an instruction clause may name too."""
    statements: list[str] = []
    items: list[str] = []
    try:
        requests = figure_requests(core)
    except FormulaError:
        requests = []
    for request in requests:
        for item in request.line_items:
            statements.append(item.statement)
            items.append(item.key)
    for match in STATEMENT_NAMES.finditer(query):
        kind = statement_kind(match.group())
        if kind:
            statements.append(kind)
    return list(dict.fromkeys(statements)), list(dict.fromkeys(items))


def line_item_expansions(text: str) -> list[str]:
    """Line-item wordings of the metrics a query names (e.g. capex -> purchases of property, plant…)."""
    return [items for rx, items in METRIC_LINE_ITEMS if rx.search(text)]


def vector_query_text(analysis: QueryAnalysis) -> str:
    """Text embedded for vector search: the core query plus the line items its metrics appear under."""
    return " ".join([analysis.core_query, *line_item_expansions(analysis.core_query)])


def _term_density(
    content: list[str], entities: list[str], numbers: list[str], quoted: list[str], times: list[str]
) -> float:
    """Share of the query's content tokens that are specific: names, numbers, periods, finance terms."""
    if not content:
        return 0.0
    specific = set(numbers)
    for phrase in [*entities, *quoted, *times]:
        specific.update(tokenize(phrase, fold_plurals=False))
    hits = sum(1 for t in content if t in specific or t in FINANCE_TERMS or any(c.isdigit() for c in t))
    return round(min(1.0, hits / len(content)), 3)


def _abstractness(core: str, content: list[str]) -> float:
    """Share of conceptual words (how, why, impact, strategy…) relative to the content, scaled to [0, 1]."""
    # "How much" / "how many" ask for a figure, not for an explanation.
    core = re.sub(r"\bhow\s+(much|many|often|long)\b", r"\1", core, flags=re.IGNORECASE)
    words = tokenize(core, keep_stopwords=True, fold_plurals=False)
    abstract = sum(1 for w in words if w in ABSTRACT_WORDS)
    return round(min(1.0, 2.0 * abstract / max(1, len(content))), 3)
