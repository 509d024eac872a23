"""Two browser sessions research two questions at the same time; each keeps its own run."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import screenshot, wait_for_app
from tests.browser.test_research_browser import (
    SAMPLE,
    ask,
    body_text,
    go_to,
    ingest_via_library,
    open_app,
    wait_for_text,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SECOND_QUESTION = "What was Northwind Robotics' total revenue for fiscal 2025?"


def _run_id(page) -> str:
    match = re.search(r"[?&]run=([0-9a-f]+)", page.url)
    assert match, page.url
    return match.group(1)


def test_two_sessions_run_two_questions_without_mixing(app_server, browser):
    contexts = [
        browser.new_context(viewport={"width": 1400, "height": 2000}, accept_downloads=True) for _ in range(2)
    ]
    try:
        first, second = (context.new_page() for context in contexts)
        ingest_via_library(first, app_server["url"], SAMPLE)
        open_app(second, app_server["url"])
        for page in (first, second):
            go_to(page, "Research")
        first_question = first.get_by_role("textbox", name="Question").input_value()
        assert first_question and first_question != SECOND_QUESTION

        first_id = ask(first, None, step_mode=False)
        second_id = ask(second, SECOND_QUESTION, step_mode=False)
        assert first_id != second_id

        # Both runs are started before either is awaited, so they run in the server at the same time.
        first.get_by_role("button", name="Approve plan").click()
        second.get_by_role("button", name="Approve plan").click()
        for page in (first, second):
            wait_for_text(page, "References")
        screenshot(first, "sessions-first")
        screenshot(second, "sessions-second")

        for page, run_id, own, other in (
            (first, first_id, first_question, SECOND_QUESTION),
            (second, second_id, SECOND_QUESTION, first_question),
        ):
            assert _run_id(page) == run_id
            text = body_text(page)
            assert own in text and other not in text
            assert run_id in text
            page.reload()
            wait_for_app(page)
            wait_for_text(page, "References", timeout=60_000)
            assert _run_id(page) == run_id
            text = body_text(page)
            assert own in text and other not in text

        # History, seen from either session, counts both runs as finished (the table itself is a canvas).
        go_to(second, "History")
        history = body_text(second)
        assert re.search(r"Runs\s+2\b", history) and re.search(r"Finished\s+2\b", history), history[:400]
        screenshot(second, "sessions-history")
    finally:
        for context in contexts:
            context.close()
