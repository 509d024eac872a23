"""The command-line contract: ingest, chunks, filings, retrieve, delete (JSON shapes and exit codes)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import REPO_ROOT, run_cli

SMALL = REPO_ROOT / "tests" / "fixtures" / "small_filing.txt"


@pytest.mark.slow
def test_ingest_chunks_filings_delete(tmp_path):
    data_dir = str(tmp_path / "data")
    done = run_cli("ingest", str(SMALL), "--data-dir", data_dir)
    assert done.returncode == 0, done.stderr
    # stderr holds progress lines only (no model-loading bars); --quiet silences them.
    progress = done.stderr.splitlines()
    assert progress and all(line.startswith("[") for line in progress), progress
    assert any(line.startswith("[embed]") for line in progress)
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

    for strategy in ("auto", "keyword"):
        found = run_cli(
            "retrieve", "What risks does competition pose?", "--strategy", strategy, "--section", "Item 1A",
            "--filing", record["filing_id"], "--k", "4", "--top-n", "2", "--data-dir", data_dir,
        )  # fmt: skip
        assert found.returncode == 0, found.stderr
        result = json.loads(found.stdout)
        assert set(result) == {
            "query", "strategy", "justification", "section_filter", "filing_filter", "route_note", "widened",
            "widen_note", "reranker", "seconds", "chunks",
        }  # fmt: skip
        assert result["strategy"] in {"vector", "keyword", "hybrid"} and result["justification"]
        assert (strategy == "auto") or result["strategy"] == "keyword"
        assert result["section_filter"] == "Item 1A" and result["filing_filter"] == [record["filing_id"]]
        assert "local scorer" in result["reranker"] and 1 <= len(result["chunks"]) <= 2
        for chunk in result["chunks"]:
            assert set(chunk) == {
                "chunk_id", "filing_id", "section", "section_title", "page", "text", "score", "scores", "widened",
            }  # fmt: skip
            assert chunk["filing_id"] == record["filing_id"] and chunk["scores"]["rerank_rank"] >= 1
            assert chunk["section"] == "Item 1A" or chunk["widened"]

    again = run_cli("reindex", "--all", "--quiet", "--data-dir", data_dir)
    assert again.returncode == 0 and again.stderr == ""
    assert json.loads(again.stdout)["filing_id"] == record["filing_id"]

    assert run_cli("delete", record["filing_id"], "--data-dir", data_dir).returncode == 0
    assert json.loads(run_cli("filings", "--data-dir", data_dir).stdout) == []
    assert run_cli("delete", record["filing_id"], "--data-dir", data_dir).returncode == 1


def test_bad_input_exits_non_zero_with_one_line_reason(tmp_path):
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    done = run_cli("ingest", str(empty), "--quiet", "--data-dir", str(tmp_path / "data"))
    assert done.returncode != 0
    assert done.stdout == ""
    reason = done.stderr.strip().splitlines()
    assert len(reason) == 1 and "empty" in reason[0].lower()
