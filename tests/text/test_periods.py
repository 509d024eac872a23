"""Periods in text: fiscal years and time expressions."""

from __future__ import annotations

from datetime import date

import pytest

from core.text.periods import (
    NamedQuarter,
    dates_happened,
    find_time_expressions,
    fiscal_years,
    fiscal_years_stated,
    quarters_named,
)


@pytest.mark.parametrize(
    ("text", "years"),
    [
        ("capex in FY2018 and FY19", [2018, 2019]),
        ("fiscal 2022 versus fiscal year 2021", [2021, 2022]),
        ("as of Q2 of FY2023", [2023]),
        ("Q3 2023 results", [2023]),
        ("As of Q2'2023, is Pfizer spinning off", [2023]),
        ("the latest filing", []),
        ("revenue in 2020", [2020]),
    ],
)
def test_time_expressions(text: str, years: list[int]) -> None:
    expressions, found = find_time_expressions(text)
    assert found == years
    assert expressions


def test_relative_time_and_quarters_are_expressions() -> None:
    expressions, _ = find_time_expressions("most recent quarter vs Q4 of FY2023")
    assert "most recent quarter" in expressions and "Q4 of FY2023" in expressions


def test_fiscal_years_expand_ranges_and_short_forms() -> None:
    assert fiscal_years("FY2017 - FY2019 and FY22") == [2017, 2018, 2019, 2022]
    assert fiscal_years("in 1850 and 2061") == []


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("Best Buy's revenue in Q2 FY24", [NamedQuarter(2, 2024, True)]),
        ("in the first quarter of fiscal 2023", [NamedQuarter(1, 2023, True)]),
        ("the 2023 Q1 report", [NamedQuarter(1, 2023)]),
        ("third-quarter 2023 results", [NamedQuarter(3, 2023)]),
        ("Q1 2023 against Q2", [NamedQuarter(1, 2023), NamedQuarter(2)]),
        ("fiscal 2023 revenue under Item 1A", []),
    ],
)
def test_quarters_named(text, named):
    assert quarters_named(text) == named


def test_fiscal_years_stated_are_only_those_the_text_calls_fiscal() -> None:
    assert fiscal_years_stated("in the second quarter of fiscal year 2024 compared to fiscal 2023") == {
        2024,
        2023,
    }
    assert fiscal_years_stated("FY2022 and fiscal years 2020 and 2021") == {2022, 2020, 2021}
    # A bare year or a date may be a calendar year: not a fiscal year said.
    assert fiscal_years_stated("As of July 30, 2023, in 2023") == set()


def test_dates_happened_leaves_out_the_dates_something_is_due_on() -> None:
    """A trial set to commence, a deadline, a term that expires: dates ahead of the sentence; a balance's
    date: a state, not an event."""
    assert dates_happened(
        "The court certified the class action on August 20, 2021, and set trial to commence on December 5, 2022."
    ) == [date(2021, 8, 20)]
    assert dates_happened("The deadline to file a petition for a writ of certiorari is March 4, 2024.") == []
    assert dates_happened("The notes are due on June 15, 2026 and were issued on June 16, 2021.") == [
        date(2021, 6, 16)
    ]
    assert dates_happened("As of January 28, 2024, we have not recorded any accrual for the matter.") == []
    assert dates_happened("On February 8, 2022, the parties reached an agreement in principle.") == [
        date(2022, 2, 8)
    ]


def test_a_month_an_event_is_told_in_is_a_date_it_happened_on() -> None:
    """Legal notes tell most events by their month ("In December 2022, …"): its first day, so a full date of
    the same month is the later; a month something is due in, or a period's name, is none."""
    assert dates_happened("In December 2022, the Company agreed to a formal settlement agreement.") == [
        date(2022, 12, 1)
    ]
    assert max(
        dates_happened("On December 5, 2022, the court ruled. In December 2022, the parties met.")
    ) == date(2022, 12, 5)
    assert dates_happened("The trial is set to commence in March 2024.") == []
    assert (
        dates_happened("Revenue rose in the December 2022 quarter and in December 2022 fiscal periods.") == []
    )
