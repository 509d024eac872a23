"""Sign-in against a real OpenID Connect provider (oidc-provider-mock, started by the test): signed out, a
page shows only the sign-in; signed in, the library; each run records who started it, and History shows
an analyst's own runs, or everyone's."""

from __future__ import annotations

import pytest

from tests.browser.conftest import running_app, screenshot, wait_for_app
from tests.browser.test_research_browser import ask, go_to
from tests.conftest import REPO_ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SAMPLE = REPO_ROOT / "sample_docs" / "northwind_10k_fy2025.html"
SECRETS = """
[auth]
redirect_uri = "{app_url}/oauth2callback"
cookie_secret = "a-cookie-secret-for-the-test-only"
client_id = "workbench"
client_secret = "a-client-secret-for-the-test-only"
server_metadata_url = "http://localhost:%d/.well-known/openid-configuration"
"""


def _sign_in(page, app_url: str, who: str) -> None:
    page.goto(f"{app_url}/library")
    page.get_by_role("button", name="Sign in").wait_for(timeout=90_000)
    page.get_by_role("button", name="Sign in").click()
    page.locator("input[name='sub']").fill(who)  # the provider's own form
    page.get_by_role("button", name="Authorize").click()
    page.wait_for_url(f"{app_url}/**", timeout=60_000)
    page.get_by_text(f"Signed in as {who}").wait_for(timeout=90_000)
    wait_for_app(page)


def _history(page, whose: str) -> str:
    go_to(page, "History")
    page.locator("[data-testid='stMain']").get_by_text(whose, exact=True).first.click()
    page.wait_for_timeout(800)
    wait_for_app(page)
    return page.locator("[data-testid='stMain']").first.inner_text()


def test_only_signed_in_analysts_get_in_and_runs_say_who_started_them(tmp_path, browser) -> None:
    from oidc_provider_mock import run_server_in_thread

    from core.config import Settings
    from core.service import Workbench

    bench = Workbench(Settings(data_dir=tmp_path, web_search_enabled=False))
    assert bench.ingest_paths([SAMPLE])[0].ok
    bench.runner.close()
    with run_server_in_thread() as provider, running_app(tmp_path, SECRETS % provider.server_port) as server:
        page = browser.new_page(viewport={"width": 1400, "height": 1400})
        page.goto(f"{server['url']}/library")
        page.get_by_role("button", name="Sign in").wait_for(timeout=90_000)
        wait_for_app(page)
        main = page.locator("[data-testid='stMain']").first.inner_text()
        assert "Sign in to open the library" in main and "Northwind" not in main
        assert page.locator("[data-testid='stSidebar'] a").count() == 0  # no page links signed out
        screenshot(page, "sign-in")

        _sign_in(page, server["url"], "ana@example.com")
        go_to(page, "Home")
        home = page.locator("[data-testid='stMain']").first.inner_text()
        assert "Filings in the library" in home and "Northwind" in home
        assert "no sign-in is configured" not in home
        assert "Signed in as ana@example.com" in page.locator("[data-testid='stSidebar']").inner_text()
        go_to(page, "Research")
        run_id = ask(page, None, step_mode=False)
        page.get_by_role("button", name="Approve plan").wait_for(timeout=120_000)
        wait_for_app(page)
        assert "started by ana@example.com" in page.locator("[data-testid='stMain']").first.inner_text()
        mine = _history(page, "Mine")
        assert "waits for its plan to be approved" in mine and "No research runs yet" not in mine
        screenshot(page, "sign-in-history-mine")

        page.get_by_role("button", name="Sign out").click()
        page.get_by_role("button", name="End session").click(timeout=60_000)  # the provider's own page
        page.get_by_role("button", name="Sign in").wait_for(timeout=90_000)  # back in the app, signed out
        _sign_in(page, server["url"], "ben@example.com")
        assert "No research runs yet" in _history(page, "Mine")
        everyone = _history(page, "Everyone's")
        assert "waits for its plan to be approved" in everyone and "No research runs yet" not in everyone
        page.goto(f"{server['url']}/research?run={run_id}")
        page.get_by_role("button", name="Approve plan").wait_for(timeout=120_000)
        wait_for_app(page)
        assert "started by ana@example.com" in page.locator("[data-testid='stMain']").first.inner_text()
        screenshot(page, "sign-in-history-everyone")
        page.close()
