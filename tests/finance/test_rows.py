"""Reading table rows from the layouts PDF extraction produces, and from Markdown tables."""

from __future__ import annotations

import pytest

from core.finance.rows import read_rows, rendered_rows
from core.finance.vocabulary import statement_kind
from core.text.periods import column_headers, fiscal_years

ONE_CELL_PER_LINE = """Acme Corp and Subsidiaries
Consolidated Statement of Cash Flows
Years ended December 31
(Millions)
2018
2017
2016
Cash Flows from Operating Activities
Net income including noncontrolling interest
$
5,363
$
4,869
$
5,058
Adjustments to reconcile net income to net cash
provided by operating activities
Purchases of property, plant and equipment (PP&E)
(1,577)
(1,373)
(1,420)
Other — net
—
(6)
(4)
"""

RUN_ON_ROWS = """CONSOLIDATED STATEMENTS OF
OPERATIONS(in millions, except per share data)
Year Ended December 31,
2015 2016 2017 Net product sales
$ 79,268 $ 94,665 $ 118,573 Total net sales
107,006 135,987 177,866 Operating expenses:
Cost of sales
71,651 88,265 111,934 Interest expense
(459 ) (484 ) (848 ) Net income
$ 596 $ 2,371 $ 3,033"""

ROW_PER_LINE = """CONSOLIDATED BALANCE SHEETS
(Amounts in millions, except share data)
At December 31, 2019  At December 31, 2018
Cash and cash equivalents $ 5,794  $ 4,225
Accounts receivable, net of allowances of $132 and $190, respectively 848  1,035
Property and equipment, net 253  282
Total current liabilities 2,915  2,642"""


def _table(text: str) -> dict[str, tuple]:
    return {r.label: (tuple(v.value if v else None for v in r.values), r.years) for r in read_rows(text)}


def test_one_cell_per_line_rows_get_their_years_and_unit():
    rows = read_rows(ONE_CELL_PER_LINE)
    table = {r.label: r for r in rows}
    capex = table["Purchases of property, plant and equipment (PP&E)"]
    assert [v.value for v in capex.values] == [-1577, -1373, -1420]
    assert capex.years == (2018, 2017, 2016)
    assert capex.scale == 1e6 and capex.statement == "cash_flow"
    assert table["Net income including noncontrolling interest"].value_for(2017).value == 4869
    # A dash is a blank cell, not a missing column.
    assert table["Other — net"].values[0] is None and table["Other — net"].years == (2018, 2017, 2016)


def test_values_that_run_into_the_next_label_still_form_rows_oldest_year_first():
    table = _table(RUN_ON_ROWS)
    assert table["Total net sales"] == ((107006, 135987, 177866), (2015, 2016, 2017))
    assert table["Interest expense"][0] == (-459, -484, -848)
    assert table["Net income"][0] == (596, 2371, 3033)
    assert read_rows(RUN_ON_ROWS)[0].statement == "income"


def test_numbers_inside_a_label_stay_in_the_label():
    table = _table(ROW_PER_LINE)
    label = next(k for k in table if k.startswith("Accounts receivable"))
    assert "$132 and $190" in label and table[label] == ((848, 1035), (2019, 2018))
    assert table["Property and equipment, net"] == ((253, 282), (2019, 2018))
    assert read_rows(ROW_PER_LINE)[0].statement == "balance"


def test_prose_with_numbers_is_not_a_row():
    text = "Revenue increased by $27 million in 2018 compared with 2017, driven by volume."
    assert read_rows(text) == []


def test_markdown_table_rows_take_years_from_the_header_cells():
    text = (
        "Results (in millions):\n| | FY2025 | FY2024 | Change |\n|---|---|---|---|\n"
        "| Total revenue | $ 422.6 | $ 358.5 | 17.9% |\n| Gross margin | 44.9% | 41.2% | +3.7 pts |"
    )
    rows = {r.label: r for r in read_rows(text)}
    assert rows["Total revenue"].value_for(2025).value == pytest.approx(422.6)
    assert rows["Total revenue"].value_for(2024).value == pytest.approx(358.5)
    assert rows["Gross margin"].value_for(2025).is_percent
    assert rows["Total revenue"].scale == 1e6


