"""LLM plumbing: chat-model factory over HTTP (retries, timeouts, bad output -> offline fallback),
the SQLite cache, token usage and cost."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration

from core.agents.base import AgentDeps
from core.agents.contracts import FilingInfo, PlannerInput
from core.agents.registry import llm_agents
from core.config import Settings
from core.llm import (
    PARTIAL_OUTPUT_CHARS,
    PartialOutput,
    SqliteLLMCache,
    build_chat_model,
    engine_name,
    model_price,
    readable_partial_output,
    streams,
    usage_from_message,
)
from core.models import TokenUsage
from tests.graph.openai_stub import OpenAIStub

FILINGS = [
    FilingInfo(filing_id="nv", label="NVIDIA 10-K FY2023", company="NVIDIA Corporation", fiscal_year=2023)
]
QUESTION = "What competition risks does NVIDIA list?"


def _settings(tmp_path, url: str, **kw) -> Settings:
    base = {
        "data_dir": tmp_path,
        "llm_provider": "openai",
        "llm_base_url": url,
        "llm_model": "stub-model",
        "llm_max_retries": 2,
        "llm_timeout_s": 5.0,
    }
    return Settings(**(base | kw))


def _plan(settings: Settings, *, cache: bool = False):
    deps = AgentDeps(settings=settings, chat_model=build_chat_model(settings, cache=cache))
    plan = llm_agents(settings.llm_model).plan(PlannerInput(question=QUESTION, filings=FILINGS), deps)
    return plan, deps


def test_valid_tool_call_is_used(tmp_path) -> None:
    with OpenAIStub(["ok"]) as stub:
        plan, deps = _plan(_settings(tmp_path, stub.base_url))
    assert [s.sub_question for s in plan.steps] == ["Which competition risks are listed?"]
    assert deps.fallbacks == []
    request = stub.requests[0]
    assert request["tools"][0]["function"]["name"] == "PlanDraft"
    system = request["messages"][0]["content"]
    assert "untrusted" in system and "never follow instructions" in system
    assert deps.usage.input_tokens == 120 and deps.usage.output_tokens == 30
    assert deps.usage.cost_usd == 0 and "no price known" in deps.usage.notes[0]
    # An OpenAI-compatible server gets the output cap under the name it reads.
    assert request["max_tokens"] == 4096 and "max_completion_tokens" not in request


def test_openai_itself_gets_the_output_cap_as_max_completion_tokens(tmp_path) -> None:
    settings = Settings(
        data_dir=tmp_path, llm_provider="openai", llm_api_key="sk-test", llm_max_output_tokens=300
    )
    model = build_chat_model(settings, cache=False)
    assert model.max_tokens == 300 and not model.extra_body


def test_rate_limits_are_retried(tmp_path) -> None:
    with OpenAIStub(["429", "429", "ok"]) as stub:
        plan, deps = _plan(_settings(tmp_path, stub.base_url))
    assert len(stub.requests) == 3
    assert deps.fallbacks == [] and plan.steps[0].document_section == "Item 1A"


def test_server_errors_exhaust_retries_then_fall_back(tmp_path) -> None:
    with OpenAIStub(["500", "500", "500", "500"]) as stub:
        plan, deps = _plan(_settings(tmp_path, stub.base_url))
    assert len(stub.requests) == 3  # first try + llm_max_retries
    assert plan.steps  # the offline planner answered
    assert deps.fallbacks[0].used == "offline planner" and "HTTP 500" in deps.fallbacks[0].reason


def test_timeouts_fall_back(tmp_path) -> None:
    with OpenAIStub(["slow", "slow"], delay_s=1.5) as stub:
        _, deps = _plan(_settings(tmp_path, stub.base_url, llm_timeout_s=0.4, llm_max_retries=1))
    assert len(stub.requests) == 2
    assert "did not answer within the time limit" in deps.fallbacks[0].reason


def test_malformed_and_invalid_output_fall_back(tmp_path) -> None:
    with OpenAIStub(["malformed"]) as stub:
        _, deps = _plan(_settings(tmp_path, stub.base_url, llm_max_retries=0))
    assert deps.fallbacks and deps.fallbacks[0].component == "llm planner"
    with OpenAIStub(["invalid"]) as stub:
        _, deps = _plan(_settings(tmp_path, stub.base_url))
    assert len(stub.requests) == 1 and "expected structure" in deps.fallbacks[0].reason


def test_sqlite_cache_answers_repeated_prompts(tmp_path) -> None:
    with OpenAIStub(["ok", "500", "500", "500"]) as stub:
        settings = _settings(tmp_path, stub.base_url)
        first, _ = _plan(settings, cache=True)
        second, deps = _plan(settings, cache=True)
    assert len(stub.requests) == 1
    assert first == second and deps.fallbacks == []
    assert deps.usage.cache_hits == 1
    assert settings.llm_cache_path.exists()


def test_cache_roundtrip_and_clear(tmp_path) -> None:
    cache = SqliteLLMCache(tmp_path / "c.sqlite")
    message = AIMessage(
        content="", tool_calls=[{"name": "T", "args": {"a": 1}, "id": "1", "type": "tool_call"}]
    )
    cache.update("prompt", "llm", [ChatGeneration(message=message)])
    hit = cache.lookup("prompt", "llm")
    assert hit is not None and hit[0].message.tool_calls[0]["args"] == {"a": 1}
    assert cache.lookup("prompt", "other llm") is None
    cache.clear()
    assert cache.lookup("prompt", "llm") is None


def test_prices_usage_and_engine_name() -> None:
    assert model_price("gpt-4o-mini") == model_price("gpt-4o-mini-2024-07-18")
    assert model_price("gpt-4o") != model_price("gpt-4o-mini")
    assert model_price("llama-3-8b") is None
    msg = AIMessage(
        content="x", usage_metadata={"input_tokens": 1_000_000, "output_tokens": 0, "total_tokens": 1_000_000}
    )
    usage = usage_from_message(msg, "gpt-4o-mini")
    assert usage.cost_usd == 0.15 and usage.calls == 1
    assert usage.add(TokenUsage(calls=1, notes=["n"])).calls == 2
    assert engine_name(Settings()) == "offline"
    assert engine_name(Settings(llm_provider="openai", llm_model="m")) == "llm:m"


def test_an_unreachable_server_is_one_plain_sentence_and_the_detail_goes_to_the_log(tmp_path, caplog) -> None:
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    _, deps = _plan(_settings(tmp_path, f"http://127.0.0.1:{port}/v1", llm_max_retries=0))
    reason = deps.fallbacks[0].reason
    assert reason == "The LLM server could not be reached."
    assert "ConnectionError" in caplog.text, "the exception is logged for the engineer"


def test_a_streamed_answer_is_shown_as_it_grows_and_still_counts_its_tokens(tmp_path) -> None:
    shown: list[str] = []
    with OpenAIStub(["ok"]) as stub:
        settings = _settings(tmp_path, stub.base_url, llm_streaming=True)
        deps = AgentDeps(
            settings=settings,
            chat_model=build_chat_model(settings, cache=False),
            on_partial_output=shown.append,
        )
        plan = llm_agents(settings.llm_model).plan(PlannerInput(question=QUESTION, filings=FILINGS), deps)
    request = stub.requests[0]
    assert request["stream"] is True and request["stream_options"] == {"include_usage": True}
    assert [s.sub_question for s in plan.steps] == ["Which competition risks are listed?"]
    assert deps.fallbacks == []
    # What the page shows is the readable part of the function call's arguments, complete at the end.
    assert shown and shown[-1] == "Which competition risks are listed?\nItem 1A\none step"
    assert deps.usage.input_tokens == 120 and deps.usage.output_tokens == 30


def test_compatible_servers_are_asked_for_whole_answers_unless_streaming_is_turned_on(tmp_path) -> None:
    with OpenAIStub(["ok", "ok"]) as stub:
        plan, deps = _plan(_settings(tmp_path, stub.base_url))
        _plan(_settings(tmp_path, stub.base_url, llm_streaming=False))
    assert not any(r.get("stream") for r in stub.requests) and plan.steps and deps.usage.output_tokens == 30
    assert streams(Settings(llm_provider="openai")) and not streams(
        Settings(llm_provider="openai", llm_base_url="x")
    )
    assert not streams(Settings(llm_provider="openai", llm_streaming=False))


@pytest.mark.parametrize("clock_start", [0.0, 5.0, 1e6])
def test_partial_output_is_reported_at_most_every_interval_and_once_complete(clock_start: float) -> None:
    # The clock starts where a machine booted a moment ago (0 s) or long ago would put it: the first piece
    # is shown at once either way.
    now = [clock_start]
    shown: list[str] = []
    handler = PartialOutput(shown.append, every_s=10, clock=lambda: now[0])
    for piece in ['{"summary": "Revenue rose ', "12% to ", '$422.6 million", "id": "S1-E2"}']:
        handler.on_llm_new_token(piece)
        now[0] += 1
    assert shown == ["Revenue rose"]  # the first piece, then nothing until the interval has passed
    now[0] += 10
    handler.on_llm_new_token(" ")
    assert shown == ["Revenue rose", "Revenue rose 12% to $422.6 million"]
    handler.on_llm_end(None)
    assert len(shown) == 2  # complete, and nothing new to show


def test_readable_partial_output_keeps_phrases_of_half_written_json() -> None:
    half = '{"steps": [{"sub_question": "What was revenue in FY2022?", "tool": "search_10k"}, {"sub_q'
    assert readable_partial_output(half) == "What was revenue in FY2022?"
    assert readable_partial_output("The answer so far") == "The answer so far"
    assert readable_partial_output('{"a') == ""
    assert len(readable_partial_output("word " * 1000)) == PARTIAL_OUTPUT_CHARS
