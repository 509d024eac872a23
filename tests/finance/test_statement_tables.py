"""A filing's statements rebuilt from hand-built facts: tables, periods as columns, printed order, filters."""

from __future__ import annotations

from core.finance.statement_tables import statement_tables
from core.models import Fact, FactValue

FILING = "f" * 64


def fact(n: int, label: str, values: dict, *, kind="income", table="STATEMENTS OF OPERATIONS", page=40, **kw):
    """A fact whose values are {fiscal year (None: unknown): raw}, in printed order."""
    return Fact(
        fact_id=f"{FILING[:16]}-F{n:05d}",
        filing_id=FILING,
        chunk_id=f"{FILING[:16]}-{page:05d}",
        page=page,
        kind=kind,
        table=table,
        label=label,
        text=f"| {label} | " + " | ".join(values.values()) + " |",
        scale=kw.pop("scale", 1e6),
        values=[
            FactValue(fiscal_year=y, period=str(y) if y else "", raw=raw, number=None)
            for y, raw in values.items()
        ],
        **kw,
    )


FACTS = [
    # Printed oldest first on purpose: columns still come newest first.
    fact(0, "Data Center", {2022: "10,613", 2023: "15,005"}, parent="Revenue"),
    fact(1, "Gaming", {2022: "12,462", 2023: "9,067"}, parent="Revenue"),
    fact(2, "Total revenue", {2022: "26,914", 2023: "26,974"}),
    # The statement continued on the next page under its own title: the same table.
    fact(3, "Research and development", {2022: "5,268", 2023: "7,339"}, page=41, table="(continued)"),
    fact(
        4,
        "Basic",
        {2022: "$3.91", 2023: "$1.76"},
        page=41,
        table="(continued)",
        parent="Net income per share",
        per_share=True,
        scale=None,
    ),
    fact(
        5,
        "Cash and cash equivalents",
        {2023: "$3,389", 2022: "$1,990"},
        kind="balance",
        table="BALANCE SHEETS",
        page=42,
        parent="Current assets",
    ),
    fact(6, "Goodwill", {2023: "4,372", 2022: "4,349"}, kind="balance", table="BALANCE SHEETS", page=42),
    fact(7, "Deferred revenue", {2023: "$572", 2022: "$502"}, kind="note", table="Deferred revenue", page=60),
    fact(
        8,
        "Compute & Networking",
        {2023: "15,068", 2022: "15,943", None: "(5)%"},
        kind="segment",
        table="Segment information",
        page=70,
    ),
]


def test_one_table_per_printed_table_with_periods_as_columns_newest_first():
    view = statement_tables(FILING, FACTS)
    assert view.facts == len(FACTS) and view.matched_by == "all"
    assert view.kinds == ["income", "balance", "segment", "note"]  # in the order of TABLE_KIND_NAMES
    income, balance, note, segment = view.tables
    assert income.kind_name == "Income statement" and income.title == "STATEMENTS OF OPERATIONS"
    assert income.pages == [40, 41] and income.unit == "in millions"
    assert [c.label for c in income.columns] == ["2023", "2022"]
    assert [c.label for c in segment.columns] == ["2023", "2022", "Column 3"]
    # Rows in printed order, each heading once above the rows under it, values by period as printed.
    assert [(r.label, r.heading, r.depth) for r in income.rows] == [
        ("Revenue", True, 0),
        ("Data Center", False, 1),
        ("Gaming", False, 1),
        ("Total revenue", False, 0),
        ("Research and development", False, 0),
        ("Net income per share", True, 0),
        ("Basic", False, 1),
    ]
    data_center = income.rows[1]
    assert data_center.values == {"2022": "10,613", "2023": "15,005"} and data_center.parent == "Revenue"
    assert data_center.page == 40 and data_center.chunk_id == FACTS[0].chunk_id and data_center.text
    assert income.rows[-1].unit == "per share" and data_center.unit == ""
    assert segment.rows[0].values == {"2023": "15,068", "2022": "15,943", "col3": "(5)%"}
    assert [r.label for r in balance.rows] == ["Current assets", "Cash and cash equivalents", "Goodwill"]
    assert note.title == "Deferred revenue"


def test_a_same_titled_table_far_away_is_another_table():
    later = fact(9, "Total revenue", {2023: "26,974"}, page=90)
    view = statement_tables(FILING, [*FACTS[:3], later], statement="income")
    assert [t.pages for t in view.tables] == [[40], [90]]


def test_statement_filter_keeps_one_kind_and_lists_every_kind():
    view = statement_tables(FILING, FACTS, statement="balance")
    assert [t.kind for t in view.tables] == ["balance"]
    assert view.kinds == ["income", "balance", "segment", "note"]


def test_query_finds_rows_by_the_words_of_label_heading_and_table():
    view = statement_tables(FILING, FACTS, query="revenue")
    assert view.matched_by == "words"
    found = [(t.kind, r.label) for t in view.tables for r in t.rows if not r.heading]
    # "Data Center" sits under "Revenue"; a table title alone does not make a row match.
    assert found == [
        ("income", "Data Center"),
        ("income", "Gaming"),
        ("income", "Total revenue"),
        ("note", "Deferred revenue"),
    ]
    # Every word must be there (a word as typed may be the start of one), one of them in label or heading.
    view = statement_tables(FILING, FACTS, query="Operations resea")
    assert [r.label for t in view.tables for r in t.rows] == ["Research and development"]
    view = statement_tables(FILING, FACTS, query="gaming", statement="balance")
    assert view.matched_by == "nothing" and view.tables == []


def test_when_words_find_nothing_rows_are_ranked_by_meaning():
    asked = []

    def meaning(text):
        asked.append(text)
        # Closest: Goodwill, then Deferred revenue; the rest too far to show.
        return [
            0.9 if f.label == "Goodwill" else 0.6 if f.label == "Deferred revenue" else 0.1 for f in FACTS
        ]

    view = statement_tables(FILING, FACTS, query="acquired intangibles", meaning=meaning)
    assert asked == ["acquired intangibles"] and view.matched_by == "meaning"
    assert [(t.kind, [(r.label, r.score) for r in t.rows]) for t in view.tables] == [
        ("balance", [("Goodwill", 0.9)]),
        ("note", [("Deferred revenue", 0.6)]),
    ]
    # Within a statement asked for, only its rows; without vectors, nothing is found.
    view = statement_tables(FILING, FACTS, query="acquired intangibles", statement="note", meaning=meaning)
    assert [r.label for t in view.tables for r in t.rows] == ["Deferred revenue"]
    view = statement_tables(FILING, FACTS, query="acquired intangibles", meaning=lambda text: None)
    assert view.matched_by == "nothing"


def test_words_match_first_and_no_facts_is_an_empty_view():
    def meaning(text):
        raise AssertionError("meaning is asked only when words find nothing")

    assert statement_tables(FILING, FACTS, query="goodwill", meaning=meaning).matched_by == "words"
    empty = statement_tables(FILING, [])
    assert (empty.facts, empty.kinds, empty.tables) == (0, [], [])
