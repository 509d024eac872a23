"""Quarterly reports' tables: a quarter's and a year to date's columns told apart, balances at the quarter's
end beside the fiscal year end, columns read in the company's fiscal years, and figures named by quarter."""

from __future__ import annotations

from datetime import date

from core.finance.facts import in_fiscal_calendar, read_facts
from core.finance.lookup import SourcedRow, make_lookup
from core.finance.rows import in_fiscal_years, read_rows
from core.models import Chunk
from core.text.periods import FiscalCalendar
from core.tools.calculator import requests_in, state_figures

FILING = "q" * 64

# Apple's Q2 FY2023 statement of operations as its PDF lays it out: the lengths and days above, years below.
OPERATIONS = """CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS (Unaudited)
(In millions, except per share amounts) Three Months Ended Six Months Ended April 1, March 26, April 1, March 26,
|  | 2023 | 2022 | 2023 | 2022 |
|---|---|---|---|---|
| Net sales: |  |  |  |  |
| Products | $ 73,929 | $ 77,457 | $ 170,317 | $ 181,886 |
| Services | 20,907 | 19,821 | 41,673 | 39,337 |
| Total net sales | 94,836 | 97,278 | 211,990 | 221,223 |
| Research and development | 7,457 | 6,387 | 15,166 | 12,693 |"""

# A quarter that ends in the calendar year before the fiscal year it belongs to (Apple's Q1 FY2023).
BALANCE = """CONDENSED CONSOLIDATED BALANCE SHEETS (Unaudited)
(In millions)
December 31, 2022 September 24, 2022
Inventories 6,820 4,946
Total current assets 128,777 135,405
"""

# The text layout of NVIDIA's Q3 FY2024 statement of income: its years repeated for the nine months.
INCOME_STREAM = """CONDENSED CONSOLIDATED STATEMENTS OF INCOME
(In millions) Three Months Ended Nine Months Ended
Oct 29, 2023 Oct 30, 2022 Oct 29, 2023 Oct 30, 2022
Revenue $ 18,120 $ 5,931 $ 38,819 $ 20,923
Cost of revenue 4,720 2,754 11,036 9,028
"""

APPLE_Q2 = FiscalCalendar(2023, date(2023, 4, 1), 2)
APPLE_Q1 = FiscalCalendar(2023, date(2022, 12, 31), 1)
NVIDIA_Q3 = FiscalCalendar(2024, date(2023, 10, 29), 3)


def _row(rows, label):
    return next(r for r in rows if r.label == label)


def test_quarter_and_year_to_date_columns_are_told_apart() -> None:
    row = _row(read_rows(OPERATIONS), "Total net sales")
    assert [p.months for p in row.periods] == [3, 3, 6, 6]
    assert [p.end for p in row.periods] == [date(2023, 4, 1), date(2022, 3, 26)] * 2
    assert row.statement == "income"  # "Condensed Consolidated" statements are statements
    assert row.value_for(2023).value == 94836  # the quarter unless the year to date is asked
    assert row.value_for(2023, 6).value == 211990
    assert row.value_for(2022, 6).value == 221223
    assert row.value_for(2023, 9) is None  # a length the table does not print is never guessed


def test_years_repeated_for_the_year_to_date_head_the_columns_of_a_text_table() -> None:
    row = _row(in_fiscal_years(read_rows(INCOME_STREAM), NVIDIA_Q3), "Revenue")
    assert row.years == (2024, 2023, 2024, 2023)  # the quarter ended October 29, 2023 is fiscal 2024
    assert row.value_for(2024).value == 18120 and row.value_for(2024, 9).value == 38819
    assert row.value_for(2023).value == 5931


def test_a_balance_sheet_compares_the_quarter_end_with_the_fiscal_year_end() -> None:
    row = _row(in_fiscal_years(read_rows(BALANCE), APPLE_Q1), "Inventories")
    assert row.years == (
        2023,
        2022,
    )  # December 31, 2022 is in fiscal 2023; September 24, 2022 ended fiscal 2022
    assert [p.months for p in row.periods] == [None, None]  # balances: at a date, not over months


