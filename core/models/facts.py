"""Figures as facts: every labelled row of every table of a filing, with a value per period, kept at
ingestion so that any line item a filing prints can be found, cited and computed with."""

from __future__ import annotations

import re
from datetime import date
from typing import Literal

from pydantic import BaseModel, Field

from core.text.periods import of_length

#: What kind of table a row sits in: a primary statement, the equity statement, a segment table, an MD&A
#: table, a note to the statements, or another table.
TableKind = Literal["income", "balance", "cash_flow", "equity", "segment", "mdna", "note", "other"]
#: The statements that report a company's figures; other tables repeat, part or explain them.
PRIMARY_STATEMENTS = frozenset(["income", "balance", "cash_flow"])
TABLE_KIND_NAMES: dict[str, str] = {
    "income": "Income statement",
    "balance": "Balance sheet",
    "cash_flow": "Cash flow statement",
    "equity": "Statement of equity",
    "segment": "Segment table",
    "mdna": "MD&A table",
    "note": "Note to the statements",
    "other": "Other table",
}


#: Words of a label that name no figure by themselves ("Balance at end of period", "Total", "Other, net").
_GENERIC_LABEL_WORDS = frozenset(
    [
        "balance",
        "balances",
        "at",
        "as",
        "of",
        "the",
        "beginning",
        "end",
        "ending",
        "of",
        "period",
        "year",
        "quarter",
        "total",
        "totals",
        "other",
        "net",
        "and",
        "in",
        "for",
        "amount",
        "amounts",
    ]
)


class FactValue(BaseModel):
    """One printed value of a row: its period, the number as printed (signed) and in units."""

    fiscal_year: int | None = Field(default=None, description="The column's fiscal year; None: unknown.")
    period: str = Field(
        default="", description="The column's header as printed ('2023', 'January 29, 2023')."
    )
    raw: str = Field(description="The value as printed ('(1,577)', '—').")
    number: float | None = Field(description="As printed, signed; None for a dash (not reported).")
    percent: bool = False
    tagged: float | None = Field(
        default=None, description="The inline-XBRL value of the same cell, in units, when the filing tags it."
    )
    scale: float | None = Field(
        default=None,
        description="The column's own unit where the table states units per column ('Number of RSUs (in "
        "thousands)': 1e3; 1.0 for a per-share column); None: the table's unit (Fact.scale).",
    )
    per_share: bool = Field(default=False, description="A per-share column ('Fair Value Per RSU').")
    months: int | None = Field(
        default=None,
        description="How many months the column covers where its header says (3: 'Three Months Ended'; None: "
        "a balance at a date, or not said).",
    )
    period_end: date | None = Field(
        default=None, description="The date the column's period ends, if printed."
    )

    def unit_scale(self, table_scale: float | None) -> float | None:
        """The scale of this value: its column's own unit, else the table's (`Fact.scale`)."""
        return self.scale if self.scale is not None else table_scale

    def value(self, scale: float | None) -> float | None:
        """The value in units: the column's own unit, else the table's `scale`, applied (percentages
        unscaled; per-share rows come with no scale)."""
        if self.number is None:
            return None
        return self.number if self.percent else self.number * (self.unit_scale(scale) or 1.0)


