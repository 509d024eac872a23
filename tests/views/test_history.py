"""History page with Streamlit's AppTest: run table, open a run in Research, resume a paused run."""

from __future__ import annotations

import time

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import REPO_ROOT, SAMPLE_DOCS

SAMPLE = SAMPLE_DOCS / "northwind_10k_fy2025.html"
APP = REPO_ROOT / "app.py"


def _history() -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=180).run()
    return at.switch_page("pages/history.py").run()


def _button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


def test_no_runs_yet(bench):
    at = _history()
    assert not at.exception
    assert at.title[0].value == "History"
    assert any("No research runs yet" in info.value for info in at.info)


@pytest.mark.slow
def test_runs_are_listed_and_one_opens_in_research(bench):
    filing = bench.ingest_paths([SAMPLE])[0].filing
    waiting = bench.start_research("What was total revenue in fiscal 2025?", [filing.filing_id])
    at = _history()
    assert not at.exception, at.exception
    table = at.dataframe[0].value
    assert list(table["Run"]) == [waiting.run_id]
    assert list(table["Status"]) == ["Awaiting plan review"]
    assert list(table["Steps"]) == [0]
    assert "Started by" not in table.columns  # no sign-in configured: nobody to name
    assert _button(at, "Resume").disabled, "a plan review is approved in Research, not resumed blindly"

    _button(at, "Open in Research").click().run()
    assert not at.exception, at.exception
    assert at.title[0].value == "Research"
    assert at.query_params["run"] == waiting.run_id
    assert any(sub.value == "Review the plan" for sub in at.subheader)


@pytest.mark.slow
def test_resume_continues_a_paused_run(bench):
    filing = bench.ingest_paths([SAMPLE])[0].filing
    run = bench.start_research(
        "What competition risks does Northwind list, and how did R&D spending change in FY2025?",
        [filing.filing_id],
        step_mode=True,
    )
    paused = bench.approve_plan(run.run_id)
    assert paused.status == "paused_after_step" and len(paused.steps) == 1

    at = _history()
    at.selectbox[0].set_value(run.run_id).run()
    resume = _button(at, "Resume")
    assert not resume.disabled
    resume.click().run()
    assert not at.exception, at.exception

    deadline = time.monotonic() + 120  # the resumed run goes on on a worker
    while bench.active_runs():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    after = bench.get_run(run.run_id)
    assert len(after.steps) == 2 or after.status == "finished"
    assert at.title[0].value == "Research"
    assert at.query_params["run"] == run.run_id
