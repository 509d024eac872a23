"""Find a figure by meaning among a filing's facts (its table rows).

A phrase ("deferred revenue", "cash the operations burned", "SBC") is matched against every fact's name —
its label, the heading it sits under and, where tagged, its XBRL concept — by content words (with the
lexicon's wordings of a line item it names) and by the bundled embedding model's similarity. The lexicon is
a prior, not the list of what can be found: a row labelled as a line item it knows ranks first, and the
statement that reports that line item beats a note repeating it. The period asked must be one of the
row's columns; a part of the company (a segment row) is used only when the phrase names that part.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from itertools import takewhile

import numpy as np

from core.finance.formula import Found, Lookup, Operand, PartsLookup
from core.finance.question import PER_SHARE_RE
from core.finance.vocabulary import (
    NEUTRAL_WORDS,
    WORKING_CAPITAL_RE,
    LineItem,
    as_item_value,
    label_rank,
    labelled_items,
    line_item_mentions,
    line_item_named,
    with_filing_words,
)
from core.index.catalog import Catalog
from core.models import Chunk, Fact, FactValue
from core.models.facts import PRIMARY_STATEMENTS
from core.text.sentences import split_sentences
from core.text.tokens import content_terms

#: Share of the score that meaning (embedding similarity) and wording (content words) each carry.
_MEANING, _WORDS = 0.5, 0.5
#: A phrase the lexicon does not know is answered only by a fact at least this close.
MIN_SCORE = 0.55
#: A part named in other words than the filing's ("online retail services" for "Online stores") is read as
#: the row of the item's breakdown at least this close in meaning (MiniLM cosine), and this much closer
#: than any other row (else the words do not say which part: "cloud services" for two rows so named).
PART_NAME_MIN, PART_NAME_MARGIN = 0.6, 0.1
_PERCENT_ASKED_RE = re.compile(r"%|\bpercent|\bmargins?\b|\brates?\b|\bratio\b", re.I)
_BALANCE_RE = re.compile(r"\b(?:balance|at (?:the )?(?:end|close)|year[- ]end|as of|outstanding)\b", re.I)
_CASH_RE = re.compile(
    r"\b(?:paid|received|cash|spent|spend|burn\w*|generat\w*|used|bought|repurchas\w*)\b", re.I
)
_NEUTRAL_TERMS = frozenset(content_terms(" ".join(NEUTRAL_WORDS)))
_LEADING_NAME_RE = re.compile(r"^((?:[A-Z][a-z][\w&.-]*\s+(?:&\s+)?)+)(?=[a-z])")
#: Rows that report part of the company (a segment, a region) rather than the whole.
_PART_KINDS = {"segment"}


#: A phrase that asks for a movement, not a balance ("deferred revenue recognized", "goodwill acquired").
_ACTIVITY_ASKED_RE = re.compile(
    r"\b(?:add\w*|recogni\w*|acquir\w*|issu\w*|settl\w*|reduc\w*|increase\w*|decrease\w*|during|change\w*"
    r"|paid|repurchas\w*|granted|vested|forfeited|charged?)\b",
    re.I,
)
_OPENING_RE = re.compile(r"\bbeginning\b", re.I)
_CLOSING_RE = re.compile(r"\bend(?:ing)?\b", re.I)


def _roll_forward_activity(facts: list[Fact]) -> set[str]:
    """The ids of rows between a table's opening and closing balance ("Balance at beginning of period",
    additions, "Balance at end of period"): movements of the balance, not the balance."""
    tables: dict[tuple[int, str], list[Fact]] = {}
    for fact in facts:
        tables.setdefault((fact.page, fact.table), []).append(fact)
    activity: set[str] = set()
    for rows in tables.values():
        opening = next((k for k, f in enumerate(rows) if f.generic and _OPENING_RE.search(f.label)), None)
        closing = next((k for k, f in enumerate(rows) if f.generic and _CLOSING_RE.search(f.label)), None)
        if opening is not None and closing is not None and opening < closing:
            activity |= {f.fact_id for f in rows[opening + 1 : closing]}
    return activity


@dataclass(frozen=True)
class FactMatch:
    """A fact that reports what was asked, its value for the period asked, and how well it matched."""

    fact: Fact
    value: FactValue
    score: float
    meaning: float
    words: float


def _terms(text: str) -> set[str]:
    return set(content_terms(text))


def _wording(phrase_terms: set[str], fact: Fact) -> float:
    """How much of the phrase the fact's name says (its label, the heading and table it sits in, its XBRL
    concept), and how little else its label says (0 to 1). A generic label ("Balance at end of period")
    takes its meaning from its table."""
    label = _terms(fact.label) if not fact.generic else _terms(f"{fact.table} {fact.label}")
    # "Total stock-based compensation expense" says no more than its line item, unless the phrase says "total".
    label -= _NEUTRAL_TERMS - phrase_terms
    have = (
        label
        | _terms(f"{fact.parent} {fact.concept_label or ''}")
        | (_terms(fact.table) if fact.generic else set())
    )
    if not phrase_terms or not label:
        return 0.0
    coverage = len(phrase_terms & have) / len(phrase_terms)
    score = coverage * (0.5 + 0.5 * len(phrase_terms & label) / len(label))
    # A heading the phrase does not name makes the row something else ("Deferred tax assets — Stock-based
    # compensation" is a tax asset, not the expense); on a primary statement the heading is a section.
    parent = _terms(fact.parent)
    if parent and not parent & phrase_terms and fact.kind not in PRIMARY_STATEMENTS:
        return score * 0.7
    return score


@dataclass(frozen=True)
class _FilingFacts:
    """A filing's facts as the index keeps them: in filing order, their name embeddings (None: match by
    wording only), and the rows that are a roll-forward's activity."""

    facts: list[Fact]
    vectors: np.ndarray | None
    activity: frozenset[str]
    quarterly: bool  # a quarter's report (a 10-Q, a quarter's earnings release): its own period is 3 months


