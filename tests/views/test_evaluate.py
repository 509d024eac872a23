"""Evaluate page with Streamlit's AppTest: an empty start, a bad upload, and a sample evaluation run."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import REPO_ROOT

APP = REPO_ROOT / "app.py"


def _evaluate() -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=600).run()
    return at.switch_page("pages/evaluate.py").run()


def test_no_evaluation_yet(bench):
    at = _evaluate()
    assert not at.exception, at.exception
    assert at.title[0].value == "Evaluate"
    assert any("No evaluation yet" in info.value for info in at.info)
    # The LLM judge needs an LLM; offline it cannot be chosen.
    assert at.radio[1].disabled


def test_upload_without_a_file_asks_for_one(bench):
    at = _evaluate()
    at.radio[0].set_value("upload")
    at.button[0].click().run()
    assert not at.exception, at.exception
    assert any("Choose a question set file" in w.value for w in at.warning)


@pytest.mark.slow
def test_sample_evaluation_runs_and_shows_systems_side_by_side(bench):
    at = _evaluate()
    at.number_input[0].set_value(2)
    at.multiselect[0].set_value(["one-search", "deep"])
    at.button[0].click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    frames = [df.value for df in at.dataframe]
    overall = next(f for f in frames if "Metric" in f.columns and "Variant" in f.columns)
    assert {"one-search", "deep"} <= set(overall.columns)
    assert "answer correctness" in set(overall["Metric"])
    runs = bench.evaluations()
    assert len(runs) == 1 and runs[0].finished and len(runs[0].results) == 4
    # The drill-down shows both systems' answers for the chosen question.
    assert any(md.value == "#### deep" for md in at.markdown) and any(
        md.value == "#### one-search" for md in at.markdown
    )
