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
