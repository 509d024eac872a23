"""Facts read at ingestion: every labelled table row, with its periods, the heading it sits under, its
unit and the passage that prints it; figure phrases a question asks for in words the lexicon lacks."""

from __future__ import annotations

import pytest

from core.finance.facts import read_facts
from core.finance.requests import figure_requests, unknown_figure_phrases
from core.models import Chunk

FILING = "f" * 64

BALANCE = """CONSOLIDATED BALANCE SHEETS (In millions)
|  | January 29, 2023 | January 30, 2022 |
|---|---|---|
| Current assets: |  |  |
| Cash and cash equivalents | $ 3,389 | $ 1,990 |
| Inventories | 5,159 | 2,605 |
| Total current assets | 23,073 | 28,829 |
| Goodwill | 4,372 | 4,349 |"""

NOTE = """Deferred Revenue
The following table shows the changes in deferred revenue (in millions).
|  | Jan 29, 2023 | Jan 30, 2022 |
|---|---|---|
| Balance at beginning of period | $ 502 | $ 451 |
| Deferred revenue added during the period | 830 | 821 |
| Revenue recognized during the period | (760) | (778) |
| Balance at end of period | $ 572 | $ 502 |"""

SEGMENTS = """Segment information (in millions)
|  | U.S. | Canada | Total |
|---|---|---|---|
| 2021 |  |  |  |
| Total revenue | 122,142 | 22,434 | 144,576 |
| 2020 |  |  |  |
| Total revenue | 113,231 | 19,931 | 133,162 |"""

CONTENTS = """TABLE OF CONTENTS
|  | Page |
|---|---|
| Item 1. Business | 3 |
| Item 7. Management's Discussion | 34 |"""


def _chunk(n: int, text: str, page: int, section: str = "Item 8") -> Chunk:
    return Chunk(
        chunk_id=f"c{n}",
        filing_id=FILING,
        section=section,
        page=page,
        chunk_index=n,
        char_start=n * 10_000,
        char_end=n * 10_000 + len(text),
        kind="table",
        text=text,
    )


@pytest.fixture(scope="module")
def facts():
    chunks = [
        _chunk(0, CONTENTS, 1, "Front matter"),
        _chunk(1, BALANCE, 50),
        _chunk(2, NOTE, 70),
        _chunk(3, SEGMENTS, 80),
    ]
    return read_facts(FILING, chunks)


def test_every_table_row_is_a_fact_with_its_periods_unit_and_passage(facts):
    inventories = next(f for f in facts if f.label == "Inventories")
    assert inventories.kind == "balance" and inventories.parent == "Current assets"
    assert inventories.scale == 1e6 and inventories.chunk_id == "c1" and inventories.page == 50
    assert inventories.value_for(2023).number == 5159 and inventories.value_for(2022).number == 2605
    assert inventories.text == "| Inventories | 5,159 | 2,605 |"
    # A group's total ends the group: the rows after it sit under no heading.
    assert next(f for f in facts if f.label == "Goodwill").parent == ""


def test_a_table_of_contents_is_not_a_fact(facts):
    assert not [f for f in facts if f.page == 1]


def test_a_generic_row_takes_its_meaning_from_its_table(facts):
    closing = next(f for f in facts if f.label == "Balance at end of period")
    assert closing.generic and closing.table.startswith("The following table shows the changes in deferred")
    assert "deferred revenue" in closing.search_name
    assert closing.value_for(2023).number == 572
    assert next(f for f in facts if f.label.startswith("Revenue recognized")).value_for(2023).number == -760


def test_a_year_heading_a_block_of_segment_columns_gives_its_rows_the_period(facts):
    rows = [f for f in facts if f.label == "Total revenue"]
    assert [r.values[0].fiscal_year for r in rows] == [2021, 2020]
    # Several columns share the year: only the one headed "Total" answers for that period.
    assert rows[0].kind == "segment"


