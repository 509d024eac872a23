"""Research actions on workers: the caller returns at once, progress is kept for re-attaching, the pool is
bounded, one action per run, and a cancelled run stops before its next stage and resumes from there."""

from __future__ import annotations

import threading
import time

import pytest

from core.agents.registry import offline_agents
from core.config import Settings
from core.graph.background import BackgroundRuns, RunBusy
from core.graph.deps import ResearchDeps
from core.graph.node_support import CANCELLED_MESSAGE
from core.graph.runner import ResearchRunner
from tests.graph.fakes import FakeRetriever

FILING = "f" * 64
QUESTION = "What competition risks does Acme list, and how do its R&D and Data Center results relate to them?"


class GatedRetriever(FakeRetriever):
    """A FakeRetriever whose searches wait for `gate` and call `on_search` first."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.gate.set()
        self.on_search = lambda: None

    def search(self, query, **kwargs):
        self.on_search()
        assert self.gate.wait(30), "test gate never opened"
        return super().search(query, **kwargs)


@pytest.fixture
def setup(tmp_path):
    settings = Settings(data_dir=tmp_path / "data", web_search_enabled=False)
    retriever = GatedRetriever()
    deps = ResearchDeps(settings=settings, agents=offline_agents(), retriever=retriever)
    runner = ResearchRunner(settings, lambda: deps)
    pool = BackgroundRuns(max_workers=1)
    yield runner, retriever, pool
    retriever.gate.set()
    pool.shutdown()
    runner.close()


def _wait(predicate, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_an_action_runs_on_a_worker_and_keeps_its_progress(setup) -> None:
    runner, retriever, pool = setup
    run_id = runner.start(QUESTION, [FILING]).run_id
    retriever.gate.clear()
    live = pool.submit(run_id, "Running the plan…", 4, runner.approve_plan, run_id)
    assert live.active  # the caller is back before the run is
    with pytest.raises(RunBusy):
        pool.submit(run_id, "Running the plan…", 4, runner.approve_plan, run_id)
    assert pool.active().keys() == {run_id}
    retriever.gate.set()
    _wait(lambda: not live.active)
    assert (live.state, live.status) == ("done", "finished")
    assert any(e.kind == "run_finished" for e in live.events_since(0))
    assert runner.get(run_id).status == "finished"
    assert pool.active() == {}


def test_the_pool_is_bounded_and_later_actions_wait(setup) -> None:
    runner, retriever, pool = setup
    first = runner.start(QUESTION, [FILING]).run_id
    second = runner.start(QUESTION, [FILING]).run_id
    retriever.gate.clear()
    a = pool.submit(first, "Running…", 4, runner.approve_plan, first)
    b = pool.submit(second, "Running…", 4, runner.approve_plan, second)
    _wait(lambda: a.state == "running")
    time.sleep(0.2)
    assert b.state == "queued"
    retriever.gate.set()
    _wait(lambda: not a.active and not b.active)
    assert a.status == b.status == "finished"


def test_a_cancelled_run_stops_before_its_next_stage_and_resumes(setup) -> None:
    runner, retriever, pool = setup
    run_id = runner.start(QUESTION, [FILING]).run_id
    searches = {"n": 0}

    def cancel_on_second_search() -> None:
        searches["n"] += 1
        if searches["n"] == 2:
            runner.cancel(run_id)

    retriever.on_search = cancel_on_second_search
    live = pool.submit(run_id, "Running the plan…", 4, runner.approve_plan, run_id)
    _wait(lambda: not live.active)
    record = runner.get(run_id)
    assert (live.status, record.status) == ("cancelled", "cancelled")
    assert record.error == CANCELLED_MESSAGE
    assert 1 <= len(record.steps) < len(record.plan.steps)
    assert any(e.kind == "error" and e.message == CANCELLED_MESSAGE for e in live.events_since(0))
    retriever.on_search = lambda: None
    resumed = pool.submit(run_id, "Resuming…", 4, runner.continue_run, run_id)
    _wait(lambda: not resumed.active)
    record = runner.get(run_id)
    assert record.status == "finished", record.error
    assert len(record.steps) >= len(record.plan.steps) - 1 and record.answer


def test_a_failed_action_is_said_in_a_sentence(setup) -> None:
    runner, _, pool = setup
    live = pool.submit("nope", "Continuing…", 1, runner.continue_run, "nope")
    _wait(lambda: not live.active)
    assert live.state == "failed"
    assert live.message == "Continuing was not possible: there is no run nope."


# A background run in a process of its own (as in the app): plan, approve, then print every event.
_APP = """
import sys, time
from core.config import load_settings
from core.service import Workbench

data_dir, filing_id, question = sys.argv[1:4]
bench = Workbench(load_settings(data_dir=data_dir))
run_id = bench.start_research_in_background(question, [filing_id])
while bench.live_run(run_id).active:
    time.sleep(0.05)
plan = bench.get_run(run_id).plan
live = bench.run_in_background(run_id, "Researching", len(plan.steps), bench.approve_plan, run_id)
print("run", run_id, flush=True)
seen = 0
while True:
    events = live.events_since(seen)
    seen += len(events)
    for event in events:
        print(event.kind, event.node, event.step_index, flush=True)
    time.sleep(0.02)
"""


@pytest.mark.slow
def test_a_background_run_killed_with_its_process_resumes_from_its_last_checkpoint(
    sample_index, tmp_path
) -> None:
    import os
    import subprocess
    import sys

    from core.config import load_settings
    from core.service import Workbench
    from tests.conftest import REPO_ROOT

    data_dir, filing_id = sample_index
    question = (
        "What competition risks does Northwind list, and how did its Fleet Software segment revenue and R&D "
        "spending change in FY2025?"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "WORKBENCH_WEB_SEARCH_ENABLED": "false"}
    child_log = tmp_path / "child-stderr.txt"  # what the killed process logged, for a failure's message
    with child_log.open("w") as stderr:
        app = subprocess.Popen(
            [sys.executable, "-c", _APP, str(data_dir), filing_id, question],
            cwd=REPO_ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
    run_id = ""
    deadline = time.monotonic() + 300
    assert app.stdout is not None
    for line in app.stdout:
        if line.startswith("run "):
            run_id = line.split()[1]
        # Kill hard as soon as the second step has its evidence: mid-step, mid-run.
        if line.split()[:1] == ["evidence_found"] and line.split()[-1] == "1":
            app.kill()
            break
        assert time.monotonic() < deadline, "the run never reached step 2"
    app.wait(timeout=30)
    assert app.returncode == -9 and run_id

    bench = Workbench(load_settings(data_dir=data_dir))
    interrupted = bench.get_run(run_id)
    done_before = len(interrupted.steps)  # the kill lands in step 2 or, the printing being slower, later
    logged = child_log.read_text(errors="replace")[-3000:]
    assert interrupted.status == "running", f"{interrupted.error}\n{logged}"
    assert 1 <= done_before < len(interrupted.plan.steps)
    live = bench.run_in_background(
        run_id, "Resuming", len(interrupted.plan.steps), bench.continue_run, run_id
    )
    _wait(lambda: not live.active, timeout_s=600)
    record = bench.get_run(run_id)
    assert live.state == "done" and record.status == "finished", live.message
    assert [s.index for s in record.steps] == list(range(len(record.plan.steps)))
    assert all(s.attempt == 1 and s.decision for s in record.steps)
    started = {(e.node, e.step_index) for e in live.events if e.kind == "node_started"}
    assert not any(node == "rewrite_query" and step < done_before for node, step in started)
    assert any(step is not None and step >= done_before for _, step in started)
    assert record.citations
    bench.background.shutdown()
