"""Pages as files in pages/: a deep link is the first request of a fresh server and still opens its page,
with the page's configuration and the sidebar of page links; the home page shows the library and a quick
start."""

from __future__ import annotations

import pytest

from tests.browser.conftest import foreign_requests, record_requests, running_app, screenshot, wait_for_app
from tests.conftest import REPO_ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SAMPLE = REPO_ROOT / "sample_docs" / "northwind_10k_fy2025.html"
QUESTION = "What competition risks does Northwind list?"
PAGE_LINKS = ["Home", "Library", "Research", "Report", "History", "Evaluate", "Settings"]


def _sidebar_links(page) -> list[str]:
    # A link reads "<icon name>\n\n<label>": the label is its last line.
    return [
        a.inner_text().strip().splitlines()[-1] for a in page.locator("[data-testid='stSidebar'] a").all()
    ]


def test_a_deep_link_is_the_first_request_of_a_fresh_server(tmp_path, browser) -> None:
    from core.config import Settings
    from core.service import Workbench

    # A run waiting for plan review, made before the server exists.
    bench = Workbench(Settings(data_dir=tmp_path, web_search_enabled=False))
    filing = bench.ingest_paths([SAMPLE])[0].filing
    assert filing is not None
    run = bench.start_research(QUESTION, [filing.filing_id])
    assert run.status == "awaiting_plan_review"
    bench.runner.close()

    with running_app(tmp_path) as server:
        page = browser.new_page(viewport={"width": 1400, "height": 1600})
        page.goto(f"{server['url']}/research?run={run.run_id}")  # nothing was requested before this
        wait_for_app(page)
        # The first request also loads the models: wait until the plan review has been drawn.
        page.get_by_role("button", name="Approve plan").wait_for(timeout=120_000)
        wait_for_app(page)
        main = page.locator("[data-testid='stMain']").first.inner_text()
        assert "Research" in main and QUESTION in main and "Review the plan" in main
        assert page.title() == "Research · Filing Research Workbench"
        assert _sidebar_links(page) == PAGE_LINKS
        screenshot(page, "deep-link-fresh-server")

        # Every page is reachable from the sidebar; the home page shows the library.
        page.get_by_role("link", name="Home", exact=True).first.click()
        page.wait_for_timeout(800)
        wait_for_app(page)
        home = page.locator("[data-testid='stMain']").first.inner_text()
        assert "Filings in the library" in home and "Northwind" in home and "Quick start" in home
        screenshot(page, "home")
        page.get_by_role("link", name="History", exact=True).first.click()
        page.wait_for_timeout(800)
        wait_for_app(page)
        history = page.locator("[data-testid='stMain']").first.inner_text()
        assert page.url.endswith("/history") and "waits for its plan to be approved" in history
        page.close()


def test_every_asset_a_page_loads_comes_from_the_app_server(app_server, page) -> None:
    """The app is offline by design: no font, icon or script of any page comes from another host."""
    from urllib.parse import urlsplit

    requested = record_requests(page)
    for path in ("", "library", "research", "report", "history", "evaluate", "settings"):
        page.goto(f"{app_server['url']}/{path}")
        wait_for_app(page)
        page.wait_for_timeout(500)  # the tab's icon is set after the page is drawn
    assert requested and foreign_requests(requested, app_server["url"]) == []
    icon = page.evaluate("() => document.querySelector(\"link[rel='shortcut icon']\").href")
    assert urlsplit(icon).netloc == urlsplit(app_server["url"]).netloc