@pytest.mark.parametrize(
    ("question", "phrase"),
    [
        ("How big is the company's deferred revenue balance at the end of fiscal 2023?", "deferred revenue"),
        (
            "how much cash did the company actually pay in income taxes in fiscal 2023",
            "cash pay in income taxes",
        ),
        (
            "What was the company's insurance reserves liability at December 31, 2021?",
            "insurance reserves liability",
        ),
        ("Goodwill on the company's balance sheet at year-end 2021, in USD millions?", "Goodwill"),
    ],
)
def test_figures_the_lexicon_does_not_list_are_asked_for_in_their_own_words(question, phrase):
    assert unknown_figure_phrases(question) == [phrase]
    request = figure_requests(question, 2023)[-1]
    assert request.name == phrase and not request.line_items


@pytest.mark.parametrize(
    "question",
    [
        "What is the FY2018 capital expenditure amount (in USD millions) for the company?",
        "What are the major products and services that the company sells as of FY22?",
        "What are the geographies that the company primarily operates in as of FY2022?",
        "Does the company have an improving operating margin profile as of FY2022?",
        "What drove the increase in research and development expense in fiscal 2023?",
    ],
)
def test_known_figures_lists_and_reasons_are_not_unknown_figures(question):
    assert unknown_figure_phrases(question) == []


def test_a_word_that_changes_a_line_item_makes_it_another_figure():
    requests = figure_requests("How much deferred revenue did the company report in fiscal 2023?", 2023)
    assert [r.name for r in requests] == ["deferred revenue"]
    assert [r.name for r in figure_requests("What was total revenue in fiscal 2023?", 2023)] == ["revenue"]


def test_a_table_continued_on_the_next_page_keeps_the_unit_of_the_page_before():
    first = """NOTE 4 - INVESTMENTS (In millions)
|  | 2024 | 2023 |
|---|---|---|
| Corporate debt securities | 65,622 | 76,840 |"""
    second = """|  | 2024 | 2023 |
|---|---|---|
| Municipal securities | 412 | 628 |"""
    prose = "The fair value of these securities is measured at the end of each period."
    # The second page starts with the first page's last passage (prose, without the unit line).
    chunks = [
        Chunk(chunk_id=f"{FILING}-{i}", filing_id=FILING, section="Item 8", page=page, chunk_index=i,
              char_start=i * 1000, char_end=i * 1000 + len(t), text=t)
        for i, (page, t) in enumerate([(1, first), (1, prose), (2, second)])
    ]  # fmt: skip
    facts = read_facts(FILING, chunks)
    assert [(f.label, f.scale) for f in facts] == [
        ("Corporate debt securities", 1e6),
        ("Municipal securities", 1e6),
    ]
    # Not across Items: a table in the next Item does not inherit the unit.
    chunks[2] = chunks[2].model_copy(update={"section": "Item 9"})
    assert read_facts(FILING, chunks)[-1].scale is None


def test_units_stated_per_column_scale_each_value_by_its_own_column():
    text = """A summary of the Company's RSU activity (in millions, except per share data):
|  | Number of RSUs (in thousands) | Weighted-Average Grant Date Fair Value Per RSU | Aggregate Fair Value (in millions) |
|---|---|---|---|
| Balance as of September 30, 2023 | 180,247 | $ 135.91 | $ 30,770 |"""
    (fact,) = read_facts(FILING, [_chunk(0, text, 45)])
    count, price, aggregate = fact.values
    assert fact.scale == 1e6  # the table's unit stays the table's
    assert count.value(fact.scale) == 180_247_000 and fact.scale_of(count) == 1e3
    assert price.value(fact.scale) == pytest.approx(135.91) and fact.per_share_of(price)
    assert aggregate.value(fact.scale) == 30_770_000_000 and not fact.per_share_of(aggregate)
    # One unit for the whole table: the values carry none of their own.
    (plain,) = read_facts(
        FILING,
        [
            _chunk(
                1,
                BALANCE.splitlines()[0] + "\n" + "\n".join(BALANCE.splitlines()[1:3]) + "\n| Cash | 1 | 2 |",
                50,
            )
        ],
    )
    assert plain.scale == 1e6 and all(v.scale is None and not v.per_share for v in plain.values)
    assert plain.values[0].value(plain.scale) == 1e6


