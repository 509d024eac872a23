"""How the Library names a filing: form, period as the company counts it, and the sections found."""

from __future__ import annotations

from core.models import Filing
from core.report.labels import library_row


def _filing(**update) -> Filing:
    base = dict(
        filing_id="f" * 64, filename="q.pdf", company="Apple Inc.", form="10-Q", fiscal_year=2023,
        fiscal_quarter=1, period_end="2022-12-31", source_type="pdf", pages=46, chunks=120,
        sections={"Front matter": 3, "Part II Item 1A": 2, "Part I Item 2": 30, "Part I Item 1": 50},
    )  # fmt: skip
    return Filing(**{**base, **update})


def test_quarterly_report_row_and_label():
    filing = _filing()
    row = library_row(filing)
    assert (row["Form"], row["Period"], row["Period end"]) == ("10-Q", "Q1 FY2023", "2022-12-31")
    assert row["Sections"] == "Part I Item 1, Part I Item 2, Part II Item 1A" and row["Sections found"] == 3
    assert filing.label == "Apple Inc. 10-Q Q1 FY2023"


def test_current_report_row_names_its_event_date_and_items():
    filing = _filing(form="8-K", fiscal_quarter=None, period_end="2022-08-19", event_items=["5.02", "9.01"],
                     sections={"Item 5.02": 4, "Item 9.01": 9})  # fmt: skip
    row = library_row(filing)
    assert (row["Period"], row["8-K Items"]) == ("2022-08-19", "5.02, 9.01")
    assert filing.label == "Apple Inc. 8-K 2022-08-19"
    assert _filing(form="10-K", fiscal_quarter=None).label == "Apple Inc. 10-K FY2023"
