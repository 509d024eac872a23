"""Library in a real browser: drag-and-drop style upload, progress, table, rejected files."""

from __future__ import annotations

import pytest

from tests.browser.conftest import screenshot, wait_for_app
from tests.conftest import REPO_ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SAMPLE = REPO_ROOT / "sample_docs" / "northwind_10k_fy2025.html"
CORRUPT = REPO_ROOT / "tests" / "fixtures" / "corrupt.pdf"


def test_upload_sample_a_bad_file_and_reindex(app_server, page):
    page.goto(f"{app_server['url']}/library")
    wait_for_app(page)
    page.get_by_text("No filings yet").wait_for()
    screenshot(page, "library-empty")

    page.locator("input[type='file']").set_input_files([str(SAMPLE), str(CORRUPT)])
    page.get_by_role("button", name="Ingest").click()
    page.get_by_text("passages in").wait_for(timeout=300_000)
    # The Filings table is a canvas whose hidden accessibility cells also hold "Item 1A": wait for the
    # section's expander, which is what the analyst sees.
    page.locator("[data-testid='stExpander'] summary").filter(has_text="Item 1A").first.wait_for()
    wait_for_app(page)
    screenshot(page, "library-ingested")

    body = page.locator("body").inner_text()
    assert "corrupt.pdf was not ingested" in body
    assert "Filings (1)" in body
    assert "Item 1A" in body

    # A filing indexed by an older version: the Library says so and re-indexes it in place.
    from core.index.catalog import Catalog

    catalog = Catalog(app_server["data_dir"] / "catalog.sqlite")
    (filing,) = catalog.list_filings()
    catalog.update_filing(filing.model_copy(update={"index_version": 1}))
    catalog.close()
    page.reload()
    wait_for_app(page)
    page.get_by_text("indexed by an older version").wait_for()
    screenshot(page, "library-outdated")
    page.get_by_role("button", name="Re-index them").click()
    page.get_by_text("re-indexed:").wait_for(timeout=300_000)
    wait_for_app(page)
    body = page.locator("body").inner_text()
    assert "indexed by an older version" not in body
    assert "Filings (1)" in body


def test_an_ingestion_can_be_cancelled_and_leaves_nothing(app_server, page):
    """A 10-K that takes a minute to embed: Cancel stops it, the Library says so, and no part of it is in
    the catalog, the vectors or the BM25 index."""
    from core.config import Settings
    from core.index.store import IndexStore
    from tests.conftest import shared_file

    nvda = shared_file("filings", "NVDA_10K_FY2023.htm")
    page.goto(f"{app_server['url']}/library")
    wait_for_app(page)
    before = page.locator("body").inner_text()
    page.locator("input[type='file']").set_input_files([str(nvda)])
    page.get_by_role("button", name="Ingest").click()
    page.get_by_text("Embedding passages").first.wait_for(timeout=120_000)
    screenshot(page, "library-ingesting")
    page.get_by_role("button", name="Cancel", exact=True).click()
    page.get_by_text("Ingestion cancelled").wait_for(timeout=60_000)
    wait_for_app(page)
    screenshot(page, "library-cancelled")
    assert "NVIDIA" not in page.locator("body").inner_text().replace(before, "")
    store = IndexStore.open(Settings(data_dir=app_server["data_dir"]))
    assert all("NVIDIA" not in f.company for f in store.catalog.list_filings())
    assert store.repair() == [], "nothing half-written to repair"


def test_financials_tab_shows_statements_finds_rows_and_opens_a_passage(app_server, page):
    from core.index.catalog import Catalog

    page.goto(f"{app_server['url']}/library")
    wait_for_app(page)
    # The library table is drawn on a canvas, so whether the sample is in is read from the catalog.
    catalog = Catalog(app_server["data_dir"] / "catalog.sqlite")
    ingested = any("Northwind" in f.company for f in catalog.list_filings())
    catalog.close()
    if not ingested:
        page.locator("input[type='file']").set_input_files([str(SAMPLE)])
        page.get_by_role("button", name="Ingest").click()
        page.get_by_text("passages in").wait_for(timeout=300_000)
        wait_for_app(page)

    page.get_by_role("tab", name="Financials").click()
    wait_for_app(page)
    page.get_by_text("STATEMENTS OF OPERATIONS").wait_for()
    body = page.locator("body").inner_text()
    assert "Income statement; in millions; page 16." in body
    screenshot(page, "library-financials-income")

    page.get_by_text("Balance sheet", exact=True).click()
    wait_for_app(page)
    page.get_by_text("BALANCE SHEETS").wait_for()
    page.get_by_label("Find rows by label", exact=True).fill("deferred revenue")
    page.get_by_label("Find rows by label", exact=True).press("Enter")
    wait_for_app(page)
    rows = page.locator("[data-testid='stSelectbox']").filter(has_text="Open a row's page and passage")
    rows.locator("input").click()
    page.keyboard.type("Deferred revenue, current")  # typing opens the list, filtered
    page.get_by_role("option", name="Current liabilities — Deferred revenue, current (page 17)").click()
    wait_for_app(page)
    marked = page.locator("mark", has_text="Deferred revenue, current")
    marked.wait_for()
    assert "52.6" in marked.inner_text()
    screenshot(page, "library-financials-search")