def test_an_unlabelled_row_that_adds_up_the_rows_under_a_heading_is_their_total():
    # Statements print a group's total without a label; a note's "Net revenues" must not win over it.
    text = (
        "CONSOLIDATED STATEMENTS OF OPERATIONS (In thousands)\n| | 2020 | 2019 |\n|---|---|---|\n"
        "| Revenues | | |\n| Casino | $ 2,871,720 | 6,517,519 |\n| Rooms | 1,046,132 | 2,322,303 |\n"
        "| Reimbursed costs | 244,949 | 436,887 |\n| | 4,162,801 | 9,276,709 |\n"
        "| Expenses | | |\n| Casino | 1,701,783 | 3,623,899 |\n| | 5,000,000 | 1 |\n"
        "| Other | 1 | 2 |\n| | 3 | 4 |"
    )
    rows = read_rows(text)
    assert [r.label for r in rows] == [
        "Casino",
        "Rooms",
        "Reimbursed costs",
        "Total revenues",
        "Casino",
        "Other",
    ]
    total = rows[3]
    assert total.value_for(2019).value == pytest.approx(9_276_709) and total.statement == "income"
    # A row that does not add up, or follows a single row, stays unread: a guess would misstate it.


def test_column_headers_and_fiscal_years():
    assert [h.years for h in column_headers("As of June 30, 2023 2022\nAssets")] == [(2023, 2022)]
    assert column_headers("in 2018, sales rose") == []
    assert fiscal_years("What is the FY2017 - FY2019 3 year average?") == [2017, 2018, 2019]
    assert fiscal_years("between FY2022 and FY 2023, and fiscal 2021") == [2022, 2023, 2021]
    assert fiscal_years("FY'23 results") == [2023]


@pytest.mark.parametrize(
    ("title", "kind"),
    [
        ("CONSOLIDATED BALANCE SHEETS", "balance"),
        ("Consolidated Statements of Operations", "income"),
        ("Consolidated Statement of\nCash Flows", "cash_flow"),
        ("Statement of Financial Position", "balance"),
        ("Notes to the financial statements", None),
    ],
)
def test_statement_kind(title, kind):
    assert statement_kind(title) == kind


def test_a_markdown_header_of_bare_years_ties_each_value_to_its_year() -> None:
    """PDF statements read as tables head their columns with bare years; those are periods, not a row."""
    text = (
        "Consolidated Statement of Cash Flows\n"
        "| (Millions) | 2018 | 2017 | 2016 |\n"
        "|---|---|---|---|\n"
        "| Depreciation and amortization | 1,488 | 1,544 | 1,474 |\n"
    )
    (row,) = read_rows(text)
    assert row.label == "Depreciation and amortization"
    assert row.years == (2018, 2017, 2016)
    assert [v.value for v in row.values] == [1488, 1544, 1474]
    assert row.scale == 1e6 and row.statement == "cash_flow"


def test_a_dollar_sign_before_in_millions_gives_the_unit_anywhere_on_the_line():
    text = (
        "Consolidated Statements of Cash Flows $ in millions\n| Fiscal Years Ended | January 28, 2023 |"
        " January 29, 2022 |\n|---|---|---|\n| Total cash used in investing activities | (962) | (1,372) |"
    )
    (row,) = read_rows(text)
    assert row.scale == 1e6 and row.value_for(2023).value == -962


def test_table_rows_with_headers() -> None:
    text = (
        "|  | 2023 |  | 2022 |\n|---|---|---|---|\n"
        "| Research and development |  | $ 7,339 |  | $ 5,268 |\n| Notes | see below |"
    )
    rows = rendered_rows(text)
    assert len(rows) == 1
    assert rows[0].rendered == "Research and development: $ 7,339 (2023); $ 5,268 (2022)"
    assert rows[0].line in text


# --- table reading rules found by checking facts against inline XBRL ------------------------------------


def test_a_note_in_brackets_does_not_make_an_amount_per_share():
    text = """STATEMENTS OF EQUITY (In millions)
|  | 2023 | 2022 |
|---|---|---|
| Cash dividends declared and paid ($0.16 per common share) | (398) | (399) |
| Diluted net income per share | 1.74 | 3.85 |"""
    dividends, eps = read_rows(text)
    assert not dividends.per_share and dividends.unit_scale == 1e6
    assert eps.per_share


def test_share_counts_take_the_unit_the_table_gives_shares():
    text = """CONSOLIDATED STATEMENTS OF OPERATIONS
(In millions, except number of shares, which are reflected in thousands, and per-share amounts)
|  | 2024 | 2023 |
|---|---|---|
| Net income | $ 93,736 | $ 96,995 |
| Shares used in computing earnings per share: |  |  |
| Basic | 15,343,783 | 15,744,231 |"""
    net, basic = read_rows(text)
    assert net.unit_scale == 1e6 and not net.share_count
    assert basic.share_count and not basic.per_share and basic.unit_scale == 1e3