def test_an_annual_report_keeps_the_years_it_prints() -> None:
    rows = read_rows(OPERATIONS)
    annual = FiscalCalendar(2023, date(2023, 9, 30))
    assert in_fiscal_years(rows, annual) == rows
    assert in_fiscal_years(rows, None) == rows


def test_facts_carry_months_and_period_end_and_fiscal_years() -> None:
    chunk = Chunk(
        chunk_id=f"{FILING[:16]}-c0", filing_id=FILING, text=BALANCE, page=4, section="Part I Item 1", chunk_index=0,
        char_start=0, char_end=len(BALANCE),
    )  # fmt: skip
    facts = in_fiscal_calendar(read_facts(FILING, [chunk]), APPLE_Q1)
    inventories = next(f for f in facts if f.label == "Inventories")
    assert inventories.kind == "balance"
    assert [(v.fiscal_year, v.period_end) for v in inventories.values] == [
        (2023, date(2022, 12, 31)),
        (2022, date(2022, 9, 24)),
    ]
    assert inventories.value_for(2023).raw == "6,820"


def test_calendar_names_and_years() -> None:
    assert APPLE_Q1.fiscal_year_of(date(2022, 9, 24)) == 2022
    assert APPLE_Q1.fiscal_year_of(date(2021, 12, 25)) == 2022
    assert NVIDIA_Q3.fiscal_year_of(date(2023, 1, 29)) == 2023  # the fiscal year end before the quarter
    assert APPLE_Q2.period_name(2023) == "Q2 FY2023"
    assert APPLE_Q2.period_name(2023, 6) == "H1 FY2023"
    assert NVIDIA_Q3.period_name(2024, 9) == "9M FY2024"
    assert FiscalCalendar(2023, date(2023, 9, 30)).period_name(2023) == "FY2023"


def _sourced(text: str, calendar: FiscalCalendar) -> list[SourcedRow]:
    return [SourcedRow(row, source=None) for row in in_fiscal_years(read_rows(text), calendar)]


def test_a_quarterly_request_is_the_quarter_and_is_named_so() -> None:
    [request] = requests_in("What was total net sales and how did it change year over year?", 2023, APPLE_Q2)
    assert request.years == [2022, 2023] and request.months is None
    result = state_figures([request], _sourced(OPERATIONS, APPLE_Q2), step_index=1)
    assert "Q2 FY2023" in result.note and "94,836" in result.note and "97,278" in result.note
    assert "211,990" not in result.note


def test_a_year_to_date_request_reads_the_year_to_date_column() -> None:
    [request] = requests_in(
        "What were total net sales for the first six months of fiscal 2023?", 2023, APPLE_Q2
    )
    assert request.months == 6
    lookup = make_lookup(_sourced(OPERATIONS, APPLE_Q2))
    from core.finance.compute import compute

    computed = compute(request, lambda operand, year: lookup(operand, year, months=request.months))
    assert computed.value == 211990
    assert "H1 FY2023" in computed.headline


def test_a_calendar_year_named_for_a_quarter_means_the_reports_fiscal_year() -> None:
    # "NVIDIA's Q3 2023 10-Q" is the quarter ended October 29, 2023: NVIDIA's fiscal 2024.
    [request] = requests_in("What was NVIDIA's revenue in Q3 2023?", 2024, NVIDIA_Q3)
    assert request.years == [2024]
    # Said to be fiscal, the year is kept.
    [fiscal] = requests_in("What was NVIDIA's revenue in Q3 FY2023?", 2024, NVIDIA_Q3)
    assert fiscal.years == [2023]


# Amazon's segment table as its 10-Q prints it: 2022 before 2023, the quarter's columns then the half year's.
SEGMENTS = """Segment Information (in millions)
Three Months Ended June 30, Six Months Ended June 30,
|  | 2022 | 2023 | 2022 | 2023 |
|---|---|---|---|---|
| AWS |  |  |  |  |
| Net sales | $ 19,739 | $ 22,140 | $ 38,102 | $ 43,494 |
| Operating expenses | 14,027 | 16,775 | 27,863 | 32,007 |
| Operating income | $ 5,712 | $ 5,365 | $ 10,230 | $ 10,488 |"""


