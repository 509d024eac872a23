"""Research to Report in a real browser: edit the plan in the grid, step mode, override, graph, four exports."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from tests.browser.conftest import foreign_requests, record_requests, screenshot, wait_for_app
from tests.conftest import REPO_ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SAMPLE = REPO_ROOT / "sample_docs" / "northwind_10k_fy2025.html"
RUN_TIMEOUT_MS = 300_000
# Geometry of Streamlit's data grid (a canvas): header and row height, and the row-marker column.
GRID_ROW_PX = 35
MARKER_X_PX = 15


def open_app(page, url: str) -> None:
    """Load a page of the app (its root is the home page) and wait for it."""
    # A tall window: the app scrolls inside its own container, so screenshots show what fits.
    page.set_viewport_size({"width": 1400, "height": 2000})
    page.goto(url)
    wait_for_app(page)


def go_to(page, name: str) -> None:
    """Follow a sidebar link and wait for the page to run."""
    page.get_by_role("link", name=name, exact=True).first.click()
    page.wait_for_timeout(800)
    wait_for_app(page)


def ingest_via_library(page, url: str, path: Path) -> None:
    """Upload one filing on the Library page and wait until it is ingested."""
    open_app(page, f"{url}/library")
    page.locator("input[type='file']").set_input_files([str(path)])
    page.get_by_role("button", name="Ingest").click()
    page.get_by_text("passages in").wait_for(timeout=RUN_TIMEOUT_MS)
    wait_for_app(page)


def ask(page, question: str | None, step_mode: bool) -> str:
    """On Research: type the question (None keeps the prefilled one), choose the mode, plan; return the run id."""
    if question is not None:
        page.get_by_role("textbox", name="Question").fill(question)
    if step_mode:
        page.get_by_text("Step mode: pause after every step").click()
    page.get_by_role("button", name="Plan", exact=True).click()
    page.get_by_text("Review the plan").wait_for(timeout=RUN_TIMEOUT_MS)
    wait_for_app(page)
    page.wait_for_url(re.compile(r"[?&]run=[0-9a-f]+"), timeout=30_000)
    match = re.search(r"[?&]run=([0-9a-f]+)", page.url)
    assert match, f"the run id is in the URL: {page.url}"
    return match.group(1)


def grid_row_y(box: dict, row: int) -> float:
    return box["y"] + GRID_ROW_PX * (row + 1) + GRID_ROW_PX / 2


def delete_row(page, grid, row: int, done_text: str) -> None:
    """Tick a grid row's marker and press Delete, retrying while the grid is still settling."""
    for attempt in range(3):
        page.wait_for_timeout(800)
        if page.get_by_text(done_text).count():  # a slow earlier attempt took effect after all
            return
        box = grid.bounding_box()
        page.mouse.click(box["x"] + MARKER_X_PX, grid_row_y(box, row))
        page.wait_for_timeout(300)
        page.keyboard.press("Delete")
        try:
            page.get_by_text(done_text).wait_for(timeout=10_000)
            return
        except Exception:
            screenshot(page, f"research-delete-attempt-{attempt + 1}")
    raise AssertionError(f"deleting grid row {row} did not take effect")


def choose_in_cell(
    page, grid, row: int, column: int, option: re.Pattern[str], done_text: re.Pattern[str]
) -> None:
    """Open a select cell's editor from the keyboard ('#' cell, then `column` steps right), pick `option`,
    and confirm the edit took effect: the menu closed and the plan review lists the edit (`done_text`)."""
    for attempt in range(3):
        wait_for_app(page)
        page.wait_for_timeout(800)
        if page.get_by_text(done_text).count():  # a slow earlier attempt took effect after all
            return
        box = grid.bounding_box()
        page.mouse.click(box["x"] + 55, grid_row_y(box, row))  # the '#' cell: first data column
        for _ in range(column):
            page.keyboard.press("ArrowRight")
        page.keyboard.press("Enter")
        choice = page.get_by_role("option", name=option)
        try:
            choice.first.wait_for(timeout=5_000)
            choice.first.click()
            choice.first.wait_for(state="hidden", timeout=5_000)
            page.get_by_text(done_text).first.wait_for(timeout=10_000)
            return
        except Exception:
            screenshot(page, f"research-cell-editor-attempt-{attempt + 1}")
            page.keyboard.press("Escape")
    raise AssertionError(f"could not choose {option.pattern} in grid row {row}, column {column}")


def body_text(page) -> str:
    return page.locator("section.stMain, [data-testid='stMain']").first.inner_text()


def wait_for_text(page, text: str, timeout: int = RUN_TIMEOUT_MS) -> None:
    """Wait until `text` is shown: a table's hidden accessibility cells may hold it before it is drawn."""
    page.get_by_text(text).filter(visible=True).first.wait_for(timeout=timeout)
    wait_for_app(page)


def export_text(fmt: str, data: bytes) -> str:
    """Readable text of a downloaded export (PDF via pypdf, DOCX via python-docx)."""
    if fmt == "pdf":
        from pypdf import PdfReader

        return "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(data)).pages)
    if fmt == "docx":
        from docx import Document

        doc = Document(io.BytesIO(data))
        cells = [c.text for t in doc.tables for row in t.rows for c in row.cells]
        return "\n".join([p.text for p in doc.paragraphs] + cells)
    return data.decode("utf-8")


def download_all(page) -> dict[str, bytes]:
    """Click the four download buttons of the Report page and return each file's bytes by extension."""
    files: dict[str, bytes] = {}
    for label in ("Markdown", "HTML", "PDF", "DOCX"):
        with page.expect_download(timeout=60_000) as info:
            page.get_by_role("button", name=label, exact=True).click()
        download = info.value
        files[download.suggested_filename.rsplit(".", 1)[-1]] = Path(download.path()).read_bytes()
    return files


