"""Query analysis: separate the information need from instruction boilerplate and read its signals."""

from __future__ import annotations

import re

from core.finance.formula import FormulaError
from core.finance.question import (
    ABSTRACT_WORDS,
    NON_ENTITY_CAPS,
    classify_intent,
    strip_instructions,
)
from core.finance.requests import figure_requests
from core.finance.vocabulary import (
    FINANCE_TERMS,
    STATEMENT_NAME_RE,
    item_hints,
    search_terms_for,
    statements_named,
)
from core.models import ITEM_TITLES, QueryAnalysis
from core.text.items import ITEM_REF_RE
from core.text.periods import YEAR, find_time_expressions
from core.text.tokens import normalize_number, tokenize

# --- entities, numbers, quotes --------------------------------------------------------------

_CAP_SPAN = re.compile(
    r"(?<![\w'])(?:[A-Z0-9][\w&.'’-]*[A-Za-z0-9&]|[A-Z])(?:\s+(?:of|&|and|de)?\s*(?:[A-Z][\w&.'’-]*[A-Za-z0-9&]))*"
)
_QUOTED = re.compile(r"\"([^\"]{2,80})\"|“([^”]{2,80})”|‘([^’]{2,80})’")
_NUMBER = re.compile(r"\$?\(?\d[\d,]*(?:\.\d+)?%?")
_FORM_TOKEN = re.compile(r"^(?:10-?K|10-?Q|8-?K|20-?F)$", re.IGNORECASE)
_TIME_TOKEN = re.compile(rf"^(?:FY\d{{2,4}}(?:Q[1-4])?|Q[1-4]|{YEAR})$", re.IGNORECASE)


def find_entities(text: str) -> list[str]:
    """Capitalised spans that name something (companies, products, segments), in order, deduplicated."""
    found: list[str] = []
    # Blank Item references out (same length, so offsets hold): "Item 1A" names a section, not a thing.
    text = ITEM_REF_RE.sub(lambda m: " " * len(m.group()), text)
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
        if value is None or re.fullmatch(YEAR, value):
            continue
        significant = any(c in raw for c in "$%,.") or len(value) >= 3
        if significant and value not in out:
            out.append(value)
    return out


def find_quoted(text: str) -> list[str]:
    """Terms the analyst put in quotes, which must match verbatim."""
    return [next(g for g in m.groups() if g) for m in _QUOTED.finditer(text)]


# --- the analysis ---------------------------------------------------------------------------

_GENERIC = frozenset(
    "what which who how when where why company companies amount value number figure much many question fy".split()  # noqa: SIM905
)


def analyze_query(query: str) -> QueryAnalysis:
    """Analyse a query: core information need, entities, time, numbers, intent and Item hints."""
    core, removed = strip_instructions(query)
    statement_hints = [m.group() for m in STATEMENT_NAME_RE.finditer(" ".join(removed))]
    time_expressions, years = find_time_expressions(core)
    entities = find_entities(core)
    numbers = find_numbers(core)
    quoted = find_quoted(query)
    content = tokenize(core, fold_plurals=False)
    keywords = list(dict.fromkeys(t for t in content if t not in _GENERIC))
    # Where the answer lives (a named statement) and how filings word the metric are part of what to find.
    expansions = statement_hints + search_terms_for(core)
    for phrase in expansions:
        keywords.extend(t for t in tokenize(phrase, fold_plurals=False) if t not in keywords)
    hints = item_hints(" ".join([core, *statement_hints]), known=set(ITEM_TITLES))
    statements, line_items = statements_asked(query, core)
    return QueryAnalysis(
        original=query,
        core_query=core,
        keywords=keywords,
        entities=entities,
        time_expressions=time_expressions,
        fiscal_years=years,
        intent=classify_intent(core),  # type: ignore[arg-type]
        item_hints=hints,
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
    statements.extend(statements_named(query))
    return list(dict.fromkeys(statements)), list(dict.fromkeys(items))


def vector_query_text(analysis: QueryAnalysis) -> str:
    """Text embedded for vector search: the core query plus the line items its metrics appear under."""
    return " ".join([analysis.core_query, *search_terms_for(analysis.core_query)])


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
