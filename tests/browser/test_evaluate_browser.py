"""Evaluate in a real browser: run the sample set through two systems and read the comparison."""

from __future__ import annotations

import pytest

from tests.browser.conftest import screenshot, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_sample_evaluation_in_the_browser(app_server, page):
    page.goto(f"{app_server['url']}/evaluate")
    wait_for_app(page)
    page.get_by_text("No evaluation yet").wait_for()
    limit = page.get_by_test_id("stNumberInputField")
    limit.fill("2")
    limit.press("Enter")
    # Keep two systems: one search of the question and the deep loop.
    page.get_by_role("button", name="Remove naive (fixed 1,000-character page splits, vector top-5)").click()
    page.get_by_role("button", name="Run evaluation").click()
    page.get_by_text("Done: 4 answers scored.").wait_for(timeout=600_000)
    page.get_by_text("One question, every system").wait_for(timeout=120_000)
    wait_for_app(page)
    screenshot(page, "evaluate-sample")
    body = page.locator("body").inner_text()
    assert "Systems side by side" in body and "By question type" in body
    assert "One question, every system" in body
    assert "one-search" in body and "deep" in body
    # Every answer is escaped HTML in the drill-down: figures and citations, no raw Markdown markers.
    drill = page.locator(".wb-report").first.inner_text()
    assert drill.strip() and "**" not in drill
