"""The whole graph in LLM mode against a local OpenAI-compatible stub: LLM answers are used when valid,
and every role falls back to its offline twin (recorded) when the server keeps failing."""

from __future__ import annotations

from core.graph.background import LiveRun
from core.graph.runner import ResearchRunner
from core.models import RunEvent
from tests.graph.fakes import llm_runner
from tests.graph.openai_stub import OpenAIStub

FILING = "f" * 64


def _runner(tmp_path, url: str, retries: int, streaming: bool | None = None) -> ResearchRunner:
    return llm_runner(
        tmp_path / "data", url, "stub-model", retries=retries, timeout_s=5.0, streaming=streaming
    )


def test_llm_run_uses_structured_answers(tmp_path) -> None:
    with OpenAIStub() as stub:
        runner = _runner(tmp_path, stub.base_url, retries=1)
        record = runner.start("What competition risks does Acme list?", [FILING])
        record = runner.approve_plan(record.run_id)
        runner.close()
    assert record.status == "finished", record.error
    assert record.engine == "llm:stub-model"
    assert record.fallbacks == []
    step = record.steps[0]
    assert (step.strategy, step.decided_by) == ("keyword", "llm")
    assert step.cards and step.cards[0].claim == "The company faces intense competition."
    assert record.citations and record.citations[0].chunk_id
    assert "[1]" in record.answer
    assert record.token_usage.calls >= 6 and record.token_usage.input_tokens > 0


def test_failing_server_falls_back_for_every_role(tmp_path) -> None:
    events: list[RunEvent] = []
    with OpenAIStub(["500"] * 200) as stub:
        runner = _runner(tmp_path, stub.base_url, retries=0)
        record = runner.start("What competition risks does Acme list?", [FILING], on_event=events.append)
        record = runner.approve_plan(record.run_id, on_event=events.append)
        runner.close()
    assert record.status == "finished"
    used = {f.used for f in record.fallbacks}
    assert {
        "offline planner",
        "offline query rewriter",
        "offline retrieval supervisor",
        "offline distiller",
        "offline reflector",
        "offline writer",
    } <= used
    assert record.steps[0].decided_by == "offline"
    assert any(e.kind == "fallback" for e in events)
    assert record.citations  # the offline writer still produced a cited answer


def test_each_model_answer_is_sent_to_the_page_as_it_is_written(tmp_path) -> None:
    events: list[RunEvent] = []
    live = LiveRun(run_id="", label="Running", total_steps=1)

    def watch(event: RunEvent) -> None:
        events.append(event)
        live.add(event)

    with OpenAIStub() as stub:
        runner = _runner(tmp_path, stub.base_url, retries=1, streaming=True)
        record = runner.start("What competition risks does Acme list?", [FILING], on_event=watch)
        record = runner.approve_plan(record.run_id, on_event=watch)
        runner.close()
    assert record.status == "finished", record.error
    writing = [e for e in events if e.kind == "model_writing"]
    assert writing and {e.run_id for e in writing} == {record.run_id}
    assert any(e.step_index is None and "Which competition risks are listed?" in e.message for e in writing)
    assert any(e.step_index == 0 and "The company faces intense competition." in e.message for e in writing)
    # The live view keeps only the answer being written now, never in its event log; the run ended with
    # other events, so nothing is being written.
    assert all(e.kind != "model_writing" for e in live.events) and live.writing is None
    live.add(writing[-1])
    assert live.writing == writing[-1] and all(e.kind != "model_writing" for e in live.events)
