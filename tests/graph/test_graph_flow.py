"""The research graph on an in-memory retriever: review interrupts, edits, step mode, overrides, checkpoints."""

from __future__ import annotations

import dataclasses

import pytest

from core.agents.registry import offline_agents
from core.config import Settings
from core.graph.deps import ResearchDeps
from core.graph.runner import ResearchRunner, RunStateError
from core.models import Plan, PlanStep, RunEvent
from tests.graph.fakes import FakeRetriever, fake_chunks

FILING = "f" * 64
QUESTION = "What competition risks does Acme list, and how do its R&D and Data Center results relate to them?"


@pytest.fixture
def setup(tmp_path):
    settings = Settings(data_dir=tmp_path / "data", web_search_enabled=False)
    retriever = FakeRetriever()
    deps = ResearchDeps(
        settings=settings,
        agents=offline_agents(),
        retriever=retriever,
        filing_labels={FILING: "Acme Graphics 10-K FY2023"},
    )
    runner = ResearchRunner(settings, lambda: deps)
    yield runner, retriever, settings
    runner.close()


def _chunk_text() -> dict[str, str]:
    return {c.chunk_id: c.text for c in fake_chunks()}


def _assert_citations_resolve(record) -> None:
    texts = _chunk_text()
    assert record.citations
    for c in record.citations:
        assert c.chunk_id in texts
        assert " ".join(c.quote.split()) in " ".join(texts[c.chunk_id].split())
        assert f"[{c.number}]" in record.answer


def test_plan_review_then_cited_answer(setup) -> None:
    runner, _, _ = setup
    events: list[RunEvent] = []
    record = runner.start(QUESTION, [FILING], on_event=events.append)
    assert record.status == "awaiting_plan_review"
    assert record.pending and record.pending["kind"] == "plan_review"
    assert [v.author for v in record.plan_history] == ["planner"]
    assert record.steps == []
    record = runner.approve_plan(record.run_id, on_event=events.append)
    assert record.status == "finished", record.error
    # The anchor (the question as asked) first, then the planner's three clause steps.
    assert len(record.steps) == len(record.plan.steps) == 4
    assert record.plan.steps[0].is_anchor and record.plan.steps[0].sub_question == QUESTION
    assert record.steps[0].rewritten_query == QUESTION and record.steps[0].evidence
    _assert_citations_resolve(record)
    assert "$15,005 million" in record.answer.replace("\\$", "$")
    kinds = {e.kind for e in events}
    assert {
        "node_started",
        "node_finished",
        "strategy_chosen",
        "evidence_found",
        "interrupt",
        "run_finished",
    } <= kinds
    for step in record.steps:
        assert step.strategy in ("vector", "keyword", "hybrid") and step.justification
        assert {"rewrite_query", "choose_strategy", "retrieve_evidence", "rerank_evidence"} <= set(
            step.timings
        )
        assert all(e.chunk_id and e.section and e.page for e in step.evidence)
        assert step.note is not None and step.decision is not None
    assert record.timings["write_report"] >= 0 and record.engine == "offline"


def test_plan_edits_are_diffed_into_history(setup) -> None:
    runner, retriever, _ = setup
    record = runner.start(QUESTION, [FILING])
    steps = list(record.plan.steps)
    edited = Plan(
        steps=[
            steps[0],
            steps[1].model_copy(update={"document_section": "Item 3", "keywords": ["lawsuit"]}),
            steps[2],
            PlanStep(step_id="", sub_question="What did rivals announce in 2024?", tool="search_web"),
        ]
    )
    record = runner.approve_plan(record.run_id, edited)
    assert record.status == "finished"
    history = record.plan_history
    assert [v.author for v in history][:2] == ["planner", "analyst"]
    changes = " | ".join(history[1].changes)
    assert "Deleted step 4" in changes
    assert "Item changed from Item 1A to Item 3" in changes
    assert "Added step 4" in changes and "search_web" in changes
    assert [s.tool for s in record.steps][:3] == ["search_10k"] * 3 and record.steps[-1].tool == "search_web"
    assert retriever.calls[1]["section"] == "Item 3"
    # Nothing in Item 3 matched the competition question: reflection searched the whole filing for it.
    added = [s for s in record.plan.steps if s.origin == "reflection"]
    assert added and added[0].document_section is None and "nothing in Item 3" in (added[0].reason or "")
    assert history[-1].author == "reflection"
    web = record.steps[-1]
    assert web.evidence == [] and web.evidence_note and "web search unavailable" in web.evidence_note
    assert any(
        f.component == "web search" and f.step_index == len(record.steps) - 1 for f in record.fallbacks
    )
    assert "No web evidence" in record.answer


