"""The whole graph in LLM mode against a local OpenAI-compatible stub: LLM answers are used when valid,
and every role falls back to its offline twin (recorded) when the server keeps failing."""

from __future__ import annotations

from core.graph.runner import ResearchRunner
from core.models import RunEvent
from tests.graph.fakes import llm_runner
from tests.graph.openai_stub import OpenAIStub

FILING = "f" * 64


def _runner(tmp_path, url: str, retries: int) -> ResearchRunner:
    return llm_runner(tmp_path / "data", url, "stub-model", retries=retries, timeout_s=5.0)


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