def test_a_segments_operating_income_is_its_row_never_its_operating_expenses() -> None:
    amazon_q2 = FiscalCalendar(2023, date(2023, 6, 30), 2)
    [request] = requests_in("What was the AWS segment's operating margin in Q2 2023?", 2023, amazon_q2)
    result = state_figures([request], _sourced(SEGMENTS, amazon_q2), step_index=1)
    assert "5,365 / 22,140 = 24.2%" in result.note, result.note


def test_a_quarter_printed_only_for_the_year_to_date_is_named_for_the_year_to_date() -> None:
    """A 10-Q's cash flows cover the year to date: asked for the quarter, the answer names the half year it
    read, never the quarter."""
    from core.finance.compute import compute
    from core.finance.formula import Found

    [request] = requests_in("What were share repurchases in the quarter?", 2023, APPLE_Q2)
    assert request.months is None
    computed = compute(
        request, lambda operand, year: Found(value=3067, label="Repurchases", year=year, months=6)
    )
    assert "H1 FY2023" in computed.headline and "Q2" not in computed.headline


def test_a_balance_asked_of_a_quarterly_report_is_stated_beside_the_fiscal_year_end() -> None:
    from core.finance.compute import compute

    [request] = requests_in("What were Apple's inventories?", 2023, APPLE_Q1)
    assert request.years == [2022, 2023] and request.aggregate == "change"
    lookup = make_lookup(_sourced(BALANCE, APPLE_Q1))
    computed = compute(request, lambda operand, year: lookup(operand, year))
    assert computed.sentence == (
        "Inventories were $6,820 million in Q1 FY2023, up 37.9% from $4,946 million at the FY2022 year end."
    )
    # A flow is the quarter's own; the year to date asked is not compared with the year end.
    [revenue] = requests_in("What was total net sales?", 2023, APPLE_Q2)
    assert revenue.years == [2023] and revenue.aggregate is None


CASH_FLOWS = """CONDENSED CONSOLIDATED STATEMENTS OF CASH FLOWS (Unaudited)
(In millions)
Nine Months Ended
October 29, 2023 October 30, 2022
Net cash provided by operating activities 16,598 3,902
"""


def test_a_cash_flow_printed_for_the_year_to_date_is_named_for_it_from_the_statement_rows() -> None:
    from core.finance.compute import compute

    [request] = requests_in("What was cash from operations?", 2024, NVIDIA_Q3)
    lookup = make_lookup(_sourced(CASH_FLOWS, NVIDIA_Q3))
    computed = compute(request, lambda operand, year: lookup(operand, year))
    assert computed.value == 16598 and "9M FY2024" in computed.headline
    [so_far] = requests_in("What was cash from operations so far this year?", 2024, NVIDIA_Q3)
    assert so_far.months == 9


def test_the_year_to_date_asked_is_the_flows_length_never_a_balances() -> None:
    from core.agents.clauses import is_outside
    from core.agents.contracts import FilingInfo

    question = "How much inventory did it hold, and what was its cash from operations so far this year?"
    inventory, cash = requests_in(question, 2024, NVIDIA_Q3)
    assert (
        inventory.months is None and inventory.aggregate == "change"
    )  # at the quarter's end, beside the year end
    assert cash.months == 9
    # Asked of a quarterly report, "so far this year" is the report's year to date, not news for the web.
    quarterly = FilingInfo(
        filing_id="q",
        label="NVIDIA 10-Q Q3 FY2024",
        company="NVIDIA",
        form="10-Q",
        fiscal_year=2024,
        fiscal_quarter=3,
    )
    annual = quarterly.model_copy(update={"form": "10-K", "fiscal_quarter": None})
    assert not is_outside("what was its cash from operations so far this year", [quarterly])
    assert is_outside("what was its cash from operations so far this year", [annual])
