"""An offline evaluation on the sample set with all three systems, interrupted and resumed, and the CLI; a
question about several filings scoped to all of them; the summary table's document coverage."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from core.config import Settings
from core.evaluation.harness import markdown_tables, summarise
from core.evaluation.questions import QuestionSet, load_sample
from core.models import (
    EVAL_SYSTEMS,
    EvalConfig,
    EvalQuestion,
    EvalResult,
    EvalRun,
    MetricValue,
    SystemAnswer,
)
from core.service import Workbench
from tests.conftest import REPO_ROOT, SAMPLE_DOCS

os.environ.setdefault("HF_HUB_OFFLINE", "1")


class Crash(RuntimeError):
    pass


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    return Workbench(Settings(data_dir=tmp_path_factory.mktemp("eval_data"), web_search_enabled=False))


@pytest.mark.slow
def test_sample_evaluation_survives_a_crash_and_compares_three_systems(bench):
    qset = load_sample().filtered(limit=4)
    config = EvalConfig(eval_id="crashy", set_name="sample", systems=list(EVAL_SYSTEMS))
    seen = []

    def crash_after_five(progress):
        if progress.result is not None:
            seen.append(progress.result)
            if len(seen) == 5:
                raise Crash("killed")

    with pytest.raises(Crash):
        bench.run_evaluation(qset, config, crash_after_five)
    stored = bench.evaluation("crashy")
    assert len(stored.results) == 5 and not stored.finished

    run = bench.resume_evaluation("crashy")
    assert run.finished and len(run.results) == 12 == run.expected
    assert len({(r.qid, r.system) for r in run.results}) == 12  # nothing ran twice
    # The sample filing was ingested into the evaluation workspace, not into the library.
    assert bench.filings() == [] and [
        f.filename for f in bench.evaluator().workspace.store.catalog.list_filings()
    ] == ["northwind_10k_fy2025.html"]
    for result in run.results:
        assert result.output.error is None, result.output.error
        names = {(m.name, m.variant) for m in result.metrics}
        assert {
            ("context_recall", "reference"),
            ("faithfulness", "reference"),
            ("answer_correctness", "reference"),
        } <= names
        assert result.metric("citation_validity") in (None, 1.0)
    deep = [r for r in run.results if r.system == "deep"]
    one = {r.qid: r for r in run.results if r.system == "one-search"}
    assert all(r.output.steps >= 2 and r.output.run_id for r in deep)
    # The deep loop's evidence holds at least what one search of the raw question found.
    for r in deep:
        assert {c.chunk_id for c in one[r.qid].output.contexts} <= {c.chunk_id for c in r.output.contexts}
    summary = summarise(run)
    table = markdown_tables(summary)
    assert "| metric (variant) | naive | one-search | deep |" in table and "answer correctness" in table
    assert summary["overall"]["deep"]["questions"] == 4
    assert [r.config.eval_id for r in bench.evaluations()] == ["crashy"]


@pytest.mark.slow
def test_eval_cli_prints_the_table_and_writes_json(bench, tmp_path, capsys):
    from core.cli import main

    out = tmp_path / "eval.json"
    code = main(
        [
            "eval",
            "--set",
            "sample",
            "--limit",
            "2",
            "--systems",
            "naive,one-search",
            "--data-dir",
            str(bench.settings.data_dir),
            "--json",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "| metric (variant) | naive | one-search |" in printed
    data = json.loads(out.read_text())
    assert data["summary"]["questions"] == 2 and len(data["results"]) == 4
    # Answers are plain text in JSON, as `research --json` writes them: "$1,003", not "\\$1,003" or "**…**".
    firsts = [r["answer_first"] for r in data["results"]]
    assert any("$" in a for a in firsts) and not any("\\" in a or "**" in a for a in firsts), firsts
    assert main(["eval", "--systems", "telepathy", "--data-dir", str(bench.settings.data_dir)]) == 2


@pytest.mark.slow
def test_a_question_about_two_filings_is_scoped_to_both_and_no_other(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(SAMPLE_DOCS / "northwind_10k_fy2025.html", docs)  # Northwind, 1,184 employees
    shutil.copy(REPO_ROOT / "tests" / "fixtures" / "small_filing.txt", docs)  # Tailspin Freight, 5,320
    shutil.copy(REPO_ROOT / "tests" / "fixtures" / "cp1252_filing.txt", docs)  # Litware Foods
    both = ["northwind_10k_fy2025.html", "small_filing.txt"]
    questions = [
        EvalQuestion(
            qid="both",
            question="How many people did Northwind and Tailspin Freight employ?",
            answer="Northwind had 1,184 full-time employees; Tailspin Freight employed 5,320 people.",
            filing=both[0],
            filings=both,
            qtype="Multi-Doc",
        ),
        EvalQuestion(
            qid="litware",
            question="Which brands does Litware Foods sell?",
            answer="Harvest Table and Crumb & Co.",
            filing="cp1252_filing.txt",
            qtype="Single-Doc",
        ),
    ]
    bench = Workbench(Settings(data_dir=tmp_path / "data", web_search_enabled=False))
    config = EvalConfig(eval_id="scope", set_name="scope", systems=list(EVAL_SYSTEMS))
    run = bench.run_evaluation(QuestionSet("scope", questions, docs), config)

    catalog = bench.evaluator().workspace.store.catalog
    ids = {f.filename: f.filing_id for f in catalog.list_filings()}
    assert set(ids) == {*both, "cp1252_filing.txt"}
    scope = {ids[name] for name in both}
    for result in run.results:
        assert result.output.error is None, result.output.error
        used = {c.filing_id for c in result.output.contexts}
        if result.qid == "both":
            # Every system searched the two filings and nothing else in the workspace.
            assert used and used <= scope, (result.system, used)
            assert result.metric("document_coverage") == (len(used) / 2)
        else:
            assert used == {ids["cp1252_filing.txt"]} and result.metric("document_coverage") is None
    deep = next(r for r in run.results if r.qid == "both" and r.system == "deep")
    assert deep.metric("document_coverage") == 1.0  # its plan reads each company's filing
    table = markdown_tables(summarise(run))
    assert "cited documents among the evidence (multi-document questions)" in table
    assert "| Multi-Doc (1) | document_coverage |" in table


def _result(qid: str, qtype: str, system: str, coverage: float | None) -> EvalResult:
    return EvalResult(
        qid=qid,
        qtype=qtype,
        question="q",
        reference="r",
        filing="a.pdf",
        system=system,  # type: ignore[arg-type]
        output=SystemAnswer(system=system),  # type: ignore[arg-type]
        metrics=[MetricValue(name="document_coverage", value=coverage)],
    )


def test_summary_table_reports_document_coverage_overall_and_by_type():
    config = EvalConfig(eval_id="cov", set_name="docugami", systems=["naive", "deep"])
    run = EvalRun(
        config=config,
        results=[
            _result("m1", "Multi-Doc RAG", "naive", 0.25),
            _result("m1", "Multi-Doc RAG", "deep", 1.0),
            _result("m2", "Multi-Doc RAG", "naive", 0.75),
            _result("m2", "Multi-Doc RAG", "deep", 0.5),
            _result("s1", "Single-Doc Single-Chunk RAG", "naive", None),
            _result("s1", "Single-Doc Single-Chunk RAG", "deep", None),
        ],
    )
    summary = summarise(run)
    assert summary["overall"]["deep"]["document_coverage/reference"] == {"mean": 0.75, "n": 2}
    assert summary["by_type"]["Single-Doc Single-Chunk RAG"]["deep"]["document_coverage/reference"] == {
        "mean": None,
        "n": 0,
    }
    table = markdown_tables(summary)
    assert (
        "| cited documents among the evidence (multi-document questions) | 50.0% (n=2) | 75.0% (n=2) |"
        in table
    )
    assert "| Multi-Doc RAG (2) | document_coverage | 50.0% (n=2) | 75.0% (n=2) |" in table
    assert "| Single-Doc Single-Chunk RAG (1) | document_coverage |" not in table