class Fact(BaseModel):
    """A labelled table row of a filing: what it reports, for which periods, and the passage that prints it."""

    fact_id: str
    filing_id: str
    chunk_id: str = Field(description="The passage that holds the row (cite it).")
    page: int
    section: str = ""
    table: str = Field(default="", description="The table's title or caption.")
    kind: TableKind = "other"
    label: str
    parent: str = Field(
        default="", description="The heading the row sits under ('Revenues', 'Current assets')."
    )
    text: str = Field(description="The row as printed, whitespace collapsed: the quote.")
    scale: float | None = Field(
        default=None,
        description="The table's unit: 1e6 for a table 'in millions'; None: as printed. A value whose column "
        "states a unit of its own carries it (FactValue.scale).",
    )
    per_share: bool = False
    values: list[FactValue] = Field(default_factory=list)
    concept: str | None = Field(default=None, description="Inline-XBRL concept of the row, when tagged.")
    concept_label: str | None = None
    dimensions: list[str] = Field(default_factory=list, description="XBRL members when the row is a part.")
    mismatch: str | None = Field(
        default=None, description="Where the printed and the tagged values disagree, in a sentence."
    )

    def scale_of(self, value: FactValue) -> float | None:
        """The scale of one of the row's values: its column's own unit, else the table's."""
        return value.unit_scale(self.scale)

    def per_share_of(self, value: FactValue) -> bool:
        """A per-share value: the row is per share, or its column is."""
        return self.per_share or value.per_share

    def value_for(self, fiscal_year: int, months: int | None = None) -> FactValue | None:
        """The value printed in the column of `fiscal_year` (None when the row has no such column); of a
        quarter's and a year to date's columns, the one `months` long, else the shorter (the quarter)."""
        found = [v for v in self.values if v.fiscal_year == fiscal_year]
        kept = of_length([v.months for v in found], months)
        return found[kept[0]] if kept else None

    @property
    def name(self) -> str:
        """The row's label with the heading it sits under ('Revenue — Data Center')."""
        return f"{self.parent} — {self.label}" if self.parent and self.parent != self.label else self.label

    @property
    def generic(self) -> bool:
        """A label that says what it is only with its table: "Balance at end of period", "Total", "Other"."""
        words = [w for w in re.findall(r"[a-z]+", self.label.lower()) if w not in _GENERIC_LABEL_WORDS]
        return not words

    @property
    def search_name(self) -> str:
        """What the row is, for finding it by meaning: its name, with the table's title when the label alone
        is generic ("Deferred Revenue: Balance at end of period"). On a primary statement the heading above a
        row is a section ("Adjustments to reconcile net income …"), not part of what the row is."""
        if self.generic and self.table:
            return f"{self.table}: {self.name}"
        return self.label if self.kind in PRIMARY_STATEMENTS else self.name


# --- A filing's statements as tables (what the Library and the `facts` command show) ----------------------

#: How rows of a statements view were chosen: every row, rows whose words match the query, rows closest in
#: meaning to it (no row's words matched), or none (nothing matched).
MatchedBy = Literal["all", "words", "meaning", "nothing"]


class StatementColumn(BaseModel):
    """A period column of a table: its key in the rows' values, its header, its fiscal year (None: unknown)."""

    key: str
    label: str
    fiscal_year: int | None = None


class StatementRow(BaseModel):
    """A row of a table as printed: a heading (no values) or a fact's label with its values by column key."""

    label: str
    parent: str = ""
    depth: int = Field(default=0, description="1 for a row under a heading, 0 for a heading or a top row.")
    heading: bool = Field(default=False, description="A heading the filing prints above its rows.")
    values: dict[str, str] = Field(default_factory=dict, description="Column key -> the value as printed.")
    unit: str = Field(default="", description="The row's unit where it is not the table's ('per share').")
    fact_id: str = ""
    page: int | None = None
    chunk_id: str = ""
    text: str = Field(default="", description="The row as printed: the quote to find in its passage.")
    score: float | None = Field(
        default=None, description="Closeness in meaning to the query, when ranked so."
    )


class StatementTable(BaseModel):
    """One printed table of a filing (a statement continued over pages is one table), rows in printed order."""

    kind: TableKind
    kind_name: str
    title: str
    unit: str = Field(default="", description="The unit of its amounts as printed ('in millions'), or ''.")
    pages: list[int] = Field(default_factory=list)
    columns: list[StatementColumn] = Field(default_factory=list)
    rows: list[StatementRow] = Field(default_factory=list)


class FinancialStatements(BaseModel):
    """A filing's tables built from its facts, optionally one kind of table and the rows a query finds."""

    filing_id: str
    facts: int = Field(description="How many facts the filing has (0: none read, e.g. an older index).")
    kinds: list[TableKind] = Field(default_factory=list, description="The kinds of table the filing has.")
    statement: TableKind | None = None
    query: str = ""
    matched_by: MatchedBy = "all"
    tables: list[StatementTable] = Field(default_factory=list)
