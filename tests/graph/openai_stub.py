"""A scripted OpenAI-compatible /v1/chat/completions server on 127.0.0.1, for HTTP-level LLM tests.

Each request consumes the next scripted behaviour: "ok" (a valid tool call built by `answer`), "429",
"500", "slow" (sleeps past the client timeout), "malformed" (200 with a broken JSON body) or "invalid"
(a tool call whose arguments do not match the schema). When the script is empty, "ok" is used. A request
with `"stream": true` gets the answer as server-sent events, its arguments in small pieces. With
`latency_s`, every answer takes that long (a model's fixed latency); `timeline` keeps when each request
arrived and was answered, and the tool it asked for.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = Callable[[str, str], dict[str, Any]]


def default_answer(tool: str, prompt: str) -> dict[str, Any]:
    """Minimal valid arguments for each agent schema; cards and claims cite the first evidence id seen."""
    # Evidence ids shown with passages, not the "e.g. S1-E2" of the instructions.
    ids = re.findall(r"(?<!e\.g\. )(?<!e\.g\. \[)S\d+-E\d+", prompt)
    first = ids[0] if ids else None
    if tool == "PlanDraft":
        return {
            "steps": [
                {
                    "sub_question": "Which competition risks are listed?",
                    "tool": "search_10k",
                    "keywords": ["competition"],
                    "document_section": "Item 1A",
                }
            ],
            "rationale": "one step",
        }
    if tool == "RewrittenQuery":
        return {"query": "competition risks competitors", "added_terms": []}
    if tool == "StrategyDecision":
        return {"strategy": "keyword", "justification": "Specific terms favour exact matching."}
    if tool == "Distillation":
        cards = [
            {"claim": "The company faces intense competition.", "evidence_ids": [first], "confidence": 0.8}
        ]
        return {"cards": cards if first else []}
    if tool == "ResearchNote":
        return {
            "confirmed_facts": ["Competition is intense."],
            "open_questions": [],
            "conflicts": [],
            "summary": "One fact.",
        }
    if tool == "PolicyDecision":
        return {"action": "continue", "reason": "More steps are planned."}
    if tool == "ReportDraft":
        claims = [{"text": "Competition is intense.", "evidence_ids": [first]}] if first else []
        return {
            "summary": f"The filing describes intense competition [{first}]." if first else "Nothing found.",
            "sections": [{"heading": "1. Competition", "claims": claims}],
            "conflicts": [],
        }
    return {}


class OpenAIStub:
    """Start with `with OpenAIStub([...]) as stub:`; `stub.base_url` is the /v1 URL to configure."""

    def __init__(
        self,
        script: list[str] | None = None,
        *,
        answer: Answer = default_answer,
        delay_s: float = 2.0,
        latency_s: float = 0.0,
    ):
        self.script = list(script or [])
        self.answer = answer
        self.delay_s = delay_s
        self.latency_s = latency_s
        self.timeline: list[tuple[float, float, str, str]] = []  # (arrived, answered, tool, prompt)
        self.requests: list[dict[str, Any]] = []
        self.authorizations: list[str] = []  # the Authorization header of each request
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> OpenAIStub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _next(self) -> str:
        with self._lock:
            return self.script.pop(0) if self.script else "ok"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                return

            def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                arrived = time.monotonic()
                length = int(self.headers.get("Content-Length", "0"))
                request = json.loads(self.rfile.read(length) or b"{}")
                with stub._lock:
                    stub.requests.append(request)
                    stub.authorizations.append(self.headers.get("Authorization", ""))
                behaviour = stub._next()
                # Short retry hints keep the client's backoff fast in tests.
                retry = {"retry-after-ms": "20"}
                if behaviour == "429":
                    return self._send(429, b'{"error": {"message": "rate limited"}}', retry)
                if behaviour == "500":
                    return self._send(500, b'{"error": {"message": "boom"}}', retry)
                if behaviour == "malformed":
                    return self._send(200, b'{"id": "x", "choices": [ {not json')
                if behaviour == "slow":
                    time.sleep(stub.delay_s)
                tools = request.get("tools") or []
                name = tools[0]["function"]["name"] if tools else "none"
                prompt = json.dumps(request.get("messages", []))
                if stub.latency_s:
                    time.sleep(stub.latency_s)
                with stub._lock:
                    stub.timeline.append((arrived, time.monotonic(), name, prompt))
                args = {"unexpected": True} if behaviour == "invalid" else stub.answer(name, prompt)
                body = {
                    "id": "chatcmpl-stub",
                    "object": "chat.completion",
                    "created": 0,
                    "model": request.get("model", "stub"),
                    "choices": [
                        {
                            "index": 0,
                            "message": {
                                "role": "assistant",
                                "content": None,
                                "tool_calls": [
                                    {
                                        "id": "call_1",
                                        "type": "function",
                                        "function": {"name": name, "arguments": json.dumps(args)},
                                    }
                                ],
                            },
                            "finish_reason": "tool_calls",
                        }
                    ],
                    "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150},
                }
                try:
                    if request.get("stream"):
                        return self._stream(body, request)
                    return self._send(200, json.dumps(body).encode())
                except (BrokenPipeError, ConnectionResetError):
                    return None  # the client gave up (timeout) before the slow answer

            def _stream(self, body: dict[str, Any], request: dict[str, Any]) -> None:
                """The same answer as server-sent events, its arguments in small pieces, as OpenAI streams."""
                call = body["choices"][0]["message"]["tool_calls"][0]
                arguments = call["function"]["arguments"]
                head = {
                    "id": body["id"],
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": body["model"],
                }
                opening = {
                    **call,
                    "index": 0,
                    "function": {"name": call["function"]["name"], "arguments": ""},
                }
                deltas = [{"role": "assistant", "content": None, "tool_calls": [opening]}]
                deltas += [
                    {"tool_calls": [{"index": 0, "function": {"arguments": arguments[i : i + 12]}}]}
                    for i in range(0, len(arguments), 12)
                ]
                chunks = [
                    {**head, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas
                ]
                chunks.append({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
                if (request.get("stream_options") or {}).get("include_usage"):
                    chunks.append({**head, "choices": [], "usage": body["usage"]})
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for chunk in chunks:
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

        return Handler
