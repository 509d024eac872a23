"""Tagged figures joined to printed facts: each table row read from page text gets the inline-XBRL facts the
filing tags in the same printed row — its concept, the members when the row is a part (a segment), and for
each value the tagged value of the same column — and a sentence wherever the two disagree.

The printed row of a fact comes from page text rebuilt from passages; the tagged one from the HTML tree. They
are matched by their label and their numbers, never by position alone: a tagged row joins the fact whose
label reads the same and whose values hold its printed numbers in order, or, without the label (a total row
printed without one), the fact whose values hold at least two of them. Facts and tagged rows both run in
filing order, so among the candidate pairs the join keeps the heaviest chain that is in order in both (a
row repeated in the MD&A joins the statement's own row only once, and in the right place).
"""

from __future__ import annotations

import datetime
import re
from bisect import bisect_left
from collections import Counter, defaultdict
from dataclasses import dataclass

from core.finance.facts import read_facts
from core.ingest.metadata import fiscal_year_of
from core.ingest.xbrl import TaggedFact, concept_label, read_inline_xbrl
from core.models import Chunk, SourceType
from core.models.facts import Fact, FactValue
from core.text.figures import format_amount
from core.text.tokens import tokenize

#: Printed and tagged values agree when they differ by less than this share (rounding of a float product).
_TOLERANCE = 1e-6


@dataclass(frozen=True)
class TaggedRow:
    """The tagged facts printed in one table row, in column order."""

    table_index: int
    row_index: int
    label: str
    facts: tuple[TaggedFact, ...]

    @property
    def key(self) -> str:
        return label_key(self.label)


def label_key(label: str) -> str:
    """A row label reduced to its words, for matching a label read from page text with the HTML cell's."""
    return " ".join(tokenize(label, keep_stopwords=True, fold_plurals=False))


def tagged_rows(tagged: list[TaggedFact]) -> list[TaggedRow]:
    """The tagged facts printed in table rows, one entry per row, in document order."""
    by_row: dict[tuple[int, int], list[TaggedFact]] = defaultdict(list)
    for fact in tagged:
        if fact.table_index >= 0 and fact.column >= 0:
            by_row[(fact.table_index, fact.row_index)].append(fact)
    return [
        TaggedRow(t, r, facts[0].row_label, tuple(sorted(facts, key=lambda f: f.column)))
        for (t, r), facts in sorted(by_row.items())
    ]


def printed_magnitude(fact: TaggedFact) -> float | None:
    """The tagged number as printed (scale not applied, unsigned): 26974 for "26,974" with scale 6."""
    if fact.value is None:
        return None
    return abs(fact.value) / 10.0**fact.scale


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= _TOLERANCE * max(abs(a), abs(b), 1e-9)


def printed_units(fact: Fact, value: FactValue) -> float | None:
    """A printed value in the units XBRL tags it in: scaled by its column's unit or else the table's, a
    percentage as a fraction."""
    if value.number is None:
        return None
    if value.percent:
        return value.number / 100.0
    return value.number * (fact.scale_of(value) or 1.0)


#: A balance at the beginning of the period: tagged as of the day the year before ended.
_OPENING_RE = re.compile(r"\b(?:beginning|opening)\b", re.I)


def context_years(fact: Fact, tagged: TaggedFact, value: FactValue | None = None) -> set[int]:
    """The fiscal years the column of a tagged value may be headed by: the year its period ends in, and the
    fiscal year that end names (a 52/53-week year ending in the first days of January); for an opening
    balance (a row "Beginning balances", or a column "Balance at Beginning of Period" of `value`) the year
    after, since it is tagged as of the previous year's end."""
    end = tagged.period.end
    years = {end.year, fiscal_year_of(datetime.datetime(end.year, end.month, end.day))}
    column = value.period if value is not None else ""
    if tagged.period.instant and _OPENING_RE.search(f"{fact.parent} {fact.label} {column}"):
        years |= {year + 1 for year in years}
    return years


# --- rows: which fact prints which tagged row ----------------------------------------------------------


def _columns(fact: Fact, row: TaggedRow) -> dict[int, int]:
    """Tagged fact (index in row.facts) -> the fact's value index of the same column.

    Each tagged number is matched, in order, to the next value printing the same number; when the fact has
    a value for every number cell up to the last tagged one, the columns also line up one to one, and that reading wins
    unless it agrees on fewer numbers (a cell the table reader did not keep shifts the positions)."""
    by_number: dict[int, int] = {}
    cursor = 0
    previous: TaggedFact | None = None
    for k, tagged in enumerate(row.facts):
        if previous is not None and tagged.column == previous.column and k - 1 in by_number:
            by_number[k] = by_number[k - 1]  # a second tag on the same cell
            continue
        previous = tagged
        magnitude = printed_magnitude(tagged)
        if magnitude is None:
            continue
        for v in range(cursor, len(fact.values)):
            number = fact.values[v].number
            if number is not None and _same(abs(number), magnitude):
                by_number[k], cursor = v, v + 1
                break
    width = max((f.column for f in row.facts), default=-1) + 1
    if len(fact.values) < width:
        return by_number
    by_position = {k: tagged.column for k, tagged in enumerate(row.facts)}
    if _agreeing(fact, row, by_position) >= _agreeing(fact, row, by_number):
        return by_position
    return by_number


