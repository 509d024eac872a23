"""A library whose vectors live on a real Chroma server (`chroma run`, from the chromadb package): ingest,
search, research and delete go through it; two libraries sharing the server never touch each other's
vectors, not even when one repairs itself after a kill -9; an unreachable server is a sentence."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.config import Settings
from core.index.store import PENDING_WRITES_DIR, IndexStore
from core.index.vector_store import VectorStoreUnavailable
from core.service import Workbench
from tests.conftest import REPO_ROOT, SAMPLE_DOCS, free_port
from tests.index.test_crash_repair import CHILD

SAMPLE = SAMPLE_DOCS / "northwind_10k_fy2025.html"
QUESTION = "How did Northwind's Fleet Software revenue change in FY2025?"


def _settings(data_dir: Path, server: tuple[str, int]) -> Settings:
    host, port = server
    return Settings(data_dir=data_dir, chroma_host=host, chroma_port=port, web_search_enabled=False)


def _run_with_server(args: list[str], host: str, port: int, timeout: int) -> subprocess.CompletedProcess:
    """`python ARGS` from the repository, pointed at the Chroma server host:port by environment."""
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "WORKBENCH_CHROMA_HOST": host,
        "WORKBENCH_CHROMA_PORT": str(port),
    }
    return subprocess.run(
        [sys.executable, *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _server_count(store: IndexStore) -> int:
    """Vectors of the store's collection, counted by a separate client of the server."""
    import chromadb

    host, port = store.settings.chroma_host, store.settings.chroma_port
    client = chromadb.HttpClient(host=host, port=port, settings=chromadb.Settings(anonymized_telemetry=False))
    return client.get_collection(store.vectors.collection_name).count()


def test_a_library_on_a_chroma_server_ingests_searches_researches_and_deletes(tmp_path, chroma_server):
    bench = Workbench(_settings(tmp_path / "data", chroma_server))
    (ingested,) = bench.ingest_paths([SAMPLE])
    assert ingested.ok, ingested.error
    filing_id = ingested.filing.filing_id
    assert not (tmp_path / "data" / "chroma").exists()  # nothing vector-shaped in the data directory
    assert _server_count(bench.store) == ingested.filing.chunks > 0

    vector_hits = bench.retrieve("Fleet Software subscription revenue", strategy="vector", k=5)
    assert vector_hits.chunks and all(c.chunk.filing_id == filing_id for c in vector_hits.chunks)

    run = bench.start_research(QUESTION, [filing_id])
    run = bench.approve_plan(run.run_id)
    assert run.status == "finished", run.error
    assert run.citations and "112.5" in (run.answer or "")

    assert bench.delete_filing(filing_id)
    assert _server_count(bench.store) == 0
    bench.close()


def test_two_libraries_on_one_server_never_touch_each_others_vectors(tmp_path, chroma_server):
    first = Workbench(_settings(tmp_path / "first", chroma_server))
    (ingested,) = first.ingest_paths([SAMPLE])
    kept = _server_count(first.store)
    assert kept == ingested.filing.chunks

    second_dir = tmp_path / "second"
    # The second library's ingestion is killed mid-write (after its vectors reached the server).
    done = _run_with_server(
        ["-c", CHILD, str(second_dir), "ingest", str(SAMPLE)], *chroma_server, timeout=600
    )
    assert done.returncode == -9 and "survived" not in done.stdout, done.stderr[-2000:]
    assert any((second_dir / PENDING_WRITES_DIR).iterdir())

    second = Workbench(_settings(second_dir, chroma_server))
    notes = second.startup_repairs()
    assert any("did not finish" in note for note in notes), notes
    assert _server_count(first.store) == kept  # the other library's vectors are all there…
    assert _server_count(second.store) == 0  # …and this one's half-ingested vectors are gone
    assert second.store.vectors.collection_name != first.store.vectors.collection_name
    assert not second.retrieve("Fleet Software revenue", strategy="vector", k=5).chunks
    first.close()
    second.close()


def test_an_unreachable_server_is_a_sentence_not_a_traceback(tmp_path):
    settings = Settings(data_dir=tmp_path / "data", chroma_host="localhost", chroma_port=free_port())
    with pytest.raises(VectorStoreUnavailable, match="cannot be reached"):
        IndexStore.open(settings)
    done = _run_with_server(
        ["-m", "core.cli", "filings", "--data-dir", str(tmp_path / "data")],
        "localhost",
        settings.chroma_port,
        timeout=300,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "Chroma server at localhost" in done.stderr and "Traceback" not in done.stderr