class FactIndex:
    """A library's facts, loaded per filing on first use and kept in memory (facts are small)."""

    def __init__(self, catalog: Catalog, embed_query) -> None:
        self.catalog = catalog
        self._embed_query = embed_query
        self._cache: dict[str, _FilingFacts] = {}
        self._lock = threading.Lock()

    def facts(self, filing_id: str) -> list[Fact]:
        return self._load(filing_id).facts

    def _load(self, filing_id: str) -> _FilingFacts:
        with self._lock:
            cached = self._cache.get(filing_id)
        if cached is not None:
            return cached
        facts = self.catalog.list_facts(filing_id)
        ids, vectors = self.catalog.fact_vectors(filing_id)
        if vectors is not None and ids != [f.fact_id for f in facts]:
            vectors = None  # facts without vectors: match by wording only
        filing = self.catalog.get_filing(filing_id)
        quarterly = filing is not None and filing.fiscal_quarter is not None
        loaded = _FilingFacts(facts, vectors, frozenset(_roll_forward_activity(facts)), quarterly)
        with self._lock:
            self._cache[filing_id] = loaded
            while len(self._cache) > 32:
                self._cache.pop(next(iter(self._cache)))
        return loaded

    def parts(
        self, item: LineItem, filing_id: str, year: int, months: int | None = None, asked: str = ""
    ) -> list[tuple[str, Fact, FactValue]]:
        """The parts a filing breaks `item` into for `year` (its segments, products or regions), each as
        (the part's name, its row, its value), then the total they add up to: read from the filing's own
        tables, where rows just above a row labelled as the item add up to it ("Productivity and Business
        Processes", "Intelligent Cloud", "More Personal Computing" over "Total revenue"), or rows labelled
        as the item under each part's heading add up to the one under the whole's ("North America: Net
        sales", …, "Consolidated: Net sales"). Of several tables that add up, the one closest in meaning to
        the parts `asked` for ("service offerings": the products and services table, not the segments); then a
        segment table is preferred to a note, a note to MD&A, and the statements come last; empty when no
        table adds up."""
        facts = self._load(filing_id).facts
        wanted = np.asarray(self._embed_query(asked), dtype=np.float32) if asked else None
        best: tuple[tuple[float, float, int, int], list[tuple[str, Fact, FactValue]]] | None = None
        # The company's figure as its own rows print it: a "Consolidated" or "Total" row with that value is
        # the whole of a table that breaks the item down ("Online stores", …, "Consolidated").
        item_values = {
            value.number
            for fact in facts
            if label_rank(item, fact.label) is not None
            and (value := _value_of(fact, year, months)) is not None
        }
        for index, total in enumerate(facts):
            whole = _value_of(total, year, months)
            names_item = label_rank(item, total.label) is not None or (
                total.generic and bool(total.parent) and label_rank(item, total.parent) is not None
            )
            if whole is not None and not names_item and _WHOLE_LABEL_RE.match(total.label):
                names_item = whole.number in item_values
            if whole is None or not names_item:
                continue
            table = [f for f in facts[:index] if f.page == total.page and f.table == total.table]
            found = _adding_rows(table, total, whole, year, months) or _adding_groups(
                table, total, whole, item, year, months
            )
            if not found:
                continue
            meaning = own = 0.0
            if wanted is not None:
                rows = [fact for _, fact, _ in found] + [total]
                closeness = [round(self._closeness(wanted, about), 2) for about in self._about(rows)]
                meaning = (
                    max(closeness) if max(closeness) >= _PARTS_MEANING_MIN else 0.0
                )  # faint says nothing
                # Two breakdowns under one title and lead-in (regions, then market platforms): their rows say
                # which the parts asked for are ("gaming and professional GPU segments").
                own = closeness[0]
            rank = (meaning, own, _PART_TABLES.get(total.kind, 1), len(found))
            if best is None or rank > best[0]:
                best = (rank, [*found, (total.name, total, whole)])
        return best[1] if best else []

    def _about(self, rows: list[Fact]) -> list[str]:
        """What a table of `rows` is about, in the filing's words: its title with its rows' names, and the
        text just before it on its page ("Net sales by groups of similar products and services …")."""
        first = rows[0]
        about = [f"{first.table}: {', '.join(fact.label for fact in rows)}"]
        page = sorted(self.catalog.page_chunks(first.filing_id, first.page), key=lambda c: c.chunk_index)
        own = {fact.chunk_id for fact in rows}
        before = [c for c in takewhile(lambda c: c.chunk_id not in own, page) if c.kind != "table"]
        lead_in = " ".join(c.text for c in before)
        if len(lead_in) < _LEAD_IN_CHARS // 3 and first.page > 1:
            # A table at the top of its page (under a running header) is introduced on the page before.
            previous = self.catalog.page_chunks(first.filing_id, first.page - 1)
            lead_in = " ".join(
                c.text for c in sorted(previous, key=lambda c: c.chunk_index) if c.kind != "table"
            )
        lead_in = lead_in[-_LEAD_IN_CHARS:]
        if lead_in.strip():
            about.append(lead_in)
        return about

    def _closeness(self, wanted: np.ndarray, text: str) -> float:
        """Cosine of `wanted` (an embedded phrase) and `text`'s embedding."""
        vector = np.asarray(self._embed_query(text), dtype=np.float32)
        return float(wanted @ vector / (np.linalg.norm(wanted) * np.linalg.norm(vector) or 1.0))

    def table_reports(self, fact: Fact, item: LineItem) -> bool:
        """Whether the table a fact sits in reports `item`: its title names it ("Operating Income by Reportable
        Segments"), or a row of the same table (same page, same title) is labelled as it ("Total net sales"
        under "iPhone", "Mac", … : the products' net sales)."""
        if any(m.entry.key == item.key for m in line_item_mentions(fact.table)):
            return True
        return any(
            other.page == fact.page
            and other.table == fact.table
            and label_rank(item, other.label) is not None
            for other in self._load(fact.filing_id).facts
        )

    def similarity(self, phrase: str, filing_id: str) -> np.ndarray | None:
        """How close in meaning each of the filing's facts (in filing order) is to `phrase`: the cosine of the
        phrase's embedding and each fact's name embedding. None when the facts have no vectors."""
        vectors = self._load(filing_id).vectors
        if vectors is None:
            return None
        return vectors @ np.asarray(self._embed_query(with_filing_words(phrase)), dtype=np.float32)

    def search(
        self,
        phrase: str,
        filing_id: str,
        year: int,
        *,
        item: LineItem | None = None,
        qualifier: str | None = None,
        limit: int = 5,
        months: int | None = None,
    ) -> list[FactMatch]:
        """Facts of the filing that report `phrase` for fiscal `year` (`months` to date in a quarterly
        report; None: its quarter), best first."""
        loaded = self._load(filing_id)
        facts, activity = loaded.facts, loaded.activity
        if not facts:
            return []
        item = item or line_item_named(phrase)
        wanted = _terms(
            with_filing_words(phrase) if item is None else f"{phrase} {item.name} {item.search_terms}"
        )
        similarity = self.similarity(phrase, filing_id)
        meaning = similarity if similarity is not None else np.zeros(len(facts), dtype=np.float32)
        per_share = bool(PER_SHARE_RE.search(phrase))
        # A part named at the start of the phrase ("Fleet Software gross margin") when no line item carried it.
        leading = _LEADING_NAME_RE.match(phrase)
        part = _terms(qualifier) if qualifier else _terms(leading.group(1)) if leading else set()
        matches: list[FactMatch] = []
        for index, fact in enumerate(facts):
            value = fact.value_for(year, months)
            if value is None or value.number is None or fact.per_share_of(value) != per_share:
                continue
            if value.percent != (item is None and bool(_PERCENT_ASKED_RE.search(phrase))):
                continue  # a margin or a rate is read from a row of percentages, an amount never is
            name_terms = _terms(f"{fact.label} {fact.parent} {fact.table}")
            if part and not part <= name_terms:
                continue  # the part named (a segment, a product) must be the row's or its table's
            if not part and fact.kind in _PART_KINDS:
                continue  # the whole company's figure unless a part is named
            if item is not None and item.key not in (known := labelled_items(fact.label)) and known:
                continue  # a row labelled as another line item ("Income before taxes") is not this one
            words = _wording(wanted, fact)
            score = _MEANING * float(meaning[index]) + _WORDS * words + self._prior(item, fact, phrase)
            if fact.fact_id in activity and not _ACTIVITY_ASKED_RE.search(phrase):
                score -= 0.1  # a roll-forward's activity ("added during the period") is not the balance asked
            if months is None and loaded.quarterly and (value.months or 0) > 3:
                # The quarter was asked and the row prints only a year to date (a 10-Q's cash flow statement):
                # a row that prints the quarter itself reports it.
                score -= _LONGER_PERIOD_PENALTY
            if score > 0:
                matches.append(FactMatch(fact, value, score, float(meaning[index]), words))
        matches.sort(key=lambda m: -m.score)
        return matches[:limit]

    @staticmethod
    def _prior(item: LineItem | None, fact: Fact, phrase: str) -> float:
        """The lexicon's and the statements' word: a row labelled as the line item asked for, in the statement
        that reports it, ranks first; a balance is read at a date, a flow over a period."""
        if item is None:
            # A roll-forward's closing balance is the period's figure; its opening balance is the prior one's.
            if fact.generic and re.search(r"\bend(?:ing)?\b", fact.label, re.I):
                return 0.05
            if fact.generic and re.search(r"\bbeginning\b", fact.label, re.I):
                return -0.1
            # No line item known: the wording may still say where such a figure is reported.
            if fact.kind == "balance" and _BALANCE_RE.search(phrase):
                return 0.1
            if fact.kind == "cash_flow" and _CASH_RE.search(phrase):
                return 0.1
            # A primary statement is where a figure is reported; a note or an MD&A table repeats or parts it,
            # and the equity statement moves it between accounts.
            return 0.1 if fact.kind in PRIMARY_STATEMENTS else 0.0
        rank = label_rank(item, fact.label)
        if fact.kind in ("income", "balance", "cash_flow") and (fact.kind == "balance") != (
            item.statement == "balance"
        ):
            return -1.0  # the cash flow statement's "Accounts payable" row is a change, not the balance
        if (
            fact.kind == "cash_flow"
            and item.statement != "cash_flow"
            and WORKING_CAPITAL_RE.search(fact.parent)
        ):
            return -1.0  # "Changes in assets and liabilities — Income taxes" is a change, not the tax expense
        prior = 0.0 if rank is None else 1.0 - 0.05 * rank
        if fact.kind == item.statement:
            prior += 0.5
        return prior