def _agreeing(fact: Fact, row: TaggedRow, columns: dict[int, int]) -> int:
    """How many tagged numbers of the row the fact prints in the column they are joined to."""
    count = 0
    for k, v in columns.items():
        magnitude = printed_magnitude(row.facts[k])
        number = fact.values[v].number
        if magnitude is not None and number is not None and _same(abs(number), magnitude):
            count += 1
    return count


def _pair_weight(fact: Fact, fact_key: str, row: TaggedRow) -> tuple[int, dict[int, int]]:
    """How well a fact and a tagged row match (0: they do not), and their columns."""
    columns = _columns(fact, row)
    agree = _agreeing(fact, row, columns)
    if fact_key and fact_key == row.key:
        # The same label: one agreeing number ties them (a row may print figures it does not tag), and a
        # row whose only tagged figures are dashes is joined by its label alone.
        numbers = [f for f in row.facts if printed_magnitude(f)]
        if agree or (not numbers and columns):
            return 2 + agree, columns
        return 0, columns
    distinct = {
        abs(fact.values[v].number or 0.0) for k, v in columns.items() if printed_magnitude(row.facts[k])
    }
    return (agree, columns) if agree >= 2 and len(distinct) >= 2 else (0, columns)


def _chain(pairs: list[tuple[int, int, int]]) -> list[tuple[int, int]]:
    """The heaviest set of (fact, row) pairs increasing in both, from weighted candidates (fact, row, weight):
    a longest-increasing-subsequence pass with a Fenwick tree of best chain weights by row."""
    if not pairs:
        return []
    rows = sorted({r for _, r, _ in pairs})
    size = len(rows)
    tree_best = [0] * (size + 1)
    tree_at = [-1] * (size + 1)
    best: list[int] = []
    back: list[int] = []

    def query(i: int) -> tuple[int, int]:  # best chain ending at a row rank < i (1-based prefix)
        value, at = 0, -1
        while i > 0:
            if tree_best[i] > value:
                value, at = tree_best[i], tree_at[i]
            i -= i & -i
        return value, at

    def update(i: int, value: int, at: int) -> None:
        while i <= size:
            if value > tree_best[i]:
                tree_best[i], tree_at[i] = value, at
            i += i & -i

    # Pairs of one fact must not chain with each other: read all of a fact's pairs before updating.
    ordered = sorted(range(len(pairs)), key=lambda p: (pairs[p][0], pairs[p][1]))
    best = [0] * len(pairs)
    back = [-1] * len(pairs)
    start = 0
    while start < len(ordered):
        end = start
        while end < len(ordered) and pairs[ordered[end]][0] == pairs[ordered[start]][0]:
            end += 1
        for p in ordered[start:end]:
            rank = bisect_left(rows, pairs[p][1])
            value, at = query(rank)
            best[p], back[p] = value + pairs[p][2], at
        for p in ordered[start:end]:
            update(bisect_left(rows, pairs[p][1]) + 1, best[p], p)
        start = end
    p = max(range(len(pairs)), key=lambda q: best[q])
    out: list[tuple[int, int]] = []
    while p >= 0:
        out.append((pairs[p][0], pairs[p][1]))
        p = back[p]
    return out[::-1]


def match_rows(facts: list[Fact], rows: list[TaggedRow]) -> dict[int, tuple[int, dict[int, int]]]:
    """Fact index -> (tagged row index, its columns), for the facts that print a tagged row. `facts` must be
    in filing order."""
    by_key: dict[str, list[int]] = defaultdict(list)
    by_number: dict[float, list[int]] = defaultdict(list)
    for r, row in enumerate(rows):
        by_key[row.key].append(r)
        for tagged in row.facts:
            magnitude = printed_magnitude(tagged)
            if magnitude:
                by_number[round(magnitude, 6)].append(r)
    candidates: list[tuple[int, int, int]] = []
    columns_of: dict[tuple[int, int], dict[int, int]] = {}
    for i, fact in enumerate(facts):
        key = label_key(fact.label)
        found = set(by_key.get(key, [])) if key else set()
        numbers = Counter(
            r for v in fact.values if v.number for r in set(by_number.get(round(abs(v.number), 6), []))
        )
        found.update(r for r, n in numbers.items() if n >= 2)
        for r in found:
            weight, columns = _pair_weight(fact, key, rows[r])
            if weight:
                candidates.append((i, r, weight))
                columns_of[(i, r)] = columns
    return {i: (r, columns_of[(i, r)]) for i, r in _chain(candidates)}


# --- what a joined fact says ---------------------------------------------------------------------------


