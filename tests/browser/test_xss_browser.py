"""A hostile filing in a real browser: its scripts, handlers and links stay text everywhere; no alert fires."""

from __future__ import annotations

import pytest

from tests.browser.conftest import screenshot, wait_for_app
from tests.browser.test_research_browser import (
    ask,
    body_text,
    download_all,
    export_text,
    go_to,
    ingest_via_library,
    wait_for_text,
)
from tests.conftest import REPO_ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

XSS = REPO_ROOT / "tests" / "fixtures" / "xss_filing.html"
QUESTION = (
    "What competitive advantages and unsafe customer formulas does Contoso describe, "
    "and how much was research and development expense?"
)
# Elements that only hostile markup from the filing could have created in the app's own document.
INJECTED = (
    "script:not([src]):not([type]), img[onerror], iframe[src^='javascript'], a[href^='javascript'], [onclick]"
)


def _injected(page) -> int:
    return page.evaluate(
        "(sel) => [...document.querySelectorAll(sel)].filter(e => /alert/.test(e.outerHTML)).length", INJECTED
    )


def test_hostile_filing_is_shown_and_exported_as_text(app_server, page):
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))

    ingest_via_library(page, app_server["url"], XSS)
    go_to(page, "Research")
    ask(page, QUESTION, step_mode=False)
    page.get_by_role("button", name="Approve plan").click()
    wait_for_text(page, "References")
    screenshot(page, "xss-answer")

    page.get_by_role("tab", name="Plan & steps").click()
    page.wait_for_timeout(800)
    for header in page.locator("[data-testid='stExpander'] summary").all():
        header.click()
        page.wait_for_timeout(300)
    wait_for_app(page)
    text = body_text(page)
    assert "<script>alert('xss')</script>" in text, "the formula example is shown as literal text"
    screenshot(page, "xss-steps")

    page.get_by_role("tab", name="Evidence graph").click()
    page.frame_locator("iframe").first.locator("canvas").first.wait_for(timeout=60_000)
    page.wait_for_timeout(2500)
    screenshot(page, "xss-graph")

    assert _injected(page) == 0
    go_to(page, "Report")
    page.get_by_role("button", name="DOCX", exact=True).wait_for(timeout=60_000)
    files = download_all(page)
    screenshot(page, "xss-report")
    assert _injected(page) == 0
    assert dialogs == [], f"a script from the filing ran: {dialogs}"

    html = files["html"].decode("utf-8")
    assert "<script>alert" not in html and "onerror=" not in html.replace("onerror=&quot;", "")
    assert "&lt;script&gt;" in html
    markdown = files["md"].decode("utf-8")
    assert "<script>" not in markdown and "\\<script\\>" in markdown
    for fmt in ("pdf", "docx"):
        assert "<script>alert('xss')</script>" in export_text(fmt, files[fmt]), (
            f"{fmt} keeps the text verbatim"
        )