#: How much a row that prints only a longer period (the year to date) ranks below one that prints the quarter.
_LONGER_PERIOD_PENALTY = 0.3

#: How close a table's description must be to the parts asked for to choose it by meaning (MiniLM cosine).
_PARTS_MEANING_MIN = 0.35
#: How much of the text before a table says what the table is about.
_LEAD_IN_CHARS = 300
#: A row that is a table's whole, whatever the table is of: "Total", "Consolidated", "Total consolidated".
_WHOLE_LABEL_RE = re.compile(r"^\s*(?:total\s*)?(?:consolidated|combined|total)\b", re.I)
#: Which tables break a line item into parts best: a segment table, then a note, MD&A, another table, and
#: last a statement (its parts are lines such as products and services, not segments).
_PART_TABLES = {"segment": 5, "note": 4, "mdna": 3, "other": 2}
#: Most parts a breakdown has (a longer run of rows is a statement, not a line item's parts).
_MAX_PARTS = 12


def _value_of(fact: Fact, year: int, months: int | None) -> FactValue | None:
    value = fact.value_for(year, months)
    if value is None or value.number is None or value.percent or fact.per_share_of(value):
        return None
    return value


def _adds_up(parts: list[FactValue], whole: FactValue) -> bool:
    """Printed parts that add up to the printed whole, to within rounding (a unit per part)."""
    assert whole.number is not None
    total = sum(p.number for p in parts if p.number is not None)
    return abs(total - whole.number) <= max(len(parts), 1e-4 * abs(whole.number))


