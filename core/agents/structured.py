"""LLM agents as `prompt | llm.with_structured_output(Model)`, falling back to the offline agent."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from core.agents.base import AgentDeps
from core.llm import PartialOutput, usage_from_message

log = logging.getLogger(__name__)

InT = TypeVar("InT", bound=BaseModel)
OutT = TypeVar("OutT", bound=BaseModel)


class LLMOutputError(RuntimeError):
    """The model answered, but not with output that validates against the expected schema.

    Its message is a sentence for the analyst (no schema dump, no path); `detail` is for the log."""

    def __init__(self, message: str, detail: str | None = None) -> None:
        super().__init__(message)
        self.detail = detail


def describe_llm_failure(exc: BaseException) -> str:
    """What went wrong with an LLM call, in one sentence an analyst understands (no exception text)."""
    if isinstance(exc, LLMOutputError):
        message = str(exc).strip().rstrip(".")
        return message[:1].upper() + message[1:] + "."
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return "The LLM did not answer within the time limit."
    if isinstance(exc, openai.APIConnectionError):
        return "The LLM server could not be reached."
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return "The LLM provider rejected the API key."
    if isinstance(exc, openai.RateLimitError):
        return "The LLM provider is rate-limiting requests or the quota is used up."
    if isinstance(exc, openai.NotFoundError):
        return "The LLM provider does not know the configured model."
    if isinstance(exc, openai.APIStatusError):
        return f"The LLM provider answered with an error (HTTP {exc.status_code})."
    return "The LLM call failed unexpectedly; the log has the details."


def structured_call(
    deps: AgentDeps, system: str, human: str, variables: dict[str, Any], output: type[OutT]
) -> OutT:
    """Run one structured-output call; raises on transport errors (after client retries) or bad output."""
    from langchain_core.prompts import ChatPromptTemplate

    if deps.chat_model is None:
        raise LLMOutputError("no chat model configured")
    prompt = ChatPromptTemplate.from_messages([("system", system), ("human", human)])
    structured = deps.chat_model.with_structured_output(
        output, method=deps.settings.llm_structured_output_method, include_raw=True
    )
    config: dict[str, Any] = {}
    if deps.on_partial_output is not None:
        config["callbacks"] = [PartialOutput(deps.on_partial_output)]
    result = (prompt | structured).invoke(variables, config=config)
    raw = result.get("raw") if isinstance(result, dict) else None
    if raw is not None:
        deps.usage = deps.usage.add(usage_from_message(raw, deps.settings.llm_model))
    parsed = result.get("parsed") if isinstance(result, dict) else result
    error = result.get("parsing_error") if isinstance(result, dict) else None
    if parsed is None or error is not None:
        raise LLMOutputError(
            "the model's answer did not have the expected structure",
            detail=str(error)[:300] if error else "no structured output",
        )
    if isinstance(parsed, dict):
        try:
            parsed = output.model_validate(parsed)
        except ValidationError as exc:
            raise LLMOutputError(
                "the model's answer did not have the expected structure", detail=str(exc)[:300]
            ) from exc
    return parsed


def with_fallback(
    role: str,
    llm_fn: Callable[[InT, AgentDeps], OutT],
    offline_fn: Callable[[InT, AgentDeps], OutT],
) -> Callable[[InT, AgentDeps], OutT]:
    """An agent that asks the LLM and, when it keeps failing or returns invalid output, runs offline."""

    def agent(inputs: InT, deps: AgentDeps) -> OutT:
        try:
            return llm_fn(inputs, deps)
        except Exception as exc:  # noqa: BLE001 - every LLM failure falls back to the offline agent
            detail = getattr(exc, "detail", None)
            log.warning(
                "LLM %s failed, running offline %s: %s: %s%s",
                role,
                role,
                type(exc).__name__,
                str(exc)[:300],
                f" ({detail})" if detail else "",
            )
            reason = describe_llm_failure(exc)
            deps.record_fallback(component=f"llm {role}", used=f"offline {role}", reason=reason)
            return offline_fn(inputs, deps)

    agent.__name__ = f"{role}_agent"
    return agent
