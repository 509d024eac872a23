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
        "fiscal_quarter",
        "period",
        "period_end",
        "event_items",
        "pages",
        "chunks",
        "sections",
        "seconds",
    }
    assert record["chunks"] == sum(record["sections"].values())
    assert record["period"] == f"FY{record['fiscal_year']}" and record["fiscal_quarter"] is None

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


def test_a_filing_id_not_in_the_library_is_named_not_searched(tmp_path):
    """A run or a search over an id the library does not hold stops with the id named; it does not run and
    report that nothing was found."""
    data_dir = str(tmp_path / "data")
    for command in (
        ("ask", "Who are the competitors?", "--auto-approve", "--filing", "6bc56467", "--filing", "nope"),
        ("retrieve", "competitors", "--filing", "6bc56467"),
    ):
        done = run_cli(*command, "--quiet", "--data-dir", data_dir)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.strip().splitlines() == [
            "No filings with ids 6bc56467, nope are in the library; list the filings to see their ids."
            if "nope" in command
            else "No filing with id 6bc56467 is in the library; list the filings to see their ids."
        ]


@pytest.mark.slow
def test_facts_prints_a_filings_statements_and_finds_rows(tmp_path):
    data_dir = str(tmp_path / "data")
    sample = REPO_ROOT / "sample_docs" / "northwind_10k_fy2025.html"
    done = run_cli("ingest", str(sample), "--quiet", "--data-dir", data_dir)
    assert done.returncode == 0, done.stderr
    filing_id = json.loads(done.stdout)["filing_id"]

    done = run_cli("facts", "--filing", filing_id, "--statement", "income", "--data-dir", data_dir)
    assert done.returncode == 0, done.stderr
    view = json.loads(done.stdout)
    assert set(view) == {"filing_id", "facts", "kinds", "statement", "query", "matched_by", "tables"}
    assert view["filing_id"] == filing_id and view["facts"] > 100 and view["matched_by"] == "all"
    assert view["kinds"][:3] == ["income", "balance", "cash_flow"]
    (income,) = view["tables"]
    assert income["kind"] == "income" and income["unit"] == "in millions" and income["pages"] == [16]
    assert [c["label"] for c in income["columns"]] == ["2025", "2024"]
    labels = [r["label"] for r in income["rows"] if not r["heading"]]
    assert labels.index("Gross profit") < labels.index("Operating income") < labels.index("Net income")
    net = next(r for r in income["rows"] if r["label"] == "Net income")
    assert net["values"] == {"2025": "$19.6", "2024": "$4.0"} and net["page"] == 16
    chunks = {
        c["chunk_id"]: c
        for c in map(json.loads, run_cli("chunks", "--data-dir", data_dir).stdout.splitlines())
    }
    assert net["text"] in chunks[net["chunk_id"]]["text"]  # the row, verbatim in the passage it links to

    done = run_cli("facts", "--filing", filing_id, "--query", "deferred revenue", "--data-dir", data_dir)
    view = json.loads(done.stdout)
    assert view["matched_by"] == "words"
    found = [(t["kind"], r["label"]) for t in view["tables"] for r in t["rows"] if not r["heading"]]
    assert found == [
        ("balance", "Deferred revenue, current"),
        ("balance", "Deferred revenue, non-current"),
        ("cash_flow", "Deferred revenue"),
    ]

    view = json.loads(
        run_cli("facts", "--filing", filing_id, "--query", "borrowings", "--data-dir", data_dir).stdout
    )
    assert view["matched_by"] == "meaning"
    rows = [r for t in view["tables"] for r in t["rows"] if not r["heading"]]
    assert "Long-term debt, net" in [r["label"] for r in rows] and all(r["score"] >= 0.4 for r in rows)

    missing = run_cli("facts", "--filing", "no-such-filing", "--data-dir", data_dir)
    assert missing.returncode == 1 and missing.stdout == ""
    assert missing.stderr.strip() == "No filing with id no-such-filing is in the library."
    wrong = run_cli("facts", "--filing", filing_id, "--statement", "profit", "--data-dir", data_dir)
    assert wrong.returncode == 2 and "invalid choice: 'profit'" in wrong.stderr