def _scaled_words(value: float, fact: Fact, printed: FactValue) -> str:
    """A tagged value in the unit of the printed value's column: "1,243 million" for a table in millions."""
    scale = fact.scale_of(printed)
    if fact.per_share_of(printed) or not scale:
        return format_amount(value)
    word = {1e3: "thousand", 1e6: "million", 1e9: "billion"}.get(scale)
    shown = value / scale
    text = f"{shown:,.0f}" if shown == round(shown) else f"{shown:,.2f}"
    return f"{text} {word}" if word else format_amount(value)


def _year_words(value: FactValue) -> str:
    return f"FY{value.fiscal_year}" if value.fiscal_year else "a column of unknown period"


def _value_problem(fact: Fact, value: FactValue, tagged: TaggedFact) -> str | None:
    printed = printed_units(fact, value)
    if tagged.value is None:
        return None
    if printed is None:
        if tagged.value == 0:
            return None  # a dash printed for a tagged zero
        return f"Printed {value.raw} for {_year_words(value)} but tagged {_scaled_words(tagged.value, fact, value)}."
    # Signs are the filing's presentation (a cost in brackets may be tagged positive): compare magnitudes.
    if _same(abs(printed), abs(tagged.value)):
        return None
    return f"Printed {value.raw} for {_year_words(value)} but tagged {_scaled_words(abs(tagged.value), fact, value)}."


def _period_problem(fact: Fact, value: FactValue, tagged: TaggedFact) -> str | None:
    end = tagged.period.end
    if value.fiscal_year is None or value.fiscal_year in context_years(fact, tagged, value):
        return None
    span = "as of" if tagged.period.instant else "for the period ending"
    return (
        f"The column read as FY{value.fiscal_year} is tagged {span} {end.isoformat()}, "
        "so the period read from the table header is suspect."
    )


def _dominant(row: TaggedRow, joined: list[int]) -> tuple[str, list[str]]:
    """The row's concept (the one most of its joined values carry) and the members those values share."""
    facts = [row.facts[k] for k in joined] or list(row.facts)
    concept = Counter(f.concept for f in facts).most_common(1)[0][0]
    same = [f for f in facts if f.concept == concept]
    shared = set(same[0].dimensions)
    for f in same[1:]:
        shared &= set(f.dimensions)
    members = [member for _, member in sorted(shared)]
    return concept, members


def apply_join(fact: Fact, row: TaggedRow, columns: dict[int, int]) -> Fact:
    """The fact with the row's concept, members, each column's tagged value and any disagreement."""
    values = [v.model_copy() for v in fact.values]
    problems: list[str] = []
    joined: list[int] = []
    taken: set[int] = set()
    for k, v in sorted(columns.items(), key=lambda kv: kv[1]):
        if v in taken:
            continue  # two tags on one cell (nested facts): the first one gives the value
        taken.add(v)
        joined.append(k)
        tagged = row.facts[k]
        values[v].tagged = tagged.value
        for problem in (_value_problem(fact, values[v], tagged), _period_problem(fact, values[v], tagged)):
            if problem and problem not in problems:
                problems.append(problem)
    concept, members = _dominant(row, joined)
    return fact.model_copy(
        update={
            "values": values,
            "concept": concept,
            "concept_label": concept_label(concept),
            "dimensions": members,
            "mismatch": " ".join(problems) or None,
        }
    )


def join_tagged(facts: list[Fact], tagged: list[TaggedFact], order: list[int] | None = None) -> list[Fact]:
    """`facts` with the tagged figures of the same printed rows joined in (see the module docstring).
    `order` gives the facts' filing order when the list is not in it (facts come page by page)."""
    if not tagged or not facts:
        return facts
    rows = tagged_rows(tagged)
    sequence = order if order is not None else list(range(len(facts)))
    ordered = [facts[i] for i in sequence]
    matches = match_rows(ordered, rows)
    out = list(facts)
    for position, (r, columns) in matches.items():
        i = sequence[position]
        out[i] = apply_join(facts[i], rows[r], columns)
    return out


def filing_order(facts: list[Fact], chunks: list[Chunk]) -> list[int]:
    """Fact indices in the order the filing prints them: by their passage's offset, then as read."""
    offset = {c.chunk_id: c.char_start for c in chunks}
    return sorted(range(len(facts)), key=lambda i: (offset.get(facts[i].chunk_id, 0), i))


def filing_facts(filing_id: str, chunks: list[Chunk], data: bytes, source_type: SourceType) -> list[Fact]:
    """A filing's facts as ingestion keeps them: every labelled table row, and for an HTML filing with inline
    XBRL the tagged figures of the same rows joined in (PDF and text filings carry no tags)."""
    facts = read_facts(filing_id, chunks)
    if source_type != "html" or not facts:
        return facts
    tagged = read_inline_xbrl(data)
    if not tagged:
        return facts
    return join_tagged(facts, tagged, filing_order(facts, chunks))
