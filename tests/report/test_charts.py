"""Plotly figures from a run's record, and their explanatory empty states."""

from __future__ import annotations

import pytest

from core.models import RunRecord
from core.report.charts import (
    evidence_coverage_figure,
    node_timing_figure,
    rerank_score_figure,
    strategy_mix_figure,
)

ALL = [strategy_mix_figure, rerank_score_figure, evidence_coverage_figure, node_timing_figure]


def test_strategy_mix_counts_steps_and_separates_analyst_choices(record) -> None:
    figure = strategy_mix_figure(record)
    supervisor, analyst = figure.data
    assert dict(zip(supervisor.x, supervisor.y, strict=True)) == {"keyword": 0, "hybrid": 1, "web": 1}
    assert dict(zip(analyst.x, analyst.y, strict=True))["keyword"] == 1
    assert sum(supervisor.y) + sum(analyst.y) == len(record.steps)


def test_rerank_scores_per_step(record) -> None:
    figure = rerank_score_figure(record)
    assert [trace.name for trace in figure.data] == ["Step 1", "Step 2"]
    assert list(figure.data[0].y) == [0.912, 0.734]
    assert "local lexical scorer" in figure.layout.title.text


def test_evidence_coverage_orders_items_like_the_filing(record) -> None:
    figure = evidence_coverage_figure(record)
    (trace,) = figure.data
    assert list(trace.x) == ["Item 1", "Item 1A", "Item 7"]
    assert list(trace.y) == [1, 1, 1]


def test_node_timings_stack_per_step(record) -> None:
    figure = node_timing_figure(record)
    names = [trace.name for trace in figure.data]
    assert "retrieve_evidence" in names and "plan_research" in names
    assert [label for label in figure.data[0].y] == ["Plan and report", "Step 1", "Step 2", "Step 3"]
    retrieve = next(trace for trace in figure.data if trace.name == "retrieve_evidence")
    assert dict(zip(retrieve.y, retrieve.x, strict=True))["Step 1"] == pytest.approx(0.42)


@pytest.mark.parametrize("make", ALL)
def test_empty_run_gives_annotated_figure(make) -> None:
    empty = RunRecord(run_id="r0", question="Anything?", status="awaiting_plan_review")
    figure = make(empty)
    assert not figure.data
    assert figure.layout.annotations and figure.layout.annotations[0].text


@pytest.mark.parametrize("make", ALL)
def test_web_only_run_never_raises(record, make) -> None:
    record.steps = record.steps[2:]
    record.timings = {}
    figure = make(record)
    assert figure.layout.title.text
