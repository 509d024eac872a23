"""The Report page in a browser: a citation of a PDF filing opens its page with the quoted lines highlighted."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from tests.browser.conftest import running_app, screenshot, wait_for_app
from tests.fixtures.make_fixtures import SMALL_PDF_FILING, SMALL_PDF_QUESTION, text_pdf

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _yellow_pixels(png: bytes) -> int:
    rgb = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    return int(((rgb[..., 0] > 200) & (rgb[..., 1] > 170) & (rgb[..., 2] < 140)).sum())


def test_a_pdf_citation_opens_its_page_with_the_quote_highlighted(tmp_path, browser) -> None:
    from core.config import Settings
    from core.service import Workbench

    bench = Workbench(Settings(data_dir=tmp_path, web_search_enabled=False))
    (result,) = bench.ingest([("wingtip-10k.pdf", text_pdf(SMALL_PDF_FILING))])
    assert result.ok, result.error
    run = bench.start_research(SMALL_PDF_QUESTION, [result.filing.filing_id])
    record = bench.approve_plan(run.run_id)
    assert record.status == "finished" and record.citations
    bench.close()
    cited = record.citations[0]

    with running_app(tmp_path) as server:
        page = browser.new_page(viewport={"width": 1400, "height": 1600})
        page.goto(f"{server['url']}/report?run={record.run_id}&cite={cited.number}")
        # The page is rendered after the report is drawn (a spinner shows meanwhile).
        page.get_by_text("the quoted passage is highlighted").wait_for(timeout=120_000)
        wait_for_app(page)
        main = page.locator("[data-testid='stMain']").first
        assert "Page 1 of 1 of Wingtip Toys" in main.inner_text()
        close_up = main.locator("[data-testid='stImage'] img").first
        close_up.wait_for(timeout=30_000)
        assert close_up.evaluate("img => img.complete && img.naturalWidth > 0")
        # The picture the analyst sees carries the highlight.
        assert _yellow_pixels(close_up.screenshot()) > 500
        screenshot(page, "report-cited-pdf-page")
        page.close()
