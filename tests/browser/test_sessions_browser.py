"""Eight browser sessions research eight filings at once while a ninth uploads one: every run finishes,
each session keeps its own run and cites only its own filing, and the server's memory stays bounded."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.browser.conftest import screenshot, wait_for_app
from tests.browser.test_research_browser import SAMPLE, ask, body_text, go_to, open_app, wait_for_text

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: Eight companies, each a copy of the sample filing under another name (different bytes: a filing each).
COMPANIES = ["Alder", "Birch", "Cedar", "Dogwood", "Elm", "Fir", "Hazel", "Juniper"]
#: Peak resident memory of the app server through this test (models loaded once, shared by all sessions).
MAX_SERVER_RSS_MB = 3072


def _copies(folder: Path, names: list[str]) -> list[Path]:
    text = SAMPLE.read_text(encoding="utf-8")
    paths = []
    for name in names:
        path = folder / f"{name.lower()}_10k_fy2025.html"
        path.write_text(text.replace("Northwind", name).replace("NORTHWIND", name.upper()), encoding="utf-8")
        paths.append(path)
    return paths


def _peak_rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024


def _upload(page, url: str, paths: list[Path]) -> None:
    open_app(page, f"{url}/library")
    page.locator("input[type='file']").set_input_files([str(p) for p in paths])
    page.get_by_role("button", name="Ingest").click()


def _run_id(page) -> str:
    match = re.search(r"[?&]run=([0-9a-f]+)", page.url)
    assert match, page.url
    return match.group(1)


def test_eight_sessions_research_eight_filings_while_a_ninth_uploads(app_server, browser, tmp_path):
    url = app_server["url"]
    filings = _copies(tmp_path, [*COMPANIES, "Kapok"])
    contexts = [browser.new_context(viewport={"width": 1400, "height": 1600}) for _ in range(9)]
    try:
        pages = [context.new_page() for context in contexts]
        sessions, uploader = pages[:8], pages[8]
        _upload(sessions[0], url, filings[:8])
        sessions[0].get_by_text("Filings (8)").wait_for(timeout=600_000)
        wait_for_app(sessions[0])

        runs = {}
        for page, company in zip(sessions, COMPANIES, strict=True):
            open_app(page, url)
            go_to(page, "Research")
            question = (
                f"What was {company} Robotics' total revenue for fiscal 2025, and what risks does it list?"
            )
            runs[company] = (page, question, ask(page, question, step_mode=False))
        # The ninth session uploads a filing while the eight runs work.
        _upload(uploader, url, filings[8:])
        for page, _, _ in runs.values():
            page.get_by_role("button", name="Approve plan").click()
        for page, _, _ in runs.values():
            wait_for_text(page, "References")
        uploader.get_by_text("passages in").wait_for(timeout=600_000)
        screenshot(sessions[0], "sessions-first")
        screenshot(sessions[7], "sessions-eighth")

        for company, (page, question, run_id) in runs.items():
            assert _run_id(page) == run_id
            text = body_text(page)
            assert question in text, company
            others = [c for c in COMPANIES if c != company]
            assert f"{company} Robotics" in text
            assert not any(f"{other} Robotics" in text for other in others), (
                f"{company}'s run shows another's"
            )

        go_to(sessions[1], "History")
        history = body_text(sessions[1])
        assert re.search(r"Runs\s+8\b", history) and re.search(r"Finished\s+8\b", history), history[:400]
        screenshot(sessions[1], "sessions-history")
        peak = _peak_rss_mb(app_server["pid"])
        print(f"app server peak RSS: {peak:.0f} MB")
        assert peak < MAX_SERVER_RSS_MB, f"peak RSS {peak:.0f} MB"
    finally:
        for context in contexts:
            context.close()
