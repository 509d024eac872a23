"""Filing routing: a query naming a company in the library searches that company's filings."""

from __future__ import annotations

from core.models import Filing
from core.retrieval.analysis import analyze_query
from core.retrieval.routing import route_filings


def _filing(filing_id: str, company: str, year: int | None = None) -> Filing:
    return Filing(
        filing_id=filing_id,
        filename=f"{filing_id}.pdf",
        company=company,
        fiscal_year=year,
        source_type="pdf",
        pages=1,
        chunks=1,
    )


LIBRARY = [
    _filing("amex", "American Express Company"),
    _filing("boeing22", "The Boeing Company", 2022),
    _filing("boeing18", "The Boeing Company", 2018),
    _filing("jnj", "Johnson & Johnson"),
    _filing("unknown", "Unknown company"),
]


def test_named_company_routes_to_all_its_filings() -> None:
    route = route_filings(analyze_query("Who are the primary customers of Boeing?"), LIBRARY)
    # The filing whose company was not detected may be Boeing's too: it stays in.
    assert route is not None and sorted(route.filing_ids) == ["boeing18", "boeing22", "unknown"]
    assert "The Boeing Company" in route.note and "unknown" in route.note


def test_two_companies_route_to_both() -> None:
    query = "Compare American Express and Johnson & Johnson on dividends"
    route = route_filings(analyze_query(query), LIBRARY)
    assert route is not None and sorted(route.filing_ids) == ["amex", "jnj", "unknown"]


def test_no_named_company_or_unknown_name_does_not_route() -> None:
    assert route_filings(analyze_query("What are the main competition risks?"), LIBRARY) is None
    assert route_filings(analyze_query("What did NVIDIA say about export controls?"), LIBRARY) is None
    # Legal-form words alone ("Company") never match.
    assert route_filings(analyze_query("What does the Company say about tariffs?"), LIBRARY) is None


def test_without_unknown_companies_only_the_named_filings_remain() -> None:
    known = [f for f in LIBRARY if f.filing_id != "unknown"]
    route = route_filings(analyze_query("What does Johnson & Johnson say about talc?"), known)
    assert route is not None and route.filing_ids == ["jnj"] and "unknown" not in route.note


def test_a_name_matching_every_filing_does_not_route() -> None:
    only_boeing = [f for f in LIBRARY if f.company == "The Boeing Company"]
    assert route_filings(analyze_query("Boeing backlog"), only_boeing) is None


def test_named_company_and_year_route_to_that_years_filing() -> None:
    route = route_filings(analyze_query("What was Boeing's FY2018 capital expenditure?"), LIBRARY)
    assert route is not None and sorted(route.filing_ids) == ["boeing18", "unknown"]
    assert "FY2018" in route.note
    both = route_filings(analyze_query("How did Boeing's margin change from FY2018 to FY2022?"), LIBRARY)
    assert both is not None and sorted(both.filing_ids) == ["boeing18", "boeing22", "unknown"]


def test_a_year_the_library_lacks_keeps_all_the_companys_filings() -> None:
    route = route_filings(analyze_query("What was Boeing's FY2020 revenue?"), LIBRARY)
    assert route is not None and sorted(route.filing_ids) == ["boeing18", "boeing22", "unknown"]
    assert "FY2020" not in route.note


def test_a_year_alone_routes_to_that_years_filings() -> None:
    route = route_filings(analyze_query("Which companies cut capital spending in FY2018?"), LIBRARY)
    assert route is not None and sorted(route.filing_ids) == ["boeing18", "unknown"]
    assert route_filings(analyze_query("Which companies cut capital spending in FY2019?"), LIBRARY) is None


def test_company_forms_include_leading_name_words() -> None:
    from core.retrieval.routing import company_forms

    assert company_forms("MGM Resorts International")[:2] == ["MGM Resorts International", "MGM Resorts"]
    assert "Bank of" not in company_forms("Bank of America Corporation")


