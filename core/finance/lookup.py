"""Find the figure for a line item and year among table rows read from the evidence."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.finance.formula import Found, Lookup, Operand
from core.finance.rows import FigureRow
from core.finance.vocabulary import WORKING_CAPITAL_RE, as_item_value, label_rank, normalise_label
from core.text.tokens import content_terms


@dataclass(frozen=True)
class SourcedRow:
    """A table row and where it came from (`source` is opaque here: the graph puts a citation in it)."""

    row: FigureRow
    source: Any
    rank: int = 0  # order of the evidence it was read from (0 = best)


def _phrase_match(phrase: str, label: str) -> float:
    """How well a free phrase names a row label (for line items the lexicon does not know)."""
    want = set(content_terms(phrase))
    have = set(content_terms(normalise_label(label)))
    if not want or not have:
        return 0.0
    covered = len(want & have) / len(want)
    return covered * len(want & have) / len(want | have)


#: What printing the question's own words for a line item is worth, above the item's label order (its labels
#: rank 0-9: "Total revenue" before "Net sales").
ASKED_LABEL_BONUS = 4.0


def _same_words(phrase: str, label: str) -> bool:
    return set(content_terms(phrase)) == set(content_terms(normalise_label(label)))


def row_score(operand: Operand, row: FigureRow) -> float | None:
    """How well `row` reports `operand` (higher is better); None when it does not."""
    if operand.qualifier:
        # A segment's line item: the row names the segment, and the row or its table names the item.
        # Its heading may name either ("Greater China:" over "Operating income"; "Revenue by segment" over
        # "Data Center"); a row that names the segment but not the item is another figure of the segment.
        qualifier = set(content_terms(operand.qualifier))
        label = set(content_terms(normalise_label(row.label)))
        heading = set(content_terms(f"{row.group} {row.caption}"))
        if not qualifier or not qualifier <= label | heading:
            return None
        item_words = set(content_terms(operand.item.name if operand.item else operand.phrase)) - qualifier
        # Every word of the item, not one of them: "Operating expenses" is not the segment's operating income.
        in_label = (bool(item_words) and item_words <= label) or (
            operand.item is not None and label_rank(operand.item, row.label) is not None
        )
        group = set(content_terms(row.group))
        if item_words and not in_label and not item_words & heading:
            return None
        # Named by the row, then by its group ("Gross profit:" over "Fleet Software"), then only by the caption
        # ("Segment revenue and gross profit", which names the other rows' item too).
        named = 2.0 if in_label else 1.5 if item_words & group else 0.5 if item_words else 0.0
        return 6.0 + named + (1.0 if qualifier <= label | group else 0.0)
    if operand.item is not None:
        rank = label_rank(operand.item, row.label)
        if rank is None or row.per_share:
            return None
        stock = operand.item.statement == "balance"
        if row.statement is not None and (row.statement == "balance") != stock:
            # A balance is read at a date, a flow over a period: the cash flow statement's "Accounts
            # payable" row is the year's change, not the balance.
            return None
        if (
            row.statement == "cash_flow"
            and operand.item.statement != "cash_flow"
            and WORKING_CAPITAL_RE.search(row.group)
        ):
            return None  # "Changes in assets and liabilities: Income taxes" is a change, not the tax expense
        score = 10.0 - rank
        if operand.phrase != operand.item.name and _same_words(operand.phrase, row.label):
            # The question's own words for the item, printed as the row's label: "net sales" asked, the
            # "Net sales" row rather than "Total revenue" beside it.
            score += ASKED_LABEL_BONUS
        if row.statement == operand.item.statement:
            score += 5.0  # the primary statement beats a note or an MD&A table repeating the row
        elif row.statement is not None:
            score -= 2.0
        return score
    match = _phrase_match(operand.phrase, row.label)
    return 5.0 * match if match >= 0.5 else None


def make_lookup(rows: Sequence[SourcedRow], facts: Lookup | None = None) -> Lookup:
    """A lookup that picks, for an operand and year (and, in a quarterly report, the months to date asked
    for instead of the quarter), the best-labelled row with a value in that year among
    `rows` (the pages the research read); a line item they do not hold, or a phrase the lexicon does not know,
    is looked up among the filing's facts by meaning (`facts`). Found.source is the cited passage (it has
    `chunk` and `quote`)."""

    def lookup(operand: Operand, year: int, months: int | None = None) -> Found | None:
        def from_facts() -> Found | None:
            if facts is None:
                return None
            return facts(operand, year, months=months) if months is not None else facts(operand, year)

        if operand.item is None and not operand.qualifier and facts is not None:
            return from_facts() or from_rows(operand, year, months)
        return from_rows(operand, year, months) or from_facts()

    def from_rows(operand: Operand, year: int, months: int | None) -> Found | None:
        best: tuple[float, SourcedRow, float] | None = None
        for sourced in rows:
            figure = sourced.row.value_for(year, months)
            # Line items are amounts; a named row (a segment's margin) may be a percentage.
            if figure is None or (figure.is_percent and operand.item is not None):
                continue
            score = row_score(operand, sourced.row)
            if score is None:
                continue
            score -= 0.05 * sourced.rank
            if best is None or score > best[0]:
                value = as_item_value(operand.item, figure.value, sourced.row.label)
                best = (score, sourced, value)
        if best is None:
            return None
        _, sourced, value = best
        column = sourced.row.column_for(year, months)
        figure = None if column is None else sourced.row.values[column]
        return Found(
            value=value,
            label=sourced.row.label,
            year=year,
            source=sourced.source,
            scale=sourced.row.scale,
            percent=bool(figure and figure.is_percent),
            months=None if column is None else sourced.row.months_of(column),
        )

    return lookup
