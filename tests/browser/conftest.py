"""Browser-test harness: a real `streamlit run` server on 127.0.0.1 and Debian's headless Chromium."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = REPO_ROOT / "test-artifacts"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running_app(
    data_dir: Path, secrets: str | None = None, *, env: dict[str, str] | None = None, make_serve: bool = False
) -> Iterator[dict]:
    """A fresh `streamlit run app.py` on a free port over `data_dir`; yields its URL, data dir and pid.

    The server reads `secrets` (TOML; "{app_url}" stands for the server's URL) and no other secrets file, so
    a developer's own `.streamlit/secrets.toml` (sign-in, say) never reaches the tests. `env` adds
    environment variables; `make_serve` starts it as an operator does, with `make serve` (README,
    Scale-out)."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    secrets_file = data_dir / "secrets.toml"
    if secrets is not None:
        secrets_file.write_text(secrets.replace("{app_url}", url))
    env = {**os.environ, "WORKBENCH_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1", **(env or {})}
    if make_serve:
        command = [
            "make",
            "--no-print-directory",
            "serve",
            "ADDRESS=127.0.0.1",
            f"PORT={port}",
            f"SECRETS={secrets_file}",
        ]
    else:
        command = [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--server.headless",
            "true",
            "--secrets.files",
            str(secrets_file),
        ]
    log = (data_dir / "server.log").open("w")
    # A session of its own: `make` runs the server as its child, and both stop together.
    proc = subprocess.Popen(
        command, cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    deadline = time.time() + 180
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                if resp.status == 200:
                    break
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.5)
    else:
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail(f"streamlit did not start; log: {(data_dir / 'server.log').read_text()[-2000:]}")
    if proc.poll() is not None:
        pytest.fail(f"streamlit stopped; log: {(data_dir / 'server.log').read_text()[-2000:]}")
    try:
        yield {"url": url, "data_dir": data_dir, "pid": proc.pid}
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()


@pytest.fixture(scope="module")
def app_server(tmp_path_factory):
    """The app on a free port with its own data directory; yields its URL, data dir and pid."""
    with running_app(tmp_path_factory.mktemp("browser-data")) as server:
        yield server


@pytest.fixture(scope="module")
def browser():
    """Playwright driving Debian's Chromium (no browser download)."""
    if not CHROMIUM.exists() and not shutil.which("chromium"):
        pytest.fail("Debian's chromium is not installed; `make test` installs it (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    page = context.new_page()
    yield page
    context.close()


def record_requests(page) -> list[str]:
    """Every URL the page requests from now on (appended as they happen)."""
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    return requested


def foreign_requests(requested: list[str], app_url: str) -> list[str]:
    """The requests that went to a host other than the app's (the app is offline by design: a bank's network
    blocks them, and each tells a third party who uses the app)."""
    from urllib.parse import urlsplit

    app_host = urlsplit(app_url).netloc
    return sorted(
        {
            url
            for url in requested
            if urlsplit(url).scheme in ("http", "https", "ws", "wss") and urlsplit(url).netloc != app_host
        }
    )


def screenshot(page, name: str) -> Path:
    """Save a full-page screenshot under test-artifacts/ and return its path."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def wait_for_app(page, timeout_ms: int = 120_000) -> None:
    """Wait until Streamlit has finished running the script and drawn its result.

    The status widget appears only after a short delay and elements from the previous run stay on
    screen (marked `data-stale`) until they are redrawn, so "settled" means: no status widget and no
    stale element, seen twice in a row a quarter second apart.
    """
    page.wait_for_selector("[data-testid='stApp']", timeout=timeout_ms)
    page.evaluate("() => { window.__settledSince = null; }")
    page.wait_for_function(
        """() => {
            const busy = document.querySelector("[data-testid='stStatusWidget']")
                || document.querySelector("[data-stale='true']");
            const now = Date.now();
            if (busy) { window.__settledSince = null; return false; }
            if (!window.__settledSince) { window.__settledSince = now; return false; }
            return now - window.__settledSince >= 250;
        }""",
        timeout=timeout_ms,
        polling=100,
    )
    page.evaluate("() => { window.__settledSince = null; }")