def test_company_forms_in_questions() -> None:
    """Short forms analysts write: initials with '&' or 'n', possessives, other capitalisation."""
    known = [f for f in LIBRARY if f.filing_id != "unknown"]
    for query in ("J&J talc litigation", "JnJ talc litigation", "What is AmEx's card volume?"):
        route = route_filings(analyze_query(query), known)
        assert route is not None and len(route.filing_ids) == 1, query


def _report(filing_id: str, form: str, year: int, quarter: int | None, end: str) -> Filing:
    return Filing(
        filing_id=filing_id, filename=f"{filing_id}.pdf", company="Apple Inc.", form=form, fiscal_year=year,
        fiscal_quarter=quarter, period_end=end, source_type="pdf", pages=1, chunks=1,
    )  # fmt: skip


# Apple's fiscal year ends in late September: its fiscal Q1 2023 ended December 31, 2022.
APPLE = [
    _report("10k-fy22", "10-K", 2022, None, "2022-09-24"),
    _report("q1-fy23", "10-Q", 2023, 1, "2022-12-31"),
    _report("q2-fy23", "10-Q", 2023, 2, "2023-04-01"),
    _report("q3-fy23", "10-Q", 2023, 3, "2023-07-01"),
    _report("10k-fy23", "10-K", 2023, None, "2023-09-30"),
]


def test_a_named_quarter_routes_to_its_report_read_as_fiscal_or_calendar() -> None:
    route = route_filings(analyze_query("What were Apple's net sales in Q2 FY2023?"), APPLE)
    # Fiscal Q2 2023 (ended April 1, 2023) is also calendar Q1 2023's report, never the whole year's.
    assert route is not None and route.filing_ids == ["q2-fy23"] and "Q2 FY2023" in route.note
    # "The first quarter of 2023" may mean Apple's fiscal Q1 or the calendar's: both reports stay.
    route = route_filings(analyze_query("Apple's gross margin in the first quarter of 2023"), APPLE)
    assert route is not None and route.filing_ids == ["q1-fy23", "q2-fy23"]
    # The fourth quarter of a fiscal year is in its annual report.
    route = route_filings(analyze_query("Apple's revenue in Q4 fiscal 2022"), APPLE)
    assert route is not None and route.filing_ids == ["10k-fy22"]


def test_a_year_named_keeps_the_calendar_years_reports_too() -> None:
    route = route_filings(analyze_query("How did Apple's sales change in 2022?"), APPLE)
    # Fiscal 2022 and the quarter that ended in calendar 2022 (fiscal Q1 2023).
    assert route is not None and route.filing_ids == ["10k-fy22", "q1-fy23"]


def test_the_latest_report_asked_for_is_the_newest_of_its_kind() -> None:
    route = route_filings(analyze_query("What did Apple report for iPhone in its latest 10-Q?"), APPLE)
    assert route is not None and route.filing_ids == ["q3-fy23"] and "latest report (Q3 FY2023)" in route.note
    route = route_filings(analyze_query("Apple's cash in the most recent quarter"), APPLE)
    assert route is not None and route.filing_ids == ["q3-fy23"]
    # The latest report of any kind is the annual report that ends after the quarters.
    route = route_filings(analyze_query("What risks does Apple list in its latest filing?"), APPLE)
    assert route is not None and route.filing_ids == ["10k-fy23"]
    # A year named wins over "latest".
    route = route_filings(analyze_query("Apple's latest quarter of fiscal 2022"), APPLE)
    assert route is not None and "q3-fy23" not in route.filing_ids


def test_the_latest_quarter_compared_with_earlier_ones_keeps_them_all() -> None:
    route = route_filings(
        analyze_query("How does Apple's R&D in the most recent quarter compare to previous quarters?"), APPLE
    )
    assert route is None or len(route.filing_ids) > 1


def test_the_latest_annual_report_is_the_newest_10k_even_after_newer_quarters() -> None:
    quarters_after = [*APPLE, _report("q1-fy24", "10-Q", 2024, 1, "2023-12-30")]
    route = route_filings(analyze_query("What risks does Apple list in its latest 10-K?"), quarters_after)
    assert route is not None and route.filing_ids == ["10k-fy23"]