def test_a_unit_after_the_words_it_measures_is_the_tables_unit():
    text = """The computation of earnings per share (net income in millions and shares in thousands):
|  | 2024 | 2023 |
|---|---|---|
| Net income | $ 93,736 | $ 96,995 |
| Weighted-average basic shares outstanding | 15,343,783 | 15,744,231 |"""
    net, shares = read_rows(text)
    assert net.scale == 1e6 and net.unit_scale == 1e6
    assert shares.share_count and shares.unit_scale == 1e3


def test_one_year_over_category_columns_is_the_period_of_every_column():
    text = """|  | 2023 Adjusted Cost | Unrealized Gains | Fair Value |
|---|---|---|---|
| Cash | $ 28,359 | $ — | $ 28,359 |
| Corporate debt securities | 76,840 | 6 | 70,890 |"""
    cash, debt = read_rows(text)
    assert cash.years == (2023, 2023, 2023) and debt.years == (2023, 2023, 2023)
    assert cash.values[1] is None  # a dash is a cell that reports nothing


def test_a_roll_forward_dates_its_balances_and_the_activity_between_them():
    text = """|  | Number of RSUs (in thousands) | Weighted-Average Grant-Date Fair Value Per RSU |
|---|---|---|
| Balance as of September 25, 2021 | 240,427 | $ 75.16 |
| RSUs granted | 91,674 | $ 150.70 |
| RSUs vested | (115,861) | $ 72.12 |
| Balance as of September 24, 2022 | 201,501 | $ 109.48 |
| RSUs granted | 88,768 | $ 150.87 |"""
    opening, granted, vested, closing, later = read_rows(text)
    assert opening.years == (2021, 2021) and closing.years == (2022, 2022)
    assert granted.years == vested.years == (2022, 2022)
    # Activity after the last dated balance has no closing balance to date it.
    assert later.years == (None, None)


def test_a_new_header_under_a_block_of_rows_starts_a_new_table():
    # Two tables printed one right under the other: the block year of the first does not reach the second.
    text = """|  | Compute (In millions) | Graphics | Consolidated |
|---|---|---|---|
| Year Ended January 31, 2021: |  |  |  |
| Revenue | $ 6,841 | $ 9,834 | $ 16,675 |
|  | Year Ended January 29, 2023 |  | January 30, 2022 |  | January 31, 2021 |  |
|---|---|---|---|---|---|---|
| Stock-based compensation expense |  | $ (2,710) |  | $ (2,004) |  | $ (1,397) |
| Acquisition termination cost | (1,353) |  | — |  | — |  |"""
    revenue, compensation, termination = read_rows(text)
    assert revenue.years == (2021, 2021, 2021)
    assert compensation.years == (2023, 2022, 2021)
    # Dashes are cells of the row: the one value and the two dashes line up with the three periods.
    assert termination.years == (2023, 2022, 2021)
    assert [v.value if v else None for v in termination.values] == [-1353, None, None]


def test_a_part_of_a_long_table_continues_the_block_its_rows_were_in():
    part = """SCHEDULE II – VALUATION AND QUALIFYING ACCOUNTS
| Description | Balance at Beginning of Period | Additions | Balance at End of Period |
|---|---|---|---|"""
    text = f"""{part}
| Fiscal year 2022 |  |  |  |
| Sales return allowance | $ 17 | $ 19 | $ 13 |
| Fiscal year 2021 |  |  |  |
{part}
| Sales return allowance | $ 9 | $ 30 | $ 17 |"""
    fy2022, fy2021 = read_rows(text)
    assert fy2022.years == (2022, 2022, 2022) and fy2021.years == (2021, 2021, 2021)


