"""Company, form and fiscal year read from real cover pages, and from cover-page text variants."""

from __future__ import annotations

import pytest

from core.ingest.metadata import detect_metadata, parse_date


@pytest.mark.parametrize(
    ("parts", "company", "year", "period_end"),
    [
        (("filings", "NVDA_10K_FY2023.htm"), "NVIDIA Corporation", 2023, "2023-01-29"),
        (("filings", "AAPL_10K_FY2023.htm"), "Apple Inc.", 2023, "2023-09-30"),
        (("filings", "NVDA_10K_FY2024.htm"), "NVIDIA Corporation", 2024, "2024-01-28"),
        (("filings", "AAPL_10K_FY2024.htm"), "Apple Inc.", 2024, "2024-09-28"),
        (("filings", "NVDA_10K_FY2023_deepthinkingrag_clean.txt"), "NVIDIA Corporation", 2023, "2023-01-29"),
        pytest.param(
            ("filings", "LYFT_10K_FY2021.pdf"),
            "Lyft, Inc.",
            2021,
            "2021-12-31",
            marks=pytest.mark.slow,
        ),
        pytest.param(
            ("filings", "UBER_10K_FY2021.pdf"),
            "Uber Technologies, Inc.",
            2021,
            "2021-12-31",
            marks=pytest.mark.slow,
        ),
    ],
)
def test_real_cover_pages(real_filing, parts, company, year, period_end):
    parsed, _ = real_filing(*parts)
    assert parsed.company == company
    assert parsed.form == "10-K"
    assert parsed.fiscal_year == year and parsed.period_end == period_end


COVER = """UNITED STATES
SECURITIES AND EXCHANGE COMMISSION
Washington, D.C. 20549
FORM {form}
{period_line}
Commission File Number 001-12345
ACME WIDGET HOLDINGS, INC.
(Exact name of registrant as specified in its charter)
Acme Widget Holdings, Inc. makes widgets. Acme Widget Holdings, Inc. sells them.
"""


@pytest.mark.parametrize(
    ("form", "period_line", "year", "end"),
    [
        ("10-K", "For the fiscal year ended January 29, 2023", 2023, "2023-01-29"),
        # A 52/53-week year ending on the weekend nearest December 31 is named for the year it covers.
        ("10-K", "For the fiscal year ended January 1, 2023", 2022, "2023-01-01"),
        ("10-K", "For the fiscal year ended January 3, 2021", 2020, "2021-01-03"),
        ("10-K", "FOR THE FISCAL YEAR ENDED DECEMBER 31, 2021", 2021, "2021-12-31"),
        ("10-K", "For the Year Ended December 31, 2018", 2018, "2018-12-31"),
        ("10-Q", "For the quarterly period ended Sept. 30, 2023", 2023, "2023-09-30"),
        ("8-K", "Date of Report (Date of earliest event reported): May 20, 2022", 2022, "2022-05-20"),
    ],
)
def test_cover_variants(form, period_line, year, end):
    meta = detect_metadata(COVER.format(form=form, period_line=period_line))
    assert meta.form == form and meta.fiscal_year == year and meta.period_end == end
    assert meta.company == "Acme Widget Holdings, Inc."


def test_xbrl_facts_win_and_missing_facts_leave_none():
    meta = detect_metadata("no cover here", {"DocumentType": "10-Q", "DocumentPeriodEndDate": "June 30, 2024",
                                            "EntityRegistrantName": "Contoso Ltd"})  # fmt: skip
    assert (meta.form, meta.fiscal_year, meta.company) == ("10-Q", 2024, "Contoso Ltd")
    empty = detect_metadata("A memo.")
    assert empty.fiscal_year is None and empty.period_end is None and empty.form == "10-K"
    assert parse_date("not a date") is None


@pytest.mark.parametrize(
    ("cover", "company"),
    [
        # PDF extraction splits capitals off their words and breaks names over lines.
        ("Commission File No. 001-10362\nMGM\nR\nESORTS \n I\n NTERNATIONAL (Exact name of Registrant as specified "
         "in its charter)\nMGM Resorts International operates resorts.", "MGM Resorts International"),
        ("Commission File Number 001-37622\nSQUARE,\nINC.(Exact name of registrant as specified in its charter)\n"
         "Square, Inc. builds tools.", "Square, Inc."),
        # No caption under the name: the line after the file number is the name.
        ("Commission File Number 001-37845\n\nMICROSOFT CORPORATION\nWASHINGTON 91-1144442\n"
         "Microsoft Corporation develops software.", "Microsoft Corporation"),
        # The name is only a logo on the cover: fall back to the name the prose uses most.
        ("Commission File Number 001-02217\n(Exact name of Registrant as specified in its charter)\nDelaware\n"
         "The Coca-Cola Company is a beverage company. The Coca-Cola Company sells drinks.", "The Coca-Cola Company"),
    ],
)  # fmt: skip
def test_company_name_variants(cover, company):
    assert (
        detect_metadata("FORM 10-K\nFor the fiscal year ended December 31, 2017\n" + cover).company == company
    )
