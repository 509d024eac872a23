"""A scripted chat model that supports `with_structured_output` (tool calling), for LLM-path tests."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage


class ScriptedChatModel(GenericFakeChatModel):
    """Returns the scripted messages in order; tools are accepted so structured output works."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        # The scripted messages already hold the tool calls; binding only has to keep the chain intact.
        return self


def tool_message(name: str, args: dict[str, Any], *, tokens: tuple[int, int] = (100, 20)) -> AIMessage:
    """An assistant message calling tool `name` with `args`, with token usage."""
    return AIMessage(
        content="",
        tool_calls=[{"name": name, "args": args, "id": f"call_{name}", "type": "tool_call"}],
        usage_metadata={"input_tokens": tokens[0], "output_tokens": tokens[1], "total_tokens": sum(tokens)},
    )


def scripted(messages: list[AIMessage | str]) -> ScriptedChatModel:
    """A model answering with `messages`, one per call."""
    it: Iterator[AIMessage | str] = iter(messages)
    return ScriptedChatModel(messages=it)