def _adding_rows(
    table: list[Fact], total: Fact, whole: FactValue, year: int, months: int | None
) -> list[tuple[str, Fact, FactValue]]:
    """The rows just above `total` in its table that add up to it (two or more), nearest first reversed."""
    run: list[tuple[str, Fact, FactValue]] = []
    for fact in reversed(table[-_MAX_PARTS:]):
        value = _value_of(fact, year, months)
        if value is None or fact.scale != total.scale:
            return []
        run.insert(0, (fact.label, fact, value))
        if len(run) >= 2 and _adds_up([v for _, _, v in run], whole):
            return run
    return []


def _adding_groups(
    table: list[Fact], total: Fact, whole: FactValue, item: LineItem, year: int, months: int | None
) -> list[tuple[str, Fact, FactValue]]:
    """Rows labelled as `item` under each part's heading, one per heading, that add up to `total`."""
    by_heading: dict[str, tuple[str, Fact, FactValue]] = {}
    for fact in table:
        value = _value_of(fact, year, months)
        if value is None or not fact.parent or fact.parent == total.parent:
            continue
        if label_rank(item, fact.label) is not None and fact.scale == total.scale:
            by_heading[fact.parent] = (fact.parent, fact, value)
    found = list(by_heading.values())
    return found if len(found) >= 2 and _adds_up([v for _, _, v in found], whole) else []


