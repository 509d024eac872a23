"""The command-line contract: ingest, chunks, filings, delete (JSON shapes and exit codes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT

SMALL = REPO_ROOT / "tests" / "fixtures" / "small_filing.txt"


def run_cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "core.cli", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.slow
def test_ingest_chunks_filings_delete(tmp_path):
    data_dir = str(tmp_path / "data")
    done = run_cli("ingest", str(SMALL), "--data-dir", data_dir)
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout.strip().splitlines()[0])
    assert set(record) >= {
        "filing_id",
        "company",
        "form",
        "fiscal_year",
        "pages",
        "chunks",
        "sections",
        "seconds",
    }
    assert record["chunks"] == sum(record["sections"].values())

    lines = run_cli("chunks", "--filing", record["filing_id"], "--data-dir", data_dir).stdout.splitlines()
    chunks = [json.loads(line) for line in lines]
    assert len(chunks) == record["chunks"]
    assert set(chunks[0]) == {"chunk_id", "filing_id", "section", "section_title", "page", "text"}

    listed = json.loads(run_cli("filings", "--data-dir", data_dir).stdout)
    assert [f["filing_id"] for f in listed] == [record["filing_id"]]

    assert run_cli("delete", record["filing_id"], "--data-dir", data_dir).returncode == 0
    assert json.loads(run_cli("filings", "--data-dir", data_dir).stdout) == []
    assert run_cli("delete", record["filing_id"], "--data-dir", data_dir).returncode == 1


def test_bad_input_exits_non_zero_with_one_line_reason(tmp_path):
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    done = run_cli("ingest", str(empty), "--data-dir", str(tmp_path / "data"))
    assert done.returncode != 0
    assert done.stdout == ""
    reason = done.stderr.strip().splitlines()
    assert len(reason) == 1 and "empty" in reason[0].lower()
