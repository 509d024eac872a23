"""Shared fixtures: paths to real filings (skipped where absent) and isolated settings."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: int = 600) -> subprocess.CompletedProcess:
    """`python -m core.cli ARGS` from the repository root, offline, output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "core.cli", *args],
        cwd=REPO_ROOT,
        env={**os.environ, "HF_HUB_OFFLINE": "1", **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
SAMPLE_DOCS = REPO_ROOT / "sample_docs"


def shared_file(*parts: str) -> Path:
    """Path to a file under shared/data, skipping the test with a reason when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"real filing data not available: {path.name} (shared/data is absent)")
    return path


def make_chunk(filing: str, i: int, section: str, text: str):
    """A minimal chunk for index tests (id '<filing>-<i>', page i)."""
    from core.models import Chunk

    return Chunk(
        chunk_id=f"{filing}-{i}",
        filing_id=filing,
        section=section,
        page=i,
        chunk_index=i,
        char_start=0,
        char_end=len(text),
        text=text,
    )


@pytest.fixture
def settings(tmp_path):
    """Settings pointing at a fresh data directory."""
    from core.config import Settings

    return Settings(data_dir=tmp_path / "data")


def free_port() -> int:
    """A TCP port free on localhost right now."""
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory):
    """A Chroma server on a free port with its own persistence directory; (host, port)."""
    chroma = Path(sys.executable).with_name("chroma")
    assert chroma.exists(), "the chromadb package installs the `chroma` server command beside python"
    port = free_port()
    path = tmp_path_factory.mktemp("chroma-server")
    log = (path.parent / "chroma-server.log").open("w")
    server = subprocess.Popen(
        [str(chroma), "run", "--path", str(path), "--host", "localhost", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"http://localhost:{port}/api/v2/heartbeat", timeout=2):
                break
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                pytest.fail(
                    f"the Chroma server did not start: {(path.parent / 'chroma-server.log').read_text()}"
                )
            time.sleep(0.2)
    yield "localhost", port
    server.terminate()
    server.wait(timeout=30)
    log.close()


@pytest.fixture(scope="session")
def postgres_url(tmp_path_factory) -> str:
    """URL of a real PostgreSQL server (the binaries the `pgserver` package ships), for this session."""
    # pgserver asks platformdirs for a runtime directory, which warns when the session has none.
    os.environ.setdefault("XDG_RUNTIME_DIR", str(tmp_path_factory.mktemp("runtime")))
    import pgserver

    server = pgserver.get_server(tmp_path_factory.mktemp("postgres"), cleanup_mode="stop")
    yield server.get_uri()
    server.cleanup()


@pytest.fixture
def library_url(postgres_url) -> str:
    """A new, empty database on the session's Postgres server, for one test's library."""
    import psycopg
    from psycopg.conninfo import make_conninfo

    name = f"library_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return make_conninfo(postgres_url, dbname=name)
