"""A filing's financial statements in the Library: tables built from its facts, a label search, and each
row's page and passage where the filing prints it."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.models import TABLE_KIND_NAMES, Citation, Filing, StatementRow, StatementTable
from core.service import Workbench
from core.service.display import escape_markdown
from views.components.cited_passage import show_passage

#: An em space per level: st.dataframe shows leading spaces of a cell, so a row under a heading is indented.
_INDENT = "\u2003"


def statement_frame(table: StatementTable) -> pd.DataFrame:
    """The table as printed: line item (indented under its heading), one column per period, then the row's
    unit where it differs from the table's, its page, and its closeness when it was found by meaning."""
    show_unit = any(r.unit for r in table.rows)
    show_score = any(r.score is not None for r in table.rows)
    records = []
    for row in table.rows:
        record = {"Line item": _INDENT * row.depth + row.label}
        record |= {c.label: row.values.get(c.key, "") for c in table.columns}
        if show_unit:
            record["Unit"] = row.unit
        record["Page"] = "" if row.heading or row.page is None else str(row.page)
        if show_score:
            record["Match"] = "" if row.score is None else f"{row.score:.2f}"
        records.append(record)
    return pd.DataFrame(records, columns=list(records[0]) if records else None)


def _show_table(table: StatementTable) -> None:
    pages = ", ".join(str(p) for p in table.pages)
    st.markdown(f"**{escape_markdown(table.title)}**")
    st.caption(
        f"{table.kind_name}; {escape_markdown(table.unit or 'values as printed')}; "
        f"page{'s' if len(table.pages) > 1 else ''} {pages}."
    )
    right = {c.label: st.column_config.TextColumn(alignment="right") for c in table.columns}
    st.dataframe(statement_frame(table), hide_index=True, width="stretch", column_config=right)


def _row_name(row: StatementRow) -> str:
    where = f"{row.parent} — {row.label}" if row.parent else row.label
    return f"{where} (page {row.page})"


def show_financials(bench: Workbench, filing: Filing, outdated: bool) -> None:
    """The Financials view of one filing: statement selector, label search, tables, and a row's passage."""
    key = filing.filing_id[:16]
    kinds = bench.statements(filing.filing_id).kinds
    if not kinds:
        if outdated:
            st.info(
                "This filing was indexed before table rows were kept as facts, so its statements cannot be "
                "shown yet. Use **Re-index them** above to read them.",
                icon=":material/info:",
            )
        else:
            st.info("No table rows with figures were found in this filing.", icon=":material/info:")
        return
    left, right = st.columns([3, 2])
    with left:
        statement = st.radio(
            "Statement", kinds, format_func=TABLE_KIND_NAMES.get, horizontal=True, key=f"fin-kind-{key}"
        )
    with right:
        query = st.text_input(
            "Find rows by label",
            key=f"fin-query-{key}",
            placeholder="e.g. deferred revenue, depreciation, cash paid for interest",
            help="Rows whose label, heading or table title has these words; when none has them, the rows "
            "closest in meaning.",
        )
    view = bench.statements(filing.filing_id, statement=statement, query=query)
    shown = escape_markdown(view.query)
    if view.matched_by == "nothing":
        st.info(f"No row of this statement matches “{shown}”.", icon=":material/search_off:")
        return
    if view.matched_by == "meaning":
        st.caption(
            f"No row's label has the words “{shown}”; the rows closest in meaning are shown, the best table "
            "first (Match: closeness of the row's name to your words, 0 to 1)."
        )
    for table in view.tables:
        _show_table(table)

    rows = {r.fact_id: r for t in view.tables for r in t.rows if not r.heading}
    chosen = st.selectbox(
        "Open a row's page and passage",
        list(rows),
        index=None,
        format_func=lambda fact_id: _row_name(rows[fact_id]),
        placeholder="Choose a row",
        key=f"fin-row-{key}",
    )
    if chosen is None:
        return
    row = rows[chosen]
    st.caption(f"{escape_markdown(filing.label)}, page {row.page}: the row is marked in its passage.")
    show_passage(
        bench,
        Citation(
            number=0,
            evidence_id=row.fact_id,
            quote=row.text,
            chunk_id=row.chunk_id,
            filing_id=filing.filing_id,
            filing_label=filing.label,
            page=row.page,
        ),
    )
