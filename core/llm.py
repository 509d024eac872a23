"""Chat-model factory (the only import of langchain_openai) and its connection check, a SQLite LLM cache,
token usage and cost."""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langchain_core.caches import RETURN_VAL_TYPE, BaseCache
from langchain_core.callbacks import BaseCallbackHandler

from core.config import Settings
from core.failures import failure_message
from core.models import TokenUsage

log = logging.getLogger(__name__)

# USD per million tokens (input, output). Prices change: unknown models cost 0 with a note.
PRICES_PER_MTOK: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1": (2.00, 8.00),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5-nano": (0.05, 0.40),
    "gpt-5": (1.25, 10.00),
    "o4-mini": (1.10, 4.40),
}


def model_price(model: str) -> tuple[float, float] | None:
    """(input, output) USD per million tokens for `model`, matching dated variants by prefix."""
    name = model.lower().split("/")[-1]
    for known in sorted(PRICES_PER_MTOK, key=len, reverse=True):
        if name == known or name.startswith(known + "-"):
            return PRICES_PER_MTOK[known]
    return None


def usage_from_message(message: Any, model: str) -> TokenUsage:
    """Token usage and estimated cost of one chat response (AIMessage.usage_metadata)."""
    meta = getattr(message, "usage_metadata", None) or {}
    inp, out = int(meta.get("input_tokens", 0) or 0), int(meta.get("output_tokens", 0) or 0)
    total = int(meta.get("total_tokens", inp + out) or inp + out)
    price = model_price(model)
    notes: list[str] = []
    if not meta:
        notes.append("the server reported no token usage for this answer")
    if price is None:
        cost = 0.0
        notes.append(f"no price known for model {model!r}: cost counted as 0")
    else:
        cost = (inp * price[0] + out * price[1]) / 1e6
    cached = bool((getattr(message, "response_metadata", None) or {}).get("from_cache"))
    if cached:
        cost = 0.0  # answered from the local cache: nothing was billed
    return TokenUsage(
        calls=1,
        input_tokens=inp,
        output_tokens=out,
        total_tokens=total,
        cost_usd=round(cost, 6),
        cache_hits=1 if cached else 0,
        notes=notes,
    )


class SqliteLLMCache(BaseCache):
    """A persistent LLM response cache: one SQLite table keyed by (prompt, model configuration)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(str(path), check_same_thread=False)
        self._lock = threading.Lock()
        with self._lock, self._conn:
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS llm_cache (key TEXT PRIMARY KEY, llm TEXT, generations TEXT)"
            )

    @staticmethod
    def _key(prompt: str, llm_string: str) -> str:
        return hashlib.sha256(f"{llm_string}\x00{prompt}".encode()).hexdigest()

    def lookup(self, prompt: str, llm_string: str) -> RETURN_VAL_TYPE | None:
        """Cached generations for this prompt and model configuration, or None."""
        from langchain_core.load import load
        from langchain_core.outputs import ChatGeneration, Generation

        with self._lock:
            row = self._conn.execute(
                "SELECT generations FROM llm_cache WHERE key = ?", (self._key(prompt, llm_string),)
            ).fetchone()
        if row is None:
            return None
        out: list[Generation] = []
        for item in json.loads(row[0]):
            if item.get("message") is not None:
                # Only message classes may be revived from the cache file: it is data, not code.
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # `load` is marked beta; its message subset is stable
                    message = load(item["message"], allowed_objects="messages")
                message.response_metadata = {**message.response_metadata, "from_cache": True}
                out.append(ChatGeneration(message=message))
            else:
                out.append(Generation(text=item.get("text", "")))
        return out

    def update(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        """Store generations for this prompt and model configuration."""
        from langchain_core.load import dumpd

        items = []
        for gen in return_val:
            message = getattr(gen, "message", None)
            items.append({"text": gen.text, "message": dumpd(message) if message is not None else None})
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT OR REPLACE INTO llm_cache (key, llm, generations) VALUES (?, ?, ?)",
                (self._key(prompt, llm_string), llm_string[:200], json.dumps(items)),
            )

    def clear(self, **kwargs: Any) -> None:
        """Forget every cached response."""
        with self._lock, self._conn:
            self._conn.execute("DELETE FROM llm_cache")


def engine_name(settings: Settings) -> str:
    """'offline' or 'llm:<model>' as shown in run records."""
    return "offline" if settings.llm_provider == "offline" else f"llm:{settings.llm_model}"


def build_chat_model(settings: Settings, *, cache: bool = True) -> Any:
    """A ChatOpenAI client for OpenAI or any OpenAI-compatible server, with retries, timeout and cache."""
    from langchain_openai import ChatOpenAI

    api_key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
    if api_key is None and settings.llm_base_url:
        # Local OpenAI-compatible servers accept any key, but the client insists on one.
        api_key = "not-needed"
    return ChatOpenAI(
        model=settings.llm_model,
        base_url=settings.llm_base_url,
        api_key=api_key,
        timeout=settings.llm_timeout_s,
        max_retries=settings.llm_max_retries,
        temperature=0,
        cache=SqliteLLMCache(settings.llm_cache_path) if cache else None,
        # Streamed answers reach a PartialOutput handler token by token; the last chunk carries the usage.
        streaming=streams(settings),
        stream_usage=streams(settings),
        **_output_cap(settings),
    )


def check_connection(settings: Settings, timeout_s: float = 10.0) -> tuple[bool, str]:
    """One tiny chat call with `settings`; (ok, a message a person understands)."""
    if settings.llm_provider == "offline":
        return True, "The offline engine runs locally and needs no connection."
    quick = settings.model_copy(update={"llm_timeout_s": timeout_s, "llm_max_retries": 0})
    where = settings.llm_base_url or "the OpenAI API"
    try:
        reply = build_chat_model(quick, cache=False).invoke("Reply with the single word OK.")
    except Exception as exc:  # noqa: BLE001 - every failure becomes a readable message
        log.warning("LLM connection test to %s failed: %s", where, type(exc).__name__)
        return False, connection_problem(exc, where, settings.llm_model, timeout_s)
    text = str(getattr(reply, "content", "") or "").strip()
    return (
        True,
        f"Connected to {where}: model {settings.llm_model} answered ({text[:40] or 'empty reply'}).",
    )


def connection_problem(exc: Exception, where: str, model: str, timeout_s: float) -> str:
    """Plain-words reason for a failed LLM call, and what to do about it; never the exception's text."""
    # Imported here, not at the top: importing openai is not free, and by the time a call has failed the chat
    # model has loaded it already.
    import httpx
    import openai

    reasons: list[tuple[tuple[type[BaseException], ...], str]] = [
        # A timeout first: openai's APITimeoutError is an APIConnectionError.
        (
            (openai.APITimeoutError, TimeoutError),
            f"No answer from {where} within {timeout_s:g} s. Check that the server is running and not overloaded.",
        ),
        (
            (openai.APIConnectionError, httpx.ConnectError),
            f"Cannot reach {where}. Check the base URL (including http:// and the port) and that the server runs.",
        ),
        (
            (openai.AuthenticationError, openai.PermissionDeniedError),
            f"{where} refused the API key. Paste a valid key (or check that this key may use the model).",
        ),
        (
            (openai.NotFoundError,),
            f"{where} does not know model {model!r} or the URL path is wrong "
            "(OpenAI-compatible servers usually need the base URL to end in /v1).",
        ),
        (
            (openai.RateLimitError,),
            f"{where} answered but is rate-limiting or out of quota. Try again later or check the account.",
        ),
    ]
    for kinds, reason in reasons:
        if isinstance(exc, kinds):
            return reason
    return failure_message(f"The call to {where}", exc) + "."