def test_rows_about_shares_take_the_unit_of_shares_or_of_amounts_by_what_they_count():
    text = """Earnings per share (net income in millions and shares in thousands):
|  | 2024 | 2023 |
|---|---|---|
| Net income | $ 93,736 | $ 96,995 |
| Weighted-average diluted shares | 15,408,095 | 15,812,547 |
| Effect of dilutive share-based awards | 64,312 | 68,316 |
| Common stock, $0.00001 par value: 50,400,000 shares authorized; 15,116,786 shares issued | 83,276 | 73,812 |
| Equity awards excluded from diluted net income per share because they were anti-dilutive | 15 | 40 |"""
    income, diluted, dilutive, stock, excluded = read_facts(FILING, [_chunk(0, text, 36)])
    assert income.scale == 1e6 and diluted.scale == 1e3 and dilutive.scale == 1e3
    # A par value names the stock's amount; a per-share figure the row goes into is not what it is.
    assert stock.scale == 1e6 and not stock.per_share
    assert not excluded.per_share and excluded.scale == 1e6


def test_a_statement_continued_on_the_next_page_without_its_header_keeps_its_periods():
    from core.finance.facts import read_facts
    from core.models import Chunk

    first = """CONSOLIDATED STATEMENTS OF CASH FLOWS (in thousands)
|  | 2021 | 2020 |
|---|---|---|
| Net cash used in operating activities | (101,721) | (1,379,339) |"""
    second = """CONSOLIDATED STATEMENTS OF CASH FLOWS (in thousands)
|  |  |  |
|---|---|---|
| Supplemental disclosures of cash flow information |  |  |
| Cash paid for income taxes | $ 5,865 | $ 4,037 |"""
    chunks = [
        Chunk(chunk_id=f"c{n}", filing_id="f" * 64, section="Item 8", page=83 + n, chunk_index=n, char_start=n * 1000,
              char_end=n * 1000 + len(text), kind="table", text=text)
        for n, text in enumerate([first, second])
    ]  # fmt: skip
    paid = next(f for f in read_facts("f" * 64, chunks) if f.label == "Cash paid for income taxes")
    assert [v.fiscal_year for v in paid.values] == [2021, 2020]
    assert [v.number for v in paid.values] == [5865, 4037]


def test_award_prices_per_share_percent_dashes_and_undated_leading_columns():
    """Reading rules for what a table implies without printing it: an award table's weighted-average price
    is per share; a dash printed "—%" is a percentage not reported; a count of awards under a per-share
    heading counts awards; columns before a table's balance dates describe each row at the latest date."""
    awards = """Restricted stock unit activity:
|  | Number of Shares (In millions) | Weighted Average Grant-Date Fair Value |
|---|---|---|
| Balances, January 29, 2023 | 45 | $ 158.45 |"""
    taxes = """Income tax reconciliation (in millions):
|  | Jan 28, 2024 |  | Jan 29, 2023 |  |
|---|---|---|---|---|
| Acquisition termination cost | — | —% | 261 | 6.2% |"""
    per_share = """Earnings (in millions, except per share data):
|  | 2024 | 2023 |
|---|---|---|
| Net income per share: |  |  |
| Basic | $ 12.05 | $ 1.76 |
| Equity awards excluded from diluted net income per share | 15 | 40 |"""
    notes = """Senior notes (in millions):
|  | Expected Remaining Term (years) | Effective Interest Rate | Jan 28, 2024 | Jan 29, 2023 |
|---|---|---|---|---|
| 3.20% Notes Due 2026 | 2.6 | 3.31% | 1,000 | 1,000 |"""
    (award,) = read_facts(FILING, [_chunk(0, awards, 80)])
    assert not award.per_share_of(award.values[0]) and award.per_share_of(award.values[1])
    (tax,) = read_facts(FILING, [_chunk(1, taxes, 81)])
    assert [v.percent for v in tax.values] == [False, True, False, True]
    basic, excluded = read_facts(FILING, [_chunk(2, per_share, 82)])
    assert basic.per_share and not excluded.per_share
    (note,) = read_facts(FILING, [_chunk(3, notes, 83)])
    assert [v.fiscal_year for v in note.values] == [2024, 2024, 2024, 2023]
    # In a table of periods over time, columns before the first period stay undated.
    flows = notes.replace("Jan 28, 2024 | Jan 29, 2023", "Year Ended Jan 28, 2024 | Year Ended Jan 29, 2023")
    (flow,) = read_facts(FILING, [_chunk(4, flows, 84)])
    assert [v.fiscal_year for v in flow.values][:2] == [None, None]