def test_plan_edit_step_mode_override_graph_and_exports(app_server, page):
    requested = record_requests(page)
    ingest_via_library(page, app_server["url"], SAMPLE)
    go_to(page, "Research")
    assert "Northwind" in page.get_by_role("textbox", name="Question").input_value(), (
        "the sample question is prefilled"
    )
    screenshot(page, "research-question")

    run_id = ask(page, None, step_mode=True)
    screenshot(page, "research-plan-review")

    # Edit the plan in the grid: delete the last step (row marker + Delete), then move step 1 to Item 1.
    grid = page.locator("[data-testid='stDataFrame']").first
    page.get_by_text(re.compile(r"\d+ step\(s\) as proposed")).first.wait_for()
    wait_for_app(page)
    text_before = body_text(page)
    found = re.search(r"(\d+) step\(s\) as proposed", text_before)
    assert found, text_before[-3000:]
    steps_before = int(found.group(1))
    delete_row(page, grid, steps_before - 1, f"{steps_before - 1} step(s) — edited")
    choose_in_cell(
        page,
        grid,
        row=0,
        column=4,
        option=re.compile(r"^Item 1 · Business"),
        done_text=re.compile(r"Item changed from \S+ to Item 1\b"),
    )
    page.wait_for_timeout(1500)
    wait_for_app(page)
    screenshot(page, "research-plan-edited")

    page.get_by_role("button", name="Approve plan").click()
    wait_for_text(page, "Paused after step 1")
    text = body_text(page)
    assert "Item filter: Item 1 ·" in text, "the edited Item was used"
    assert "Step mode" in text and "Offline engine" in text
    screenshot(page, "research-step1-paused")

    # Override the first step's strategy and re-run it.
    page.locator("[data-testid='stSelectbox']").filter(
        has_text="Override the retrieval strategy"
    ).first.click()
    other = page.locator("[role='option'][aria-selected='false']").first
    new_strategy = other.inner_text().strip()
    assert new_strategy in {"vector", "keyword", "hybrid"}
    other.click()
    page.get_by_role("button", name="Re-run step").first.click()
    wait_for_text(page, "Decided by analyst")
    screenshot(page, "research-override")

    page.get_by_role("button", name="Continue", exact=True).click()
    page.wait_for_timeout(1000)
    wait_for_app(page)
    page.wait_for_function(
        "() => document.body.innerText.includes('Paused after step 2') "
        "|| document.body.innerText.includes('References')",
        timeout=RUN_TIMEOUT_MS,
    )
    wait_for_app(page)  # the pause's buttons exist only once the script has finished drawing
    if page.get_by_role("button", name="Finish now").count():
        page.get_by_role("button", name="Finish now").click()
    wait_for_text(page, "References")
    screenshot(page, "research-answer")

    # A citation jumps to its reference.
    page.locator("a.cite").first.click()
    page.wait_for_timeout(500)
    assert re.search(r"#ref-\d+$", page.url), page.url

    page.get_by_role("tab", name="Evidence graph").click()
    frame = page.frame_locator("iframe").first
    frame.locator("#legend").wait_for(timeout=60_000)
    frame.locator("canvas").first.wait_for(timeout=60_000)
    page.wait_for_timeout(2500)
    screenshot(page, "research-graph")

    page.get_by_role("tab", name="Charts").click()
    page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
    screenshot(page, "research-charts")

    # A reload shows the same run, from its checkpoint.
    page.reload()
    wait_for_app(page)
    assert f"run={run_id}" in page.url
    wait_for_text(page, "References", timeout=60_000)

    page.get_by_role("link", name="Open the report and its exports").click()
    wait_for_app(page)
    wait_for_text(page, "Download the report", timeout=60_000)
    assert f"run={run_id}" in page.url
    page.get_by_role("button", name="DOCX", exact=True).wait_for(timeout=60_000)
    screenshot(page, "report")
    files = download_all(page)
    assert set(files) == {"md", "html", "pdf", "docx"}
    assert files["pdf"].startswith(b"%PDF")
    for fmt, data in files.items():
        content = export_text(fmt, data).replace("\\", "")
        assert "[1]" in content, fmt
        assert "Audit appendix" in content, fmt
        assert "Item 1" in content, fmt
        assert new_strategy in content, f"{fmt}: the analyst's override is in the audit trail"
    # Results, charts, the evidence graph and the exports: nothing came from another host.
    assert foreign_requests(requested, app_server["url"]) == []


def test_a_run_goes_on_when_the_analyst_switches_pages(app_server, page):
    """Approve a plan and leave for History at once: the run finishes on the server (it used to stop with
    the page), and its link shows the cited answer."""
    open_app(page, app_server["url"])
    go_to(page, "Research")
    if not page.get_by_role("textbox", name="Question").count():  # the library is empty
        ingest_via_library(page, app_server["url"], SAMPLE)
        go_to(page, "Research")
    question = (
        "What foreign currency risk does Northwind describe, how much of its revenue is in foreign "
        "currencies, and how concentrated is its customer base?"
    )
    run_id = ask(page, question, step_mode=False)
    page.get_by_role("button", name="Approve plan").click()
    page.wait_for_timeout(300)
    go_to(page, "History")  # leaves Research while the run works
    screenshot(page, "history-after-leaving-a-run")
    # Back at the run's link: it finished on the server (or the page re-attaches until it does).
    page.goto(f"{app_server['url']}/research?run={run_id}")
    wait_for_app(page)
    wait_for_text(page, "References", timeout=60_000)
    assert "stopped before it finished" not in body_text(page)