@dataclass(frozen=True)
class FactSource:
    """The passage a fact is cited from, and the row (or, for a count stated in prose, the sentence) to quote:
    what the calculator cites for an input."""

    chunk: Chunk
    quote: str
    fact: Fact | None = None


#: "number of employees": a count, which a filing may state only in prose.
_COUNT_ASKED_RE = re.compile(r"^number of (?P<noun>[\w -]+?)s?$", re.I)
_NUMBER = r"(?P<n>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(?P<scale>thousand|million)?"
_COUNT_SCALE = {"thousand": 1e3, "million": 1e6}


def _count_sentences(chunks: list[Chunk], noun: str, year: int) -> list[tuple[float, float, Chunk, str]]:
    """(preference, count, passage, sentence) for each sentence that states a count of `noun` ("As of
    January 29, 2023, we had approximately 26,196 employees"), best first: a sentence naming the year asked,
    then one that says as of when, then filing order."""
    pattern = re.compile(rf"{_NUMBER}\s+(?:[\w-]+\s+){{0,3}}?{re.escape(noun)}s?\b", re.I)
    found = []
    for order, chunk in enumerate(chunks):
        if noun.lower() not in chunk.text.lower():
            continue
        for sentence in split_sentences(chunk.text):
            for m in pattern.finditer(sentence):
                number = m.group("n")
                if re.fullmatch(r"(?:19|20)\d\d", number):
                    continue  # a year, not a count
                value = float(number.replace(",", "")) * _COUNT_SCALE.get(
                    (m.group("scale") or "").lower(), 1.0
                )
                preference = (
                    2.0 * bool(re.search(rf"\b{year}\b", sentence))
                    + bool(re.search(r"\bas of\b|\bat (?:the )?end of\b", sentence, re.I))
                    # "we had 4,453 employees" is the company's count; "over 300 employees" staff one team
                    + bool(re.search(r"\b(?:we|the company)\s+(?:had|employ(?:ed)?)\b", sentence, re.I))
                    - order / (10 * len(chunks))
                )
                found.append((preference, value, chunk, sentence.strip()))
    found.sort(key=lambda f: -f[0])
    return found


