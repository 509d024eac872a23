"""kill -9 in the middle of an ingestion or a re-index: at the next start the index agrees with the catalog
again (nothing half-ingested remains, an interrupted re-index keeps its filing) and the check says what it
did. The crash is real: a child process sends itself SIGKILL right after the BM25 postings are on disk,
before the catalog commits."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from core.config import Settings
from core.service import Workbench
from tests.conftest import REPO_ROOT, SAMPLE_DOCS

pytestmark = pytest.mark.slow

SAMPLE = SAMPLE_DOCS / "northwind_10k_fy2025.html"

CHILD = """
import os, sys
from pathlib import Path
from core.config import Settings
from core.index.keyword_index import KeywordIndex
from core.service import Workbench

data_dir, action, path = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
add_filing = KeywordIndex.add_filing

def add_then_die(self, filing_id, chunks):
    add_filing(self, filing_id, chunks)
    os.kill(os.getpid(), 9)

KeywordIndex.add_filing = add_then_die
bench = Workbench(Settings(data_dir=data_dir))
if action == "ingest":
    bench.ingest_paths([path])
else:
    bench.reindex([f.filing_id for f in bench.filings()])
print("survived")
"""


def _crash(data_dir, action: str) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(data_dir), action, str(SAMPLE)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == -9, (done.returncode, done.stdout, done.stderr[-2000:])


def _agree(bench: Workbench) -> None:
    store = bench.store
    catalogued = {f.filing_id: set(store.catalog.chunk_ids([f.filing_id])) for f in bench.filings()}
    assert store.vectors.ids_by_filing() == {k: v for k, v in catalogued.items() if v}
    assert store.keywords.ids_by_filing() == {k: v for k, v in catalogued.items() if v}


def test_a_killed_ingestion_leaves_nothing_behind(tmp_path):
    data_dir = tmp_path / "data"
    _crash(data_dir, "ingest")
    bench = Workbench(Settings(data_dir=data_dir))
    notes = bench.startup_repairs()
    assert len(notes) == 1 and notes[0].startswith("Removed ") and "did not finish" in notes[0]
    assert bench.filings() == []
    _agree(bench)
    # ... and the same file ingests cleanly afterwards.
    (result,) = bench.ingest_paths([SAMPLE])
    assert result.ok and not result.duplicate
    _agree(bench)
    assert Workbench(Settings(data_dir=data_dir)).startup_repairs() == []


def test_a_killed_reindex_keeps_its_filing_and_rebuilds_its_search_index(tmp_path):
    data_dir = tmp_path / "data"
    bench = Workbench(Settings(data_dir=data_dir))
    (result,) = bench.ingest_paths([SAMPLE])
    assert result.ok
    filing_id = result.filing.filing_id
    _crash(data_dir, "reindex")
    bench = Workbench(Settings(data_dir=data_dir))
    notes = bench.startup_repairs()
    assert notes == [f"Rebuilt the search index of {result.filing.label}: an earlier write did not finish."]
    assert [f.filing_id for f in bench.filings()] == [filing_id]
    _agree(bench)
    assert bench.retrieve("What was total revenue in fiscal 2025?", filing_ids=[filing_id]).chunks


def test_an_old_original_without_a_catalog_entry_is_removed(tmp_path):
    data_dir = tmp_path / "data"
    bench = Workbench(Settings(data_dir=data_dir))
    uploads = bench.settings.uploads_dir
    uploads.mkdir(parents=True)
    old, recent = uploads / ("a" * 64 + ".pdf"), uploads / ("b" * 64 + ".pdf")
    old.write_bytes(b"%PDF-1.4")
    recent.write_bytes(b"%PDF-1.4")
    an_hour_ago = time.time() - 3600
    os.utime(old, (an_hour_ago, an_hour_ago))
    assert bench.startup_repairs() == ["Removed the stored copy of a file whose ingestion did not finish."]
    assert not old.exists() and recent.exists(), "a recent one may belong to an ingestion under way"