def streams(settings: Settings) -> bool:
    """Whether answers are streamed: as configured, or by default only from OpenAI's own API. Compatible
    servers differ in how they stream function calls: llama-cpp-python's server repeats the function's name
    in every chunk (the joined name matches no schema) and reports no token usage in a stream."""
    if settings.llm_streaming is not None:
        return settings.llm_streaming
    return settings.llm_base_url is None


def _output_cap(settings: Settings) -> dict[str, Any]:
    """The cap on generated tokens, in the field the server reads: OpenAI takes `max_completion_tokens`
    (what ChatOpenAI sends for `max_tokens`); OpenAI-compatible servers such as llama.cpp's read the
    older `max_tokens` and ignore the new name, so they get it in the request body as is."""
    if settings.llm_base_url:
        return {"extra_body": {"max_tokens": settings.llm_max_output_tokens}}
    return {"max_tokens": settings.llm_max_output_tokens}


#: The live view shows at most this many characters of an answer being written (its latest part).
PARTIAL_OUTPUT_CHARS = 1500


class PartialOutput(BaseCallbackHandler):
    """Collects a streamed answer, plain text or a function call's arguments, and reports it readably as
    it grows: at most every `every_s` seconds and once more when the answer is complete."""

    def __init__(
        self,
        report: Callable[[str], None],
        every_s: float = 0.5,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._report = report
        self._every_s = every_s
        self._clock = clock
        self._raw = ""
        self._shown = ""
        # None until the first report: the first piece is shown at once, whatever the clock reads (a
        # monotonic clock counts from an arbitrary start, the machine's boot on Linux).
        self._last_report: float | None = None

    def on_llm_new_token(self, token: Any, *, chunk: Any = None, **kwargs: Any) -> None:
        piece = token if isinstance(token, str) else ""
        message = getattr(chunk, "message", None)
        for call in getattr(message, "tool_call_chunks", None) or []:
            piece += call.get("args") or ""
        if not piece:
            return
        self._raw += piece
        now = self._clock()
        if self._last_report is None or now - self._last_report >= self._every_s:
            self._last_report = now
            self._send()

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        self._send()

    def _send(self) -> None:
        text = readable_partial_output(self._raw)
        if text and text != self._shown:
            self._shown = text
            self._report(text)


def readable_partial_output(raw: str) -> str:
    """What a person can read of a half-written answer: plain text as it is; of JSON (structured output),
    the phrases among its string values in order, one per line, without keys, ids or tool names (values
    with no space). The latest PARTIAL_OUTPUT_CHARS characters."""
    from langchain_core.utils.json import parse_partial_json

    text = raw.strip()
    if text[:1] in ("{", "["):
        try:
            parsed = parse_partial_json(text)
        except ValueError:
            parsed = None
        text = "\n".join(_phrases(parsed)) if parsed is not None else ""
    return text[-PARTIAL_OUTPUT_CHARS:]


def _phrases(value: Any) -> list[str]:
    if isinstance(value, str):
        value = value.strip()
        return [value] if " " in value else []
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return [phrase for item in value for phrase in _phrases(item)]
    return []
