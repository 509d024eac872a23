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
    page.get_by_text("Item 1A").first.wait_for()
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