def test_periods_beside_category_columns_head_the_columns_up_to_the_next_period():
    text = """|  | January 29, 2023 Gross Carrying Amount (In millions) |  | Accumulated Amortization | Net Carrying Amount | January 30, 2022 Gross Carrying Amount |  | Accumulated Amortization | Net Carrying Amount |
|---|---|---|---|---|---|---|---|---|
| Patents and licensed technology | 446 |  | (249) | 197 | 446 |  | (221) | 225 |
| Total intangible assets |  | $ 3,539 | $ (1,863) | $ 1,676 |  | $ 3,507 | $ (1,168) | $ 2,339 |"""
    patents, total = read_rows(text)
    assert patents.years == total.years == (2023, 2023, 2023, 2022, 2022, 2022)
    leases = """| Lease-Related Assets and Liabilities | Financial Statement Line Items | 2023 |  | 2022 |  |
|---|---|---|---|---|---|
| Operating leases | Other non-current assets |  | $ 10,661 |  | $ 10,417 |
| Finance leases | Property, plant and equipment, net | 1,015 |  | 952 |  |"""
    assert [r.years for r in read_rows(leases)] == [(2023, 2022), (2023, 2022)]
    # Periods whose groups of columns are of unequal width do not line up with the values: a cell is dated
    # only where a period stands right above it.
    uneven = """|  | 2023 |  |  |  |  | 2022 |  |  | 2021 |
|---|---|---|---|---|---|---|---|---|---|
| Taxes | 10 | 20 | 30 | 40 | 50 | 60 | 70 | 80 | 90 |"""
    assert read_rows(uneven)[0].years == (None,) * 9
    # A year a category names is not a period.
    notes = """|  | Notes due 2025 | Notes due 2030 | Total |
|---|---|---|---|
| Principal | 1,250 | 1,000 | 500 | 2,750 |"""
    assert read_rows(notes)[0].years == (None,) * 4


def test_an_amount_and_a_percentage_under_each_period_take_that_period():
    text = """|  | Year Ended January 29, 2023 |  |  |  |  | January 30, 2022 |  |  | January 31, 2021 |
|---|---|---|---|---|---|---|---|---|---|
| Tax expense computed at federal statutory rate |  | $ 878 | 21.0% |  | $ 2,088 | 21.0% |  | $ 926 | 21.0% |
| Stock-based compensation | (309) |  | (7.4)% | (337) |  | (3.4)% | (136) |  | (3.1)% |
| IP domestication | — |  | —% | (244) |  | (2.5)% | — |  | —% |
| Other amounts | 1 | 2 | 3 | 4 | 5 | 6 |"""
    statutory, compensation, domestication, other = read_rows(text)
    assert statutory.years == compensation.years == (2023, 2023, 2022, 2022, 2021, 2021)
    assert domestication.years == (2023, 2023, 2022, 2022, 2021, 2021)
    assert domestication.values[2].value == -244 and domestication.values[0] is None
    # Six amounts under three periods do not say how they group.
    assert 2022 not in other.years and 2021 not in other.years


def test_a_table_stated_at_one_date_dates_its_category_columns():
    text = """Lease liability maturities as of September 30, 2023, are as follows (in millions):
|  | Operating Leases |  | Finance Leases |  | Total |  |
|---|---|---|---|---|---|---|
| Total undiscounted liabilities | 13,841 |  | 1,425 |  | 15,266 |  |
| Less: Imputed interest | (2,023) |  | (401) |  | (2,424) |  |"""
    undiscounted, interest = read_rows(text)
    assert undiscounted.years == interest.years == (2023, 2023, 2023)
    # Two dates above a table without periods in its header: which one a column is, is not read.
    two = text.replace("as of September 30, 2023,", "as of September 28, 2024 and September 30, 2023,")
    assert all(r.years == (None, None, None) for r in read_rows(two))
    # A date in passing is not the table's date.
    passing = text.replace("as of September 30, 2023,", "approved on March 4, 2022,")
    assert all(r.years == (None, None, None) for r in read_rows(passing))


def test_a_row_naming_its_date_under_one_period_column_is_dated_by_it():
    text = """|  | Year Ended Jan 28, 2024 (In millions) |  |
|---|---|---|
| Carrying amount as of Jan 29, 2023 |  | $ 288 |
| Net additions | 859 |  |
| Carrying amount as of Jan 28, 2024 |  | $ 1,321 |"""
    opening, additions, closing = read_rows(text)
    assert opening.years == (2023,) and additions.years == closing.years == (2024,)


def test_years_of_a_maturity_schedule_are_rows_dated_by_the_table_not_by_their_label():
    text = """The future principal payments for the Company's Notes as of September 30, 2023, are as follows (in millions):
| 2024 |  | $ 9,943 |
|---|---|---|
| 2025 | 10,775 |  |
| Thereafter | 56,003 |  |
| Total term debt principal |  | $ 106,572 |"""
    rows = read_rows(text)
    assert [r.label for r in rows] == ["2024", "2025", "Thereafter", "Total term debt principal"]
    assert all(r.years == (2023,) for r in rows)
    assert rows[1].group.startswith("The future principal payments")
    # Without the table's date the year rows are still rows, with no period (their label is not one).
    undated = text.replace(" as of September 30, 2023,", "")
    assert [r.years for r in read_rows(undated)[:2]] == [(None,), (None,)]
    # Years up to the table's date may be the periods of a table of years by row: no period is read.
    past = text.replace("2024 |", "2022 |").replace("2025 |", "2023 |")
    assert [r.years for r in read_rows(past)[:2]] == [(None,), (None,)]


