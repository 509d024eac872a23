"""Filing routing: a query naming a company in the library searches that company's filings."""

from __future__ import annotations

from core.models import Filing
from core.retrieval.analysis import analyze_query
from core.retrieval.routing import route_filings


def _filing(filing_id: str, company: str) -> Filing:
    return Filing(
        filing_id=filing_id,
        filename=f"{filing_id}.pdf",
        company=company,
        source_type="pdf",
        pages=1,
        chunks=1,
    )


LIBRARY = [
    _filing("amex", "American Express Company"),
    _filing("boeing22", "The Boeing Company"),
    _filing("boeing18", "The Boeing Company"),
    _filing("jnj", "Johnson & Johnson"),
    _filing("unknown", "Unknown company"),
]


def test_named_company_routes_to_all_its_filings() -> None:
    route = route_filings(analyze_query("Who are the primary customers of Boeing as of FY2022?"), LIBRARY)
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
