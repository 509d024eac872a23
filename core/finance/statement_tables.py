"""A filing's statements as tables, rebuilt from its facts (the table rows kept at ingestion).

Facts come in filing order. Consecutive facts of one kind of table and one printed title are one table; a
primary statement continued on the next page is one table too, whatever its continuation page is titled, as
long as its columns are the same years. The periods are the table's columns, newest fiscal year first
(columns whose year the header did not give follow in printed order); the rows stay in printed order, with
the heading each sits under shown above it as the filing prints it. Values are kept as printed, in the
table's unit.

A query finds rows by their words: every content word of the query must be in the row's label, its heading
or its table's title (the title of the statement a continued page belongs to), and at least one in the label
or heading. When words find nothing, the rows closest in
meaning (scored by a function the caller gives, e.g. the embedding of each fact's name) are kept, and the
tables holding them come best first.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence

from core.finance.compute import UNIT_WORD
from core.models.facts import (
    TABLE_KIND_NAMES,
    Fact,
    FinancialStatements,
    MatchedBy,
    StatementColumn,
    StatementRow,
    StatementTable,
    TableKind,
)
from core.text.tokens import content_terms

#: The statements a filing prints in full; one of them continued on the next page is still one table.
PRIMARY_KINDS: frozenset[str] = frozenset({"income", "balance", "cash_flow", "equity"})
#: Rows found by meaning: at most this many, each at least this close (cosine of the name embeddings).
MEANING_LIMIT = 10
MIN_MEANING = 0.4

#: How closely each fact (in the order given) matches a query in meaning; None when it cannot be told.
Meaning = Callable[[str], Sequence[float] | None]


def _years(fact: Fact) -> tuple[int | None, ...]:
    return tuple(v.fiscal_year for v in fact.values)


def _same_table(last: Fact, fact: Fact) -> bool:
    """Whether `fact` continues the table `last` sits in."""
    if fact.kind != last.kind or fact.page < last.page or fact.page > last.page + 1:
        return False
    if fact.table == last.table:
        return True
    # A statement continued on the next page, under a title of its own ("… (continued)"), same years.
    return fact.kind in PRIMARY_KINDS and fact.page == last.page + 1 and _years(fact) == _years(last)


def group_tables(facts: list[Fact]) -> list[list[Fact]]:
    """The facts (in filing order) split into the printed tables they come from."""
    groups: list[list[Fact]] = []
    for fact in facts:
        if groups and _same_table(groups[-1][-1], fact):
            groups[-1].append(fact)
        else:
            groups.append([fact])
    return groups


def unit_words(scale: float | None) -> str:
    """'in millions' for a scale of 1e6; '' for none (values as printed)."""
    word = UNIT_WORD.get(scale or 0.0)
    return f"in {word}s" if word else ""


def _column_keys(fact: Fact) -> list[tuple[str, StatementColumn]]:
    """(key, column) for each value of a fact, in printed order. A year's key is the year (a second column of
    the same year gets '#2'); a column whose year is unknown is keyed by its position."""
    seen: Counter[int] = Counter()
    out = []
    for position, value in enumerate(fact.values, start=1):
        year = value.fiscal_year
        if year is None:
            key = f"col{position}"
            label = value.period or f"Column {position}"
        else:
            seen[year] += 1
            key = str(year) if seen[year] == 1 else f"{year}#{seen[year]}"
            # "Year Ended December 31, 2025" is the year's column; a balance's date ("January 29, 2023") says more.
            shown = (
                str(year)
                if not value.period or re.search(r"\byears?\b", value.period, re.I)
                else value.period
            )
            label = shown + ("" if seen[year] == 1 else f" ({seen[year]})")
        out.append((key, StatementColumn(key=key, label=label, fiscal_year=year)))
    return out


def _columns(facts: list[Fact]) -> list[StatementColumn]:
    """The table's period columns: fiscal years newest first, then columns of unknown year as printed."""
    columns: dict[str, StatementColumn] = {}
    positions: dict[str, int] = {}
    for fact in facts:
        for position, (key, column) in enumerate(_column_keys(fact)):
            columns.setdefault(key, column)
            positions.setdefault(key, position)

    def order(key: str) -> tuple:
        year = columns[key].fiscal_year
        return (0, -year, key) if year is not None else (1, positions[key], key)

    return [columns[key] for key in sorted(columns, key=order)]


def _table_unit(facts: list[Fact]) -> float | None:
    """The scale most of the table's amounts are in (per-share rows aside)."""
    scales = Counter(f.scale for f in facts if not f.per_share and f.scale)
    return scales.most_common(1)[0][0] if scales else None