def parts_lookup(index: FactIndex, filing_ids: list[str]) -> PartsLookup:
    """A calculator lookup of a line item's parts (see FactIndex.parts) in the first of `filing_ids` that
    breaks it down: each part, then the total, as Found with the row cited."""

    def lookup(item: LineItem, year: int, months: int | None = None, asked: str = "") -> list[Found]:
        for filing_id in filing_ids:
            found = index.parts(item, filing_id, year, months, asked)
            if not found:
                continue
            chunks = {c.chunk_id: c for c in index.catalog.get_chunks([f.chunk_id for _, f, _ in found])}
            return [
                Found(
                    value=value.number or 0.0,
                    label=name,
                    year=year,
                    source=FactSource(chunks[fact.chunk_id], fact.text, fact),
                    scale=fact.scale_of(value),
                    caveat=fact.mismatch,
                )
                for name, fact, value in found
                if fact.chunk_id in chunks
            ]
        return []

    return lookup


def _part_row(index: FactIndex, fact: Fact, item: LineItem) -> bool:
    """Whether a row is a part of `item`: under the item's own heading ("Gross margin: … Services"), or in a
    table that reports the item and not under the heading of another line item ("Services" under "Net
    sales" is the part's revenue, not its gross margin)."""
    if fact.parent:
        if label_rank(item, fact.parent) is not None:
            return True
        if any(m.entry.key != item.key for m in line_item_mentions(fact.parent)):
            return False
    return index.table_reports(fact, item)


#: A filing defining a line of its own: "<Name> (costs|expenses) include / consist of …", the name opening its
#: sentence (or following its heading on the line before).
_DEFINITION_RE = re.compile(
    r"(?:^|\n|[.;]\s+)(?P<label>[A-Z][A-Za-z&,'\- ]{2,60}?)\s+(?:costs?|expenses?)\s+(?:primarily\s+)?"
    r"(?:include|includes|consist of|consists of|are comprised of|represent)\b(?P<what>[^.]{0,400})"
)


def defined_label(chunks: list[Chunk], item: LineItem) -> str | None:
    """The name under which the filing's own definition says it reports `item`: the first "<Name> costs
    include …" sentence whose definition names the item ("… employees involved in the research and
    development of …"), None when the filing has none."""
    for chunk in chunks:
        if chunk.kind == "table":
            continue
        for m in _DEFINITION_RE.finditer(chunk.text):
            what = " ".join(m.group("what").split())
            if any(mention.entry.key == item.key for mention in line_item_mentions(what)):
                label = m.group("label").strip()
                if label_rank(item, label) is None:  # the item's own name defines nothing new
                    return label
    return None


def _label_words(label: str) -> tuple[str, ...]:
    """A row label's words, its footnote marks and case aside: "Technology and infrastructure (1)"."""
    return tuple(re.findall(r"[a-z]+", re.sub(r"\(\d+\)", "", label.lower())))


