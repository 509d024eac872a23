"""Read a filing's facts at ingestion: every labelled table row of every page, with its periods, unit and
the passage that prints it.

Pages are rebuilt from the passages (a passage that starts on the page before leads the page, since it may
carry the title and period header of a table the page continues); each row is read by core.finance.rows,
which gives its label, the heading it sits under, one value per column, the fiscal year of each column from
the table's own header, the statement it sits in and the table's unit. A column whose year the header does
not give stays without a year: such a value is never used for a period-specific answer.
"""

from __future__ import annotations

import re
from collections import defaultdict

from core.finance.page_text import PageText, build_page
from core.finance.rows import FigureRow, read_rows, scale_at_end
from core.models import Chunk, annual_item
from core.models.facts import PRIMARY_STATEMENTS, Fact, FactValue, TableKind
from core.text.periods import FiscalCalendar

#: How a fact's id is written: the filing id's first 16 characters and the row's number in the filing.
_ID_DIGITS = 5
_SEGMENT_RE = re.compile(r"\bsegments?\b|\breportable\b|\bgeographic|\bby region\b", re.I)
_EQUITY_RE = re.compile(r"\bequity\b|\bstockholders\b|\bshareholders\b", re.I)
#: A table of contents or an index of the statements lists page numbers, not figures.
_CONTENTS_RE = re.compile(r"\btable of contents\b|\bindex to\b|^index\b", re.I)


def _kind(row: FigureRow, section: str) -> TableKind:
    """The kind of table a row sits in, from its statement title, its caption and the Item it is in."""
    if row.statement in ("income", "balance", "cash_flow"):
        return row.statement  # type: ignore[return-value]
    if row.caption and _EQUITY_RE.search(row.caption) and re.search(r"\bstatements?\b", row.caption, re.I):
        return "equity"
    if _SEGMENT_RE.search(row.caption):
        return "segment"
    item = annual_item(section)  # a 10-Q's Part I Item 2 is MD&A like a 10-K's Item 7
    if item == "Item 7":
        return "mdna"
    if item == "Item 8":
        return "note"
    return "other"


def _values(row: FigureRow) -> list[FactValue]:
    out = []
    for k, (figure, year) in enumerate(zip(row.values, row.years, strict=False)):
        header = row.columns[k] if k < len(row.columns) else ""
        scale, per_share = row.column_units[k] if k < len(row.column_units) else (None, False)
        out.append(
            FactValue(
                fiscal_year=year,
                period=header or (str(year) if year else ""),
                raw=figure.raw if figure is not None else "—",
                number=figure.value if figure is not None else None,
                percent=figure.is_percent
                if figure
                else k < len(row.percent_dashes) and row.percent_dashes[k],
                # A column with a unit of its own (units per column): its scale, 1.0 for per-share figures.
                scale=1.0 if per_share else scale,
                per_share=per_share,
                months=row.months_of(k),
                period_end=row.periods[k].end if k < len(row.periods) else None,
            )
        )
    return out


#: A row label longer than this is a sentence that ends in a number, not a table row.
_MAX_LABEL_WORDS = 20


def _is_fact(row: FigureRow) -> bool:
    """A table row of figures: a short label, and not a lone bare number (a page or footnote number)."""
    if len(row.label.split()) > _MAX_LABEL_WORDS or _CONTENTS_RE.search(row.caption):
        return False
    figures = [v for v in row.values if v is not None]
    if len(figures) == 1 and not any(row.years):
        lone = figures[0]
        return lone.is_currency or lone.is_percent or "," in lone.raw or "." in lone.raw
    return bool(figures)


def _page_facts(page: PageText, carried: float | None) -> list[tuple[FigureRow, Chunk, str]]:
    """(row, passage, quote) for every row of the page's own text (rows of a leading passage from the page
    before belong to that page); `carried` is the unit in force at the end of the page before."""
    own = page.own_start()
    out = []
    for row in read_rows(page.text, carried):
        if row.start < own or not _is_fact(row):
            continue
        found = page.passage_of(row.start, row.end)
        if found is None:
            continue
        chunk, part = found
        out.append((row, chunk, part or row.text))
    return out


def read_facts(filing_id: str, chunks: list[Chunk]) -> list[Fact]:
    """Every labelled table row of a filing as a fact, in filing order."""
    by_page: dict[int, list[Chunk]] = defaultdict(list)
    for chunk in chunks:
        by_page[chunk.page].append(chunk)
    section_of = {c.chunk_id: c.section for c in chunks}
    facts: list[Fact] = []
    previous: Chunk | None = None
    carried: float | None = None  # the unit in force at the end of the previous page of the same Item
    for number, page_chunks in sorted(by_page.items()):
        lead = [previous] if previous is not None else []
        if previous is not None and previous.section != min(page_chunks, key=lambda c: c.char_start).section:
            carried = None  # a table does not run on from one Item into the next
        previous = max(page_chunks, key=lambda c: c.char_start)
        page = build_page(filing_id, number, [*lead, *page_chunks])
        if page is None:
            continue
        page_rows = _page_facts(page, carried)
        carried = scale_at_end(page.text) or carried
        for row, chunk, quote in page_rows:
            section = section_of.get(chunk.chunk_id, "")
            facts.append(
                Fact(
                    fact_id=f"{filing_id[:16]}-F{len(facts):0{_ID_DIGITS}d}",
                    filing_id=filing_id,
                    chunk_id=chunk.chunk_id,
                    page=number,
                    section=section,
                    table=row.caption,
                    kind=_kind(row, section),
                    label=row.label,
                    parent=row.group.strip(" :"),
                    text=quote,
                    scale=None if row.per_share else row.unit_scale,
                    per_share=row.per_share,
                    values=_values(row),
                )
            )
    return _continued_statements(facts)


def _continued_statements(facts: list[Fact]) -> list[Fact]:
    """A primary statement continued on the next page without its period header (a cash flow statement's
    supplemental disclosures) keeps the columns of the page before: a row with no period read, on the page
    after a dated row of the same statement (same title, same number of columns), takes that row's periods."""
    out: list[Fact] = []
    dated: Fact | None = None  # the last row of a primary statement whose periods were read
    for fact in facts:
        if fact.kind in PRIMARY_STATEMENTS and any(v.fiscal_year for v in fact.values):
            dated = fact
        elif (
            dated is not None
            and fact.kind == dated.kind
            and fact.table == dated.table
            and fact.page in (dated.page, dated.page + 1)
            and len(fact.values) == len(dated.values)
            and all(v.fiscal_year is None for v in fact.values)
        ):
            values = [
                v.model_copy(
                    update={
                        "fiscal_year": d.fiscal_year,
                        "period": v.period or d.period,
                        "months": d.months,
                        "period_end": d.period_end,
                    }
                )
                for v, d in zip(fact.values, dated.values, strict=True)
            ]
            fact = fact.model_copy(update={"values": values})
        out.append(fact)
    return out


def in_fiscal_calendar(facts: list[Fact], calendar: FiscalCalendar | None) -> list[Fact]:
    """Facts with each value's year read in the company's fiscal calendar (see rows.in_fiscal_years): a
    quarterly report's columns print the calendar year they end in. A report on a whole year is unchanged."""
    if calendar is None or calendar.quarter is None:
        return facts
    out = []
    for fact in facts:
        values = [
            v.model_copy(update={"fiscal_year": calendar.column_year(v.fiscal_year, v.period_end)})
            for v in fact.values
        ]
        out.append(fact.model_copy(update={"values": values}))
    return out
