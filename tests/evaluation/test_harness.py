"""An offline evaluation on the sample set with all three systems, interrupted and resumed, and the CLI."""

from __future__ import annotations

import json
import os

import pytest

from core.config import Settings
from core.evaluation.harness import markdown_tables, summarise
from core.evaluation.questions import load_sample
from core.models import EVAL_SYSTEMS, EvalConfig
from core.service import Workbench

os.environ.setdefault("HF_HUB_OFFLINE", "1")
pytestmark = pytest.mark.slow


class Crash(RuntimeError):
    pass


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    return Workbench(Settings(data_dir=tmp_path_factory.mktemp("eval_data"), web_search_enabled=False))


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
    assert main(["eval", "--systems", "telepathy", "--data-dir", str(bench.settings.data_dir)]) == 2