def _row(fact: Fact, table_scale: float | None, score: float | None) -> StatementRow:
    under = bool(fact.parent) and fact.parent != fact.label
    if fact.per_share:
        unit = "per share"
    elif fact.scale != table_scale:
        unit = unit_words(fact.scale) or "as printed"
    else:
        unit = ""
    return StatementRow(
        label=fact.label,
        parent=fact.parent if under else "",
        depth=1 if under else 0,
        values={key: value.raw for (key, _), value in zip(_column_keys(fact), fact.values, strict=True)},
        unit=unit,
        fact_id=fact.fact_id,
        page=fact.page,
        chunk_id=fact.chunk_id,
        text=fact.text,
        score=score,
    )


def _rows(facts: list[Fact], table_scale: float | None, scores: dict[str, float]) -> list[StatementRow]:
    """The rows in printed order, each run of rows under a heading led by that heading."""
    rows: list[StatementRow] = []
    heading = ""
    for fact in facts:
        row = _row(fact, table_scale, scores.get(fact.fact_id))
        if row.parent and row.parent != heading:
            rows.append(StatementRow(label=row.parent, heading=True, page=fact.page, chunk_id=fact.chunk_id))
        heading = row.parent
        rows.append(row)
    return rows


def _table(facts: list[Fact], kept: list[Fact], scores: dict[str, float]) -> StatementTable:
    first = facts[0]
    scale = _table_unit(facts)
    return StatementTable(
        kind=first.kind,
        kind_name=TABLE_KIND_NAMES[first.kind],
        title=first.table or TABLE_KIND_NAMES[first.kind],
        unit=unit_words(scale),
        pages=sorted({f.page for f in facts}),
        columns=_columns(facts),
        rows=_rows(kept, scale, scores),
    )


def _prefix_hit(term: str, words: set[str]) -> bool:
    return any(word.startswith(term) for word in words)


def words_match(terms: list[str], fact: Fact, title: str) -> bool:
    """Every query term in the row's label, heading or its table's `title` (a term may be the start of a
    word, as typed), and at least one in its label or heading."""
    own = set(content_terms(f"{fact.label} {fact.parent}"))
    anywhere = own | set(content_terms(f"{title} {fact.table}"))
    return all(_prefix_hit(t, anywhere) for t in terms) and any(_prefix_hit(t, own) for t in terms)


def statement_tables(
    filing_id: str,
    facts: list[Fact],
    *,
    statement: TableKind | None = None,
    query: str | None = None,
    meaning: Meaning | None = None,
) -> FinancialStatements:
    """A filing's tables from its facts (in filing order): one kind of table when `statement` is given, and
    only the rows a `query` finds (by words; by `meaning`, scored over `facts` in order, when words find
    none). Tables a query leaves empty are left out."""
    kinds = [k for k in TABLE_KIND_NAMES if any(f.kind == k for f in facts)]
    query = (query or "").strip()
    view = FinancialStatements(
        filing_id=filing_id,
        facts=len(facts),
        kinds=kinds,  # type: ignore[arg-type]
        statement=statement,
        query=query,
    )
    candidates = [f for f in facts if statement is None or f.kind == statement]
    groups = group_tables(candidates)
    terms = content_terms(query)
    if not terms:
        view.tables = [_table(group, group, {}) for group in groups]
        return view

    matched_by: MatchedBy = "words"
    scores: dict[str, float] = {}
    found = {f.fact_id for group in groups for f in group if words_match(terms, f, group[0].table)}
    if not found and meaning is not None:
        similarity = meaning(query)
        if similarity is not None:
            ranked = sorted(
                (
                    (float(s), f.fact_id)
                    for f, s in zip(facts, similarity, strict=True)
                    if float(s) >= MIN_MEANING
                ),
                reverse=True,
            )
            allowed = {f.fact_id for f in candidates}
            scores = {fact_id: s for s, fact_id in ranked if fact_id in allowed}
            scores = dict(list(scores.items())[:MEANING_LIMIT])
            found = set(scores)
            matched_by = "meaning"
    if not found:
        view.matched_by = "nothing"
        return view
    tables = [_table(group, [f for f in group if f.fact_id in found], scores) for group in groups]
    tables = [t for t in tables if t.rows]
    if matched_by == "meaning":
        tables.sort(key=lambda t: -max(r.score or 0.0 for r in t.rows))
    view.matched_by = matched_by
    view.tables = tables
    return view