QUARTERLY_REPORT = """UNITED STATES SECURITIES AND EXCHANGE COMMISSION
FORM 10-Q
QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the quarterly period ended September 30, 2024
Commission File Number 001-45678
BOREALIS FOODS INC.
(Exact name of registrant as specified in its charter)

PART I — FINANCIAL INFORMATION
Item 1. Financial Statements
CONDENSED CONSOLIDATED BALANCE SHEETS (Unaudited)
(In millions)
September 30, 2024 June 30, 2024
Inventories 340 320
Total assets 4,500 4,400
Item 2. Management's Discussion and Analysis of Financial Condition and Results of Operations
Net sales rose on volumes of frozen meals sold to grocery chains.
PART II — OTHER INFORMATION
Item 1A. Risk Factors
There have been no material changes to the risk factors in our Annual Report on Form 10-K for the fiscal
year ended June 30, 2024.
"""

RELEASE = (
    """FOR IMMEDIATE RELEASE
Borealis Foods Reports First Quarter Fiscal 2025 Results
DENVER, Colo. (October 24, 2024) – Borealis Foods Inc. (NYSE: BRLS) today announced results for the first
quarter of fiscal 2025, for the quarter ended September 30, 2024.
Net sales were $1,299 million, up 7% from the first quarter of fiscal 2024.
"""
    + "Frozen meals and soups sold to grocery chains grew in every region the company serves. " * 24
    + """

Outlook

For fiscal 2025 the company expects net sales growth of 4% to 6%.
"""
)


def test_a_quarterly_report_and_an_earnings_release_are_read_as_what_they_are(app_server, page, tmp_path):
    from core.index.catalog import Catalog

    report, release = tmp_path / "borealis_q1_fy2025_10q.txt", tmp_path / "borealis_q1_fy2025_release.txt"
    report.write_text(QUARTERLY_REPORT)
    release.write_text(RELEASE)
    page.goto(f"{app_server['url']}/library")
    wait_for_app(page)
    page.locator("input[type='file']").set_input_files([str(report), str(release)])
    page.get_by_role("button", name="Ingest").click()
    page.get_by_text("borealis_q1_fy2025_release.txt").first.wait_for(timeout=300_000)
    page.get_by_text("passages in").nth(1).wait_for(timeout=300_000)
    wait_for_app(page)
    screenshot(page, "library-quarterly-and-release")

    # The table is drawn on a canvas: what it lists is read from the catalog it shows.
    catalog = Catalog(app_server["data_dir"] / "catalog.sqlite")
    read = {f.filename: (f.company, f.form, f.period, f.period_end) for f in catalog.list_filings()}
    sections = {f.filename: set(f.sections) for f in catalog.list_filings()}
    catalog.close()
    assert read[report.name] == ("Borealis Foods Inc.", "10-Q", "Q1 FY2025", "2024-09-30")
    assert read[release.name] == ("Borealis Foods Inc.", "Earnings release", "Q1 FY2025", "2024-09-30")
    assert {"Highlights", "Outlook"} <= sections[release.name]

    # The 10-Q's own sections: its Parts and Items, risk factors as Part II Item 1A.
    picker = page.locator("[data-testid='stSelectbox']").filter(has_text="Inspect a filing")
    picker.locator("input").click()
    page.get_by_role("option", name=f"Borealis Foods Inc. 10-Q Q1 FY2025 — {report.name}").click()
    wait_for_app(page)
    page.get_by_text("Part II Item 1A — Risk Factors").wait_for()
    body = page.locator("body").inner_text()
    assert "Part I Item 2 — Management" in body
    screenshot(page, "library-quarterly-sections")
