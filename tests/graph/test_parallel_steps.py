"""Independent steps run together (a wave) on real indexes and a real checkpointer: the same answer as one
step at a time, model calls of a wave in flight at once, step mode pausing between waves, and a run stopped
mid-wave resuming without repeating the steps that finished; and a run stopped between a node's saved writes
and the checkpoint after them, which resumes too."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

from core.config import Settings
from core.graph.deps import build_deps
from core.graph.runner import ResearchRunner
from core.graph.waves import next_wave
from core.llm import build_chat_model
from core.models import RunEvent
from tests.graph.openai_stub import OpenAIStub

QUESTION = (
    "What competition risks does Northwind list, and how did its Fleet Software segment revenue and R&D "
    "spending change in FY2025?"
)

pytestmark = pytest.mark.slow


def _offline_runner(data_dir, parallel: int, **deps_changes) -> ResearchRunner:
    settings = Settings(data_dir=data_dir, web_search_enabled=False, max_parallel_steps=parallel)
    return ResearchRunner(settings, lambda: replace(build_deps(settings), **deps_changes))


def _run(runner: ResearchRunner, filing_id: str, events: list[RunEvent] | None = None, **start):
    on_event = events.append if events is not None else None
    record = runner.start(QUESTION, [filing_id], on_event=on_event, **start)
    return runner.approve_plan(record.run_id, on_event=on_event)


def _by_part(record) -> dict:
    return {(s.sub_question, s.origin, s.reason): [e.chunk_id for e in s.evidence] for s in record.steps}


def test_a_wave_finds_what_one_step_at_a_time_finds(sample_index) -> None:
    """Same steps, same evidence per step, same opening paragraph. Only the order of follow-up steps
    differs: reflection adds them after the wave rather than after the step that needed them."""
    data_dir, filing_id = sample_index
    sequential = _run(_offline_runner(data_dir, 1), filing_id)
    events: list[RunEvent] = []
    together = _run(_offline_runner(data_dir, 3), filing_id, events)
    assert sequential.status == together.status == "finished", together.error
    first_wave = next_wave(together.plan, 0, 3)
    assert len(first_wave) > 1  # the plan has independent steps to run together
    assert _by_part(together) == _by_part(sequential)
    opening = together.answer.split("\n### ")[0]
    assert opening == sequential.answer.split("\n### ")[0] and "[1]" in opening
    # Every step kept its plan position and its own evidence ids.
    assert [s.index for s in together.steps] == list(range(len(together.steps)))
    assert all(e.evidence_id.startswith(f"S{s.index + 1}-") for s in together.steps for e in s.evidence)
    # The steps of the first wave overlapped: each started before any of them finished, and one decision
    # followed the wave, written on its last step.
    starts = [n for n, e in enumerate(events) if e.kind == "node_started" and e.node == "rewrite_query"]
    ends = [n for n, e in enumerate(events) if e.kind == "node_finished" and e.node == "reflect_on_step"]
    assert starts[len(first_wave) - 1] < ends[0]
    assert [together.steps[i].decision is not None for i in first_wave] == [False] * (len(first_wave) - 1) + [
        True
    ]


def test_step_mode_pauses_between_waves(sample_index) -> None:
    data_dir, filing_id = sample_index
    runner = _offline_runner(data_dir, 3)
    record = _run(runner, filing_id, step_mode=True)
    first_wave = next_wave(record.plan, 0, 3)
    assert record.status == "paused_after_step"
    assert len(record.steps) == len(first_wave) > 1
    assert record.pending and record.pending["next_step"] == len(first_wave)
    record = runner.continue_run(record.run_id)
    assert record.status in ("paused_after_step", "finished")
    assert len(record.steps) > len(first_wave)


def _saved_tasks(runner: ResearchRunner, run_id: str, count: int) -> None:
    """Wait until `count` finished tasks of the interrupted wave are kept with the checkpoint (a task's
    writes are saved as it ends, which can be just after the run's call has returned)."""
    deadline = time.monotonic() + 30
    while True:
        tasks = runner.graph.get_state({"configurable": {"thread_id": run_id}}).tasks
        if sum(1 for t in tasks if t.result is not None) >= count:
            return
        assert time.monotonic() < deadline, "the finished steps were never saved"
        time.sleep(0.05)


def test_a_run_stopped_mid_wave_resumes_without_repeating_finished_steps(sample_index) -> None:
    """One step of the first wave fails (its reflection raises, once); the steps that finished beside it
    are kept with the checkpoint and are not run again when the run is continued."""
    data_dir, filing_id = sample_index
    agents = build_deps(Settings(data_dir=data_dir)).agents
    failed_once: list[str] = []

    def flaky_reflect(inputs, deps):
        if not failed_once and inputs.sub_question != QUESTION:
            failed_once.append(inputs.sub_question)
            raise RuntimeError("the reflection server went away")
        return agents.reflect(inputs, deps)

    runner = _offline_runner(data_dir, 3, agents=replace(agents, reflect=flaky_reflect))
    events: list[RunEvent] = []
    record = _run(runner, filing_id, events)
    assert record.status == "failed" and failed_once
    first_wave = next_wave(record.plan, 0, 3)
    failed = next(i for i, s in enumerate(record.plan.steps) if s.sub_question == failed_once[0])
    finished = {e.step_index for e in events if e.kind == "node_finished" and e.node == "reflect_on_step"}
    # Every other step of the wave ran to its end beside the failed one.
    assert failed in first_wave and finished == set(first_wave) - {failed}
    _saved_tasks(runner, record.run_id, len(finished))
    resumed: list[RunEvent] = []
    record = runner.continue_run(record.run_id, on_event=resumed.append)
    assert record.status == "finished", record.error
    rerun = {e.step_index for e in resumed if e.kind == "node_started" and e.node == "rewrite_query"}
    # The failed step ran again; the ones that had finished did not.
    assert rerun & set(first_wave) == {failed}
    assert [s.index for s in record.steps] == list(range(len(record.steps)))
    assert all(s.note is not None for s in record.steps)


def test_the_calls_of_a_wave_are_in_flight_at_once(sample_index, tmp_path) -> None:
    """Against an OpenAI-compatible server answering each call in 0.3 s: the model calls of different steps
    of a wave overlap in time (the server's own timestamps), and the run's answer cites the filing."""
    data_dir, filing_id = sample_index

    def plan_three_parts(tool: str, prompt: str) -> dict:
        from tests.graph.openai_stub import default_answer

        if tool != "PlanDraft":
            return default_answer(tool, prompt)
        parts = ["competition risks", "Fleet Software segment revenue", "research and development spending"]
        return {
            "steps": [
                {"sub_question": f"What does Northwind report on {p}?", "tool": "search_10k"} for p in parts
            ],
            "rationale": "three independent parts",
        }

    with OpenAIStub(answer=plan_three_parts, latency_s=0.3) as stub:
        settings = Settings(
            data_dir=data_dir,
            llm_provider="openai",
            llm_base_url=stub.base_url,
            llm_model="stub-model",
            llm_max_retries=0,
            web_search_enabled=False,
        )
        model = build_chat_model(settings, cache=False)
        runner = ResearchRunner(settings, lambda: build_deps(settings, chat_model=model))
        record = _run(runner, filing_id)
        timeline = list(stub.timeline)
    assert record.status == "finished", record.error
    assert record.fallbacks == [] or all(f.routine for f in record.fallbacks)
    # The three planned parts wait for the calculator (its figure lookups run in the first wave), then run
    # together: the server had each of their calls in hand at once.
    for tool in ("RewrittenQuery", "StrategyDecision", "Distillation", "ResearchNote"):
        calls = [(start, end) for start, end, name, _ in timeline if name == tool]
        assert max(sum(1 for s, e in calls if s <= t < e) for t, _ in calls) >= 3, tool
    assert record.citations and record.citations[0].chunk_id


def test_a_run_stopped_between_a_nodes_writes_and_the_next_checkpoint_is_running_and_resumes(
    sample_index,
) -> None:
    """A process killed after a node's writes were saved but before the checkpoint that follows them: the
    last checkpoint's task has its writes and LangGraph lists no next node. The run is 'running' (not
    'failed') and continues to its answer. The window is reproduced by removing every checkpoint after a
    mid-run one, its task's saved writes kept, as a kill at that moment leaves the database."""
    import sqlite3

    data_dir, filing_id = sample_index
    runner = _offline_runner(data_dir, 1)
    finished = _run(runner, filing_id)
    assert finished.status == "finished"
    config = runner._config(finished.run_id)
    history = list(runner.graph.get_state_history(config))  # newest first
    cut = next(
        s
        for s in reversed(history)
        if s.next == ("distil_evidence",) and len(s.values.get("steps") or []) >= 1
    )
    checkpoint_id = cut.config["configurable"]["checkpoint_id"]
    with sqlite3.connect(runner.settings.checkpoint_path) as db:
        written = db.execute(
            "SELECT COUNT(*) FROM writes WHERE thread_id = ? AND checkpoint_id = ?",
            (finished.run_id, checkpoint_id),
        ).fetchone()[0]
        assert written, "the task's writes were saved with its checkpoint"
        db.execute(
            "DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id > ?",
            (finished.run_id, checkpoint_id),
        )
        db.execute(
            "DELETE FROM writes WHERE thread_id = ? AND checkpoint_id > ?", (finished.run_id, checkpoint_id)
        )
    stopped = runner.get(finished.run_id)
    assert stopped.status == "running" and not stopped.answer
    resumed = runner.continue_run(finished.run_id)
    assert resumed.status == "finished", resumed.error
    assert resumed.answer and [s.index for s in resumed.steps] == list(range(len(resumed.steps)))