def fact_lookup(index: FactIndex, filing_ids: list[str]) -> Lookup:
    """A calculator lookup over the facts of `filing_ids`: for an operand and a fiscal year, the best fact
    with a value for that year — any close match for a line item the lexicon knows, a close enough one
    (MIN_SCORE) for a phrase it does not. The value is as printed, in the table's unit (its scale kept)."""

    passages: dict[str, list[Chunk]] = {}  # a filing's passages, read once for all the years looked up
    labels: dict[tuple[str, str], str | None] = {}  # a line item's own name in a filing, by its definition

    def count_in_prose(operand: Operand, year: int) -> Found | None:
        asked = _COUNT_ASKED_RE.match(operand.phrase.strip())
        if asked is None:
            return None
        noun = asked.group("noun").strip()
        for filing_id in filing_ids:
            if filing_id not in passages:
                passages[filing_id] = index.catalog.list_chunks(filing_id)
            stated = _count_sentences(passages[filing_id], noun, year)
            if stated:
                _, value, chunk, sentence = stated[0]
                return Found(
                    value=value, label=f"{noun}s", year=year, source=FactSource(chunk, sentence), count=True
                )
        return None

    def lookup(operand: Operand, year: int, months: int | None = None) -> Found | None:
        counted = count_in_prose(operand, year)
        if counted is not None:
            return counted
        part = operand.as_part()
        if part is not None and part.item is not None:
            item = part.item
            found = find(part, year, months, accept=lambda fact: _part_row(index, fact, item))
            if found is not None:
                return found
        named = operand.named_part()
        if named is not None:
            found = part_by_meaning(*named, year, months)
            if found is not None:
                return found
        found = find(operand, year, months)
        if found is None and operand.item is not None and not operand.qualifier:
            found = renamed(operand.item, year, months)
        return found

    def part_by_meaning(words: str, item: LineItem, year: int, months: int | None) -> Found | None:
        """The row of the filing's own breakdown of `item` (rows that add up to it) that `words` name by
        meaning ("online retail services": "Online stores"), when one row is clearly the closest."""
        wanted = np.asarray(index._embed_query(words), dtype=np.float32)
        for filing_id in filing_ids:
            rows = index.parts(item, filing_id, year, months, words)[:-1]  # the parts, not their total
            if not rows:
                continue
            ranked = sorted(
                ((index._closeness(wanted, name), fact, value) for name, fact, value in rows),
                key=lambda r: -r[0],
            )
            closeness, fact, value = ranked[0]
            runner_up = ranked[1][0] if len(ranked) > 1 else 0.0
            if closeness < PART_NAME_MIN or closeness - runner_up < PART_NAME_MARGIN:
                return None
            return _found(index, fact, value, year)
        return None

    def renamed(item: LineItem, year: int, months: int | None) -> Found | None:
        """The row of a line item the company prints under a name of its own, as the filing defines it
        ("Technology and infrastructure costs include payroll … for employees involved in the research and
        development of …": Amazon's research and development expense)."""
        for filing_id in filing_ids:
            if (filing_id, item.key) not in labels:  # read once per filing and item, not per year asked
                if filing_id not in passages:
                    passages[filing_id] = index.catalog.list_chunks(filing_id)
                labels[filing_id, item.key] = defined_label(passages[filing_id], item)
            label = labels[filing_id, item.key]
            if label is None:
                continue
            for match in index.search(label, filing_id, year, limit=5, months=months):
                if _label_words(match.fact.label) == _label_words(label):
                    # The answer names the row it read ("as printed in the row …"), so the reader sees it.
                    return _found(index, match.fact, match.value, year, item)
        return None

    def find(
        operand: Operand, year: int, months: int | None, accept: Callable[[Fact], bool] | None = None
    ) -> Found | None:
        best: FactMatch | None = None
        for filing_id in filing_ids:
            matches = index.search(
                operand.phrase,
                filing_id,
                year,
                item=operand.item,
                qualifier=operand.qualifier,
                limit=1 if accept is None else 5,
                months=months,
            )
            # With a test of the row, the best row that passes it.
            match = next((m for m in matches if accept is None or accept(m.fact)), None)
            if match is not None and (best is None or match.score > best.score):
                best = match
        if best is None or (operand.item is None and best.score < MIN_SCORE):
            return None
        if (
            operand.item is not None
            and label_rank(operand.item, best.fact.label) is None
            and best.words < 0.5
            # A part of the company's line item ("iPhone" net sales) is the part's row of a table of the item.
            and not (operand.qualifier and index.table_reports(best.fact, operand.item))
        ):
            return None  # a known line item is answered by a row labelled as it, or worded very nearly so
        return _found(index, best.fact, best.value, year, operand.item)

    return lookup


def _found(
    index: FactIndex, fact: Fact, value: FactValue, year: int, item: LineItem | None = None
) -> Found | None:
    """A row's value for `year` as the calculator takes it, citing the row (None when it prints no number)."""
    chunks = index.catalog.get_chunks([fact.chunk_id])
    if not chunks or value.number is None:
        return None
    return Found(
        value=as_item_value(item, value.number, fact.label),
        label=fact.label,
        year=year,
        source=FactSource(chunks[0], fact.text, fact),
        scale=None if value.percent else fact.scale_of(value),
        percent=value.percent,
        caveat=fact.mismatch,
        months=value.months,
    )