def test_a_heading_of_the_table_above_heads_no_row_of_the_next_table():
    text = """|  | 2023 | 2022 |
|---|---|---|
| Net income per share: |  |  |
| Basic | $ 1.76 | $ 3.91 |
|  | January 29, 2023 Gross (In millions) | Net | January 30, 2022 Gross | Net |
|---|---|---|---|---|
| Patents and licensed technology | 446 | 197 | 446 | 225 |"""
    basic, patents = read_rows(text)
    assert basic.per_share and basic.group == "Net income per share:"
    assert patents.group == "" and not patents.per_share and patents.scale == 1e6
    assert patents.years == (2023, 2023, 2022, 2022)


def test_periods_over_groups_of_different_columns_date_no_column():
    # "Jan 29, 2023" heads a spacer-free group with "$ Change" in it: the header does not line up.
    text = """Revenue by Reportable Segments
|  | Jan 28, 2024 |  | Jan 29, 2023 | $ Change | Year Ended % Change ($ in millions) |
|---|---|---|---|---|---|
| Compute & Networking |  | $ 47,405 | $ 15,068 | $ 32,337 | 215% |"""
    (row,) = read_rows(text)
    assert row.years == (None, None, None, None)
    # The same header with a spacer under each period, and the change columns after them: each period
    # heads its own group, the change columns none.
    text = """|  | Year Ended January 29, 2023 ($ in millions) |  | January 30, 2022 |  | $ Change |  | % Change |
|---|---|---|---|---|---|---|---|
| Research and development expenses | $ 7,339 |  | $ 5,268 |  | $ 2,071 |  | 39% |"""
    assert read_rows(text)[0].years == (2023, 2022, None, None)


def test_a_roll_forward_continued_from_the_page_before_dates_its_opening_activity_by_the_next_balance():
    # The statement's second page opens with the rest of a year's activity, then that year's closing balance.
    text = """CONSOLIDATED STATEMENTS OF SHAREHOLDERS' EQUITY (continued)
|  | Shares | Amount | Total |
|---|---|---|---|
| Repurchase of common stock | (10) | (1,000) | (1,000) |
| Net income | — | 4,368 | 4,368 |
| Balances, January 29, 2023 | 2,466 | 11,971 | 22,101 |
| Net income | — | 29,760 | 29,760 |"""
    repurchase, income, closing, later = read_rows(text)
    assert closing.years == (2023, 2023, 2023)
    assert repurchase.years == income.years == (2023, 2023, 2023)
    assert later.years == (None, None, None)
    # Rows of another table printed above it are not its activity.
    other = """|  | Count | Amount |
|---|---|---|
| Awards outstanding | 45 | 158 |
|  | Shares | Amount | Total |
|---|---|---|---|
| Balances, January 29, 2023 | 2,466 | 11,971 | 22,101 |"""
    awards, balance = read_rows(other)
    assert awards.years == (None, None) and balance.years == (2023, 2023, 2023)


def test_an_abbreviated_label_is_a_label():
    text = """Income before income tax consists of the following:
|  | 2024 | 2023 |
|---|---|---|
| U.S. | $ 29,495 | $ 3,477 |
| Foreign | 4,323 | 704 |
| (1) | 5 | 6 |"""
    assert [(r.label, r.years) for r in read_rows(text)] == [
        ("U.S.", (2024, 2023)),
        ("Foreign", (2024, 2023)),
    ]


def test_the_sentence_after_a_table_that_ran_into_it_is_quoted_not_after_a_lone_number() -> None:
    """A PDF table's last row runs into the explanation: the sentence after it is what is quoted. A single
    number in a sentence (a street address) is no row of figures."""
    from core.finance.rows import prose_after_table

    ran_in = (
        "(in thousands, except for percentages) Revenue $ 3,208,323 $ 2,364,681 $ 3,615,960 36 % (35) % Revenue "
        "increased $843.6 million, or 36%, in 2021 as compared to the prior year, driven primarily by riders."
    )
    assert prose_after_table(ran_in).startswith("Revenue increased $843.6 million")
    address = (
        "Requests should be directed to our Corporate Secretary, Acme Inc., 235 East 42nd Street, New York."
    )
    assert prose_after_table(address) == address
