"""A run keeps going without its page: leave Research mid-run, see it in History as running now, come
back and re-attach to its live progress, cancel it, resume it from History (Streamlit's AppTest)."""

from __future__ import annotations

import threading
import time

import pytest
from streamlit.testing.v1 import AppTest

from core.models import RunEvent
from core.retrieval.retriever import Retriever
from tests.conftest import REPO_ROOT, SAMPLE_DOCS

pytestmark = pytest.mark.slow

SAMPLE = SAMPLE_DOCS / "northwind_10k_fy2025.html"
QUESTION = "What competition risks does Northwind list, and how did R&D spending change in FY2025?"


def _page(name: str, run_id: str | None = None) -> AppTest:
    at = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=180).run()
    at.switch_page(f"pages/{name}.py")
    if run_id:
        at.query_params["run"] = run_id
    at.run()
    assert not at.exception, at.exception
    return at


def _button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


def _wait(predicate, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


@pytest.fixture
def gate(monkeypatch):
    """Filing searches wait until the gate opens: a run stays 'running' as long as the test needs."""
    opened = threading.Event()
    search = Retriever.search

    def gated(self, *args, **kwargs):
        assert opened.wait(120), "the test never opened the gate"
        return search(self, *args, **kwargs)

    monkeypatch.setattr(Retriever, "search", gated)
    yield opened
    opened.set()


def test_a_run_survives_its_page_is_reattached_cancelled_and_resumed(bench, gate):
    filing = bench.ingest_paths([SAMPLE])[0].filing
    run_id = bench.start_research(QUESTION, [filing.filing_id]).run_id

    research = _page("research", run_id)
    _button(research, "Approve plan").click().run()
    assert not research.exception, research.exception
    assert bench.active_runs().keys() == {run_id}
    assert _button(research, "Cancel run") is not None
    assert any("continues on the server" in c.value for c in research.caption)

    # The analyst leaves: History (a new page, a new session) lists the run as running now.
    history = _page("history")
    assert list(history.dataframe[0].value["Status"]) == ["Running now"]
    assert _button(history, "Resume").disabled

    # ... comes back to the run's link: the page re-attaches to the live run and can cancel it.
    back = _page("research", run_id)
    assert not any(b.label == "Approve plan" for b in back.button)
    _button(back, "Cancel run").click().run()
    gate.set()
    _wait(lambda: not bench.active_runs())
    record = bench.get_run(run_id)
    assert record.status == "cancelled" and len(record.steps) < len(record.plan.steps)
    back.run()
    assert any("was cancelled" in i.value for i in back.info)

    history = _page("history")
    assert list(history.dataframe[0].value["Status"]) == ["Cancelled"]
    resume = _button(history, "Resume")
    assert not resume.disabled
    resume.click().run()
    _wait(lambda: not bench.active_runs())
    record = bench.get_run(run_id)
    assert record.status == "finished", record.error
    assert record.answer and record.citations


def test_the_live_run_shows_what_the_model_is_writing_as_plain_text(bench, gate):
    filing = bench.ingest_paths([SAMPLE])[0].filing
    run_id = bench.start_research(QUESTION, [filing.filing_id]).run_id
    _button(_page("research", run_id), "Approve plan").click().run()
    live = bench.live_run(run_id)
    # The worker waits at the gate, inside the first step's search: no event follows until it opens.
    _wait(lambda: any(e.kind == "node_started" and e.node == "retrieve_evidence" for e in live.events))
    half_written = "Revenue rose 12% to **$422.6 million** <script>alert(1)</script>"
    live.add(RunEvent(run_id=run_id, kind="model_writing", step_index=0, message=half_written))

    research = _page("research", run_id)
    assert any("Step 1 · The model is writing" in c.value for c in research.caption)
    assert [t.value for t in research.text] == [half_written]  # shown as text: no markup, no script

    gate.set()
    _wait(lambda: not bench.active_runs())
    research.run()
    assert not any("The model is writing" in c.value for c in research.caption)


@pytest.fixture
def two_at_once(monkeypatch):
    """Runs execute up to two independent steps at once (set before the workbench is built)."""
    monkeypatch.setenv("WORKBENCH_MAX_PARALLEL_STEPS", "2")


def test_steps_of_a_wave_are_shown_side_by_side_while_they_run(two_at_once, bench, gate):
    filing = bench.ingest_paths([SAMPLE])[0].filing
    run_id = bench.start_research(QUESTION, [filing.filing_id]).run_id
    _button(_page("research", run_id), "Approve plan").click().run()
    live = bench.live_run(run_id)
    # The plan starts with two independent steps (the anchor, the R&D statement lookup; its calculator
    # waits for them): both wait at the gate, inside their searches.
    _wait(
        lambda: (
            len(
                {
                    e.step_index
                    for e in live.events
                    if e.kind == "node_started" and e.node == "retrieve_evidence"
                }
            )
            == 2
        ),
        timeout_s=60,
    )
    research = _page("research", run_id)
    assert any("2 independent steps are running at once" in c.value for c in research.caption)
    shown = [m.value for m in research.markdown if m.value.startswith("**Step ")]
    assert shown == [f"**Step {n}** · Retrieving passages…" for n in (1, 2)]

    gate.set()
    _wait(lambda: not bench.active_runs())
    record = bench.get_run(run_id)
    assert record.status == "finished", record.error
    assert record.settings["max_parallel_steps"] == 2