def test_step_mode_pause_override_and_edit_remaining(setup) -> None:
    runner, retriever, _ = setup
    record = runner.start(QUESTION, [FILING], step_mode=True)
    record = runner.approve_plan(record.run_id)
    assert record.status == "paused_after_step" and len(record.steps) == 1
    assert record.pending and record.pending["kind"] == "step_review" and record.pending["next_step"] == 1
    record = runner.continue_run(record.run_id)  # past the anchor step
    assert record.status == "paused_after_step" and len(record.steps) == 2

    record = runner.override_strategy(record.run_id, 1, "keyword")
    assert record.status == "paused_after_step"
    first = record.steps[1]
    assert (first.strategy, first.decided_by, first.attempt) == ("keyword", "analyst", 2)
    assert retriever.calls[-1]["strategy"] == "keyword"
    assert len(record.steps) == 2  # re-running did not advance the plan

    remaining = Plan(steps=record.plan.steps[3:])  # drop the R&D step
    record = runner.continue_run(record.run_id, remaining)
    # The last planned step ran; the policy finishes instead of pausing again.
    assert record.status == "finished" and len(record.steps) == 3
    assert "Data Center" in record.steps[2].sub_question
    assert record.plan_history[-1].author == "analyst"
    assert any("Deleted step 3" in c for c in record.plan_history[-1].changes)
    with pytest.raises(RunStateError):
        runner.approve_plan(record.run_id)


def test_override_after_finish_reruns_only_that_step(setup) -> None:
    runner, retriever, _ = setup
    record = runner.approve_plan(runner.start(QUESTION, [FILING]).run_id)
    calls = len(retriever.calls)
    before = [s.attempt for s in record.steps]
    record = runner.override_strategy(record.run_id, 1, "vector")
    assert record.status == "finished"
    assert len(retriever.calls) == calls + 1
    assert [s.attempt for s in record.steps] == [before[0], before[1] + 1, *before[2:]]
    assert (record.steps[1].strategy, record.steps[1].decided_by) == ("vector", "analyst")
    _assert_citations_resolve(record)
    with pytest.raises(ValueError):
        runner.override_strategy(record.run_id, 0, "telepathy")


def test_runs_survive_a_new_runner_and_are_listed(setup, tmp_path) -> None:
    runner, _, settings = setup
    run_id = runner.start(QUESTION, [FILING], run_id="run-1").run_id
    deps = ResearchDeps(settings=settings, agents=offline_agents(), retriever=FakeRetriever())
    other = ResearchRunner(settings, lambda: deps)
    try:
        assert other.get(run_id).status == "awaiting_plan_review"
        assert other.approve_plan(run_id).status == "finished"
        runs = {r.run_id: r for r in other.list_runs()}
        assert runs["run-1"].status == "finished" and runs["run-1"].steps_done == 4
        with pytest.raises(RunStateError):
            other.start("again", [FILING], run_id="run-1")
    finally:
        other.close()


def test_calculator_step_uses_earlier_figures(setup) -> None:
    runner, _, _ = setup
    record = runner.start("How did Acme's Data Center revenue change in fiscal 2023?", [FILING])
    assert [s.tool for s in record.plan.steps] == ["search_10k", "search_10k", "calculator"]
    assert "Data Center" in record.plan.steps[2].sub_question  # the segment is kept
    record = runner.approve_plan(record.run_id)
    calc = record.steps[2]
    assert calc.cards and "+41.4%" in calc.cards[0].claim
    assert calc.cards[0].evidence_ids[0].startswith(("S1-", "S2-"))
    assert "+41.4%" in record.answer


def test_budget_and_failing_retrieval(setup) -> None:
    runner, retriever, _ = setup
    record = runner.start(QUESTION, [FILING], max_steps=1)
    assert len(record.plan.steps) == 1 and record.plan.steps[0].is_anchor  # the planner respects the budget
    extra = PlanStep(step_id="", sub_question="What legal proceedings exist?", document_section="Item 3")
    record = runner.approve_plan(record.run_id, Plan(steps=[*record.plan.steps, extra]))
    assert len(record.plan.steps) == 2 and len(record.steps) == 1  # ... and so does the run
    assert "budget" in (record.finish_reason or "")

    def broken(*args, **kwargs):
        raise RuntimeError("index unavailable")

    retriever.search = broken
    events: list[RunEvent] = []
    record = runner.approve_plan(
        runner.start("What legal proceedings exist?", [FILING]).run_id, on_event=events.append
    )
    assert record.status == "finished"
    assert "The search failed unexpectedly (RuntimeError)" in record.steps[0].errors[0]
    assert "index unavailable" not in record.steps[0].errors[0]  # exception text goes to the log only
    assert any(e.kind == "error" for e in events)
    assert "No supporting passage found" in record.answer


def test_failed_node_is_reported_and_resumable(tmp_path) -> None:
    settings = Settings(data_dir=tmp_path / "data", web_search_enabled=False)
    base = offline_agents()
    calls = {"n": 0}

    def flaky_write(inputs, deps):
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("writer crashed")
        return base.write(inputs, deps)

    agents = dataclasses.replace(base, write=flaky_write)
    runner = ResearchRunner(
        settings, lambda: ResearchDeps(settings=settings, agents=agents, retriever=FakeRetriever())
    )
    events: list[RunEvent] = []
    record = runner.approve_plan(
        runner.start("What legal proceedings exist?", [FILING]).run_id, on_event=events.append
    )
    assert record.status == "failed" and "write report stage failed" in (record.error or "")
    assert "writer crashed" not in record.error and all("writer crashed" not in e.message for e in events)
    assert record.next_nodes == ["write_report"] and any(e.kind == "error" for e in events)
    record = runner.continue_run(record.run_id)
    assert record.status == "finished" and record.answer and len(record.steps) >= 2
    runner.close()
