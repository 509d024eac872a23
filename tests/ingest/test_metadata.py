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


QUARTERLY = """UNITED STATES SECURITIES AND EXCHANGE COMMISSION
FORM 10-Q
QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d)
For the quarterly period ended {end}
Commission File Number 001-12345
ACME WIDGET HOLDINGS, INC.
(Exact name of registrant as specified in its charter)
Acme Widget Holdings, Inc. makes widgets.
CONDENSED CONSOLIDATED BALANCE SHEETS
{end} {prior}
Total assets 1,200 1,100
The balance sheet at {prior} is derived from the audited statements. Compared with {prior}, cash rose.
"""


@pytest.mark.parametrize(
    ("end", "prior", "year", "quarter"),
    [
        # A fiscal year ending in late September: a quarter ending in December opens the next fiscal year.
        ("December 31, 2022", "September 24, 2022", 2023, 1),
        ("June 25, 2022", "September 25, 2021", 2022, 3),
        # A year ending in late January (fiscal 2024 ends in January 2024).
        ("July 29, 2023", "January 28, 2023", 2024, 2),
        # A 52/53-week year ending on the weekend nearest December 31 spills into January.
        ("April 2, 2023", "January 1, 2023", 2023, 1),
        ("September 30, 2023", "December 31, 2022", 2023, 3),
        # June year end: the quarter ending in December is the second of the next fiscal year.
        ("December 31, 2022", "June 30, 2022", 2023, 2),
    ],
)
def test_quarterly_report_period_follows_the_companys_fiscal_year(end, prior, year, quarter):
    meta = detect_metadata(QUARTERLY.format(end=end, prior=prior))
    assert (meta.form, meta.fiscal_year, meta.fiscal_quarter) == ("10-Q", year, quarter)
    assert meta.company == "Acme Widget Holdings, Inc."


def test_quarterly_report_xbrl_focus_wins():
    meta = detect_metadata(
        QUARTERLY.format(end="December 31, 2022", prior="September 24, 2022"),
        {"DocumentType": "10-Q", "DocumentPeriodEndDate": "2022-12-31", "DocumentFiscalYearFocus": "2023",
         "DocumentFiscalPeriodFocus": "Q1"},
    )  # fmt: skip
    assert (meta.fiscal_year, meta.fiscal_quarter) == (2023, 1)


def test_annual_report_takes_the_name_the_company_gives_its_year():
    cover = COVER.format(form="10-K", period_line="For the fiscal year ended January 28, 2023")
    assert detect_metadata(cover).fiscal_year == 2023
    named = cover + "Our fiscal 2022 ended January 28, 2023 and had 52 weeks."
    assert detect_metadata(named).fiscal_year == 2022


def test_current_report_reads_event_date_and_items():
    text = (
        "UNITED STATES SECURITIES AND EXCHANGE COMMISSION\nFORM 8-K\nCURRENT REPORT\n"
        "Date of Report (Date of earliest event reported): August 19, 2022 (August 16, 2022)\n"
        "Acme Widget Holdings, Inc.\n(Exact name of registrant as specified in charter)\n"
        "For the fiscal year ended January 28, 2023 our outlook is unchanged.\n"
        "Item 2.02. Results of Operations and Financial Condition.\nSee the release.\n"
        "Item 9.01 Financial Statements and Exhibits.\n99.1 Press release\n"
    )
    meta = detect_metadata(text)
    assert (meta.form, meta.period_end, meta.fiscal_year, meta.fiscal_quarter) == (
        "8-K",
        "2022-08-19",
        2022,
        None,
    )
    assert meta.event_items == ["2.02", "9.01"]
    assert meta.company == "Acme Widget Holdings, Inc."


@pytest.mark.parametrize(
    ("head", "company", "year", "quarter"),
    [
        ("FOR IMMEDIATE RELEASE\n• 2023 Second-Quarter reported sales growth of 6.3%\nNew Brunswick, N.J. (July 20, "
         "2023) – Contoso & Partners (NYSE: CTP) today announced results for second quarter 2023.",
         "Contoso & Partners", 2023, 2),
        ("March 9, 2023\nAcme Beauty Announces Fourth Quarter\nFiscal 2022 Results\nBOLINGBROOK, Ill.--(BUSINESS "
         "WIRE)-- Acme Beauty, Inc. (NASDAQ: ACME) today announced results for the period (“fiscal year”) ended "
         "January 28, 2023.", "Acme Beauty, Inc.", 2022, 4),
        ("Acme reports fiscal 2023 results and provides outlook for fiscal 2024\nJune 2023 quarter: EPS of 12 cps"
         "\nAbout Acme\nAcme plc is a packaging company. Our Annual Report on Form 10-K was filed with the "
         "Securities and Exchange Commission.", "Acme plc", 2023, 4),
    ],
)  # fmt: skip
def test_earnings_release_is_read_as_a_release(head, company, year, quarter):
    meta = detect_metadata(head + "\nForm 10-Q mentioned later.\n" + "Results text. " * 50)
    assert (meta.form, meta.company, meta.fiscal_year, meta.fiscal_quarter) == (
        "Earnings release",
        company,
        year,
        quarter,
    )


def test_amended_annual_report_keeps_its_amendment_mark():
    meta = detect_metadata(
        COVER.format(form="10-K/A", period_line="For the fiscal year ended December 31, 2021")
    )
    assert meta.form == "10-K/A" and meta.fiscal_year == 2021
