"""Settings page with Streamlit's AppTest: masked key, settings applied live and kept for the next start,
connection test messages."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import REPO_ROOT

PAGE = REPO_ROOT / "pages" / "settings.py"
KEY = "sk-test-secret-7f3a9c41"


@pytest.fixture
def settings_page(tmp_path, monkeypatch):
    """The Settings page over a fresh data directory, with an API key in the environment."""
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("WORKBENCH_LLM_API_KEY", KEY)
    from core.config import get_settings
    from views.shared import workbench

    get_settings.cache_clear()
    workbench.clear()
    yield lambda: AppTest.from_file(str(PAGE), default_timeout=120).run()
    get_settings.cache_clear()
    workbench.clear()


class _Chat(BaseHTTPRequestHandler):
    """A minimal OpenAI-compatible endpoint: 401 without the right key, else one chat completion."""

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        self.rfile.read(length)
        if self.headers.get("Authorization") != f"Bearer {KEY}":
            self._send(
                401, {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}
            )
            return
        self._send(
            200,
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 0,
                "model": "tiny",
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": "OK"}, "finish_reason": "stop"}
                ],
                "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
            },
        )

    def _send(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def chat_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Chat)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def _everything_shown(at: AppTest) -> str:
    return str([node.proto for node in at.main if hasattr(node, "proto")]) + str(
        [w.value for w in at.text_input]
    )


def _submit(at: AppTest, label: str) -> None:
    next(b for b in at.button if b.label == label).click().run()


def test_key_is_masked_and_data_dir_read_only(settings_page):
    at = settings_page()
    assert not at.exception
    key_input = next(t for t in at.text_input if t.label == "API key")
    assert key_input.value == ""
    assert "•••• 9c41" in key_input.placeholder
    assert KEY not in _everything_shown(at)
    data_dir = next(t for t in at.text_input if t.label == "Data directory")
    assert data_dir.disabled


def test_save_applies_settings_without_restart(settings_page):
    from views.shared import workbench

    at = settings_page()
    next(n for n in at.number_input if n.label.startswith("Candidates")).set_value(14)
    next(n for n in at.number_input if n.label.startswith("Evidence kept")).set_value(4)
    next(n for n in at.number_input if n.label == "Max steps").set_value(3)
    at.toggle[0].set_value(False)
    _submit(at, "Save")
    assert not at.exception, at.exception
    assert any("Settings saved and applied" in s.value for s in at.success)
    applied = workbench().settings
    assert (applied.k, applied.top_n, applied.max_steps, applied.web_search_enabled) == (14, 4, 3, False)
    assert applied.llm_api_key is not None and applied.llm_api_key.get_secret_value() == KEY
    # ... and they come back at the next start, without the key.
    from core.config import get_settings

    get_settings.cache_clear()
    restarted = get_settings()
    assert (restarted.k, restarted.top_n, restarted.max_steps, restarted.web_search_enabled) == (
        14,
        4,
        3,
        False,
    )
    assert KEY not in (applied.data_dir / "settings.json").read_text()


def test_forget_key_removes_it(settings_page):
    from views.shared import workbench

    at = settings_page()
    at.checkbox[0].check()
    _submit(at, "Save")
    assert workbench().settings.llm_api_key is None


def test_offline_engine_needs_no_connection(settings_page):
    at = settings_page()
    _submit(at, "Test connection")
    assert any("needs no connection" in s.value for s in at.success)


def test_connection_to_a_compatible_server_succeeds(settings_page, chat_server):
    at = settings_page()
    at.radio[0].set_value("openai")
    next(t for t in at.text_input if t.label == "Base URL").input(chat_server)
    next(t for t in at.text_input if t.label == "Model").input("tiny")
    _submit(at, "Test connection")
    assert not at.exception, at.exception
    assert any("Connected to" in s.value and "tiny" in s.value for s in at.success), [
        e.value for e in at.error
    ]


def test_wrong_key_and_unreachable_server_are_explained(settings_page, chat_server):
    at = settings_page()
    at.radio[0].set_value("openai")
    next(t for t in at.text_input if t.label == "Base URL").input(chat_server)
    next(t for t in at.text_input if t.label == "API key").input("sk-wrong-key-0000")
    _submit(at, "Test connection")
    assert any("refused the API key" in e.value for e in at.error)
    assert all("sk-wrong-key" not in message.value for message in [*at.error, *at.success, *at.caption])

    closed = chat_server.rsplit(":", 1)[0] + ":9/v1"  # the discard port: nothing listens there
    next(t for t in at.text_input if t.label == "Base URL").input(closed)
    next(t for t in at.text_input if t.label == "API key").input("")
    _submit(at, "Test connection")
    assert any("Cannot reach" in e.value for e in at.error), [e.value for e in at.error]
