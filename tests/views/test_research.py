"""Research page with Streamlit's AppTest: plan review and edits, auto and step runs, override, escaping."""

from __future__ import annotations

import json
import re
import time

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import REPO_ROOT, SAMPLE_DOCS

SAMPLE = SAMPLE_DOCS / "northwind_10k_fy2025.html"
SMALL = REPO_ROOT / "tests" / "fixtures" / "small_filing.txt"
PAGE = REPO_ROOT / "pages" / "research.py"


def _page() -> AppTest:
    return AppTest.from_file(str(PAGE), default_timeout=180)


def _sample_question() -> str:
    questions = json.loads((SAMPLE_DOCS / "questions.json").read_text(encoding="utf-8"))
    return next(q["question"] for q in questions if q["id"] == "nw-01")


def _html(at: AppTest) -> str:
    return "\n".join(element.proto.body for element in at.get("html"))


def _button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


def _settle(at: AppTest, bench) -> AppTest:
    """Wait for the run's background action to finish, then redraw the page (a browser's live panel does
    this by itself every second)."""
    deadline = time.monotonic() + 180
    while bench.active_runs():
        assert time.monotonic() < deadline, "a background action did not finish"
        time.sleep(0.05)
    at.run()
    assert not at.exception, at.exception
    return at


def _act(at: AppTest, bench, button) -> AppTest:
    """Click a button that starts a run action, and wait for the action."""
    button.click().run()
    assert not at.exception, at.exception
    return _settle(at, bench)


def _plan(at: AppTest, bench, step_mode: bool = False) -> str:
    """Submit the question form (prefilled), wait for planning and return the new run id."""
    if step_mode:
        at.toggle[0].set_value(True)
    _act(at, bench, _button(at, "Plan"))
    return at.query_params["run"] if isinstance(at.query_params["run"], str) else at.query_params["run"][0]


def test_empty_library_points_to_the_library(bench):
    at = _page().run()
    assert not at.exception
    assert at.title[0].value == "Research"
    assert any("library is empty" in info.value for info in at.info)
    assert not at.text_area


@pytest.mark.slow
def test_sample_question_is_prefilled_and_plan_opens_the_editable_review(bench):
    assert bench.ingest_paths([SAMPLE])[0].ok
    at = _page().run()
    assert at.text_area[0].value == _sample_question()

    run_id = _plan(at, bench)
    record = bench.get_run(run_id)
    assert record.status == "awaiting_plan_review"
    editor = at.dataframe[0].value
    assert list(editor["Sub-question"]) == [s.sub_question for s in record.plan.steps]
    assert list(editor["step_id"]) == [s.step_id for s in record.plan.steps]
    assert any(sub.value == "Review the plan" for sub in at.subheader)
    assert _button(at, "Approve plan") is not None


def test_question_without_filings_or_text_is_refused(bench):
    assert bench.ingest_paths([SMALL])[0].ok
    at = _page().run()
    at.text_area[0].set_value("   ")
    _button(at, "Plan").click().run()
    assert any("Type a question" in w.value for w in at.warning)
    assert "run" not in at.query_params
    assert bench.list_runs() == []


def test_unknown_run_in_the_url_explains_and_offers_a_new_question(bench):
    assert bench.ingest_paths([SMALL])[0].ok
    at = _page()
    at.query_params["run"] = "does-not-exist"
    at.run()
    assert not at.exception
    assert any("no longer exists" in e.value for e in at.error)
    assert at.text_area, "the new-question form is shown instead"


@pytest.mark.slow
def test_edited_plan_is_approved_and_auto_run_renders_steps_and_cited_answer(bench):
    assert bench.ingest_paths([SAMPLE])[0].ok
    at = _page().run()
    run_id = _plan(at, bench)
    proposed = bench.get_run(run_id).plan.steps
    assert len(proposed) >= 2
    # The analyst deletes the first step and moves a filing search to Item 8 in the data editor.
    target = next(
        i
        for i, s in enumerate(proposed)
        if i > 0 and s.tool == "search_10k" and s.document_section != "Item 8"
    )
    at.session_state[f"plan-{run_id}"] = {
        "edited_rows": {target: {"Item": "Item 8"}},
        "added_rows": [],
        "deleted_rows": [0],
    }
    at.run()
    assert any("edited" in c.value for c in at.caption)
    _act(at, bench, _button(at, "Approve plan"))
    assert not at.exception, at.exception

    record = bench.get_run(run_id)
    assert record.status == "finished"
    # The analyst's version is the proposal minus its first step; reflection may add follow-ups after it.
    latest = next(v for v in reversed(record.plan_history) if v.author == "analyst")
    assert [s.step_id for s in latest.plan.steps] == [s.step_id for s in proposed[1:]]
    assert latest.plan.steps[target - 1].document_section == "Item 8"
    assert all(v.author == "reflection" for v in record.plan_history[record.plan_history.index(latest) + 1 :])
    assert any("Deleted step" in change for change in latest.changes)
    assert any("Item changed" in change and "Item 8" in change for change in latest.changes)

    assert [t.label for t in at.tabs] == ["Plan & steps", "Answer", "Evidence graph", "Charts"]
    step_titles = [e.label for e in at.expander if e.label.startswith("**Step")]
    assert len(step_titles) == len(record.steps)
    html = _html(at)
    known = {c.number for c in record.citations}
    assert known, "the offline answer cites its evidence"
    for number in known:
        assert f'id="ref-{number}"' in html
    for number in _cited(record.answer) & known:
        assert f'href="#ref-{number}"' in html
    assert 'class="wb-card filing"' in html
    assert "<mark>" in html
    # Graph and charts are built only when their tab is opened.
    assert not at.get("plotly_chart")
    at.session_state[f"tabs-{run_id}"] = "Charts"
    at.run()
    assert len(at.get("plotly_chart")) == 4
    at.session_state[f"tabs-{run_id}"] = "Evidence graph"
    at.run()
    assert not at.exception, at.exception
    frames = at.get("iframe")
    assert len(frames) == 1 and 'id="legend"' in frames[0].proto.srcdoc


def _cited(answer: str) -> set[int]:
    return {int(n) for n in re.findall(r"\[(\d+)\]", answer)}


@pytest.mark.slow
def test_step_mode_pauses_then_override_rerun_and_finish_now(bench):
    assert bench.ingest_paths([SAMPLE])[0].ok
    at = _page().run()
    run_id = _plan(at, bench, step_mode=True)
    _act(at, bench, _button(at, "Approve plan"))
    assert not at.exception, at.exception
    record = bench.get_run(run_id)
    assert record.status == "paused_after_step"
    assert len(record.steps) == 1
    assert any(s.value.startswith("Paused after step 1") for s in at.subheader)
    remaining = at.dataframe[0].value
    assert len(remaining) == len(record.plan.steps) - 1

    first = record.steps[0]
    assert first.tool == "search_10k"
    new_strategy = next(s for s in ("keyword", "vector", "hybrid") if s != first.strategy)
    at.selectbox(key=f"override-{run_id}-0").set_value(new_strategy)
    _act(at, bench, at.button(key=f"rerun-{run_id}-0"))
    assert not at.exception, at.exception
    record = bench.get_run(run_id)
    assert record.steps[0].strategy_override == new_strategy
    assert record.status == "paused_after_step"
    candidates = at.dataframe[1].value
    assert {"Chunk", "Item", "Page", "vector", "bm25", "fused", "rerank"} <= set(candidates.columns)

    _act(at, bench, _button(at, "Finish now"))
    assert not at.exception, at.exception
    record = bench.get_run(run_id)
    assert record.status == "finished"
    assert len(record.steps) == 1
    assert record.citations, "the answer cites the first step's evidence"
    assert f'id="ref-{record.citations[0].number}"' in _html(at)


# --- helpers of the page, without a browser ------------------------------------------------------


def test_rows_to_plan_keeps_ids_orders_by_number_and_names_new_rows():
    from core.models import Plan, PlanStep
    from views.components.plan_editor import plan_frame, rows_to_plan

    original = Plan(
        steps=[
            PlanStep(step_id="s1", sub_question="Risks?", document_section="Item 1A", keywords=["risk"]),
            PlanStep(step_id="s2", sub_question="Revenue?", document_section="Item 7"),
        ]
    )
    frame = plan_frame(original)
    frame.loc[0, "#"] = 3  # move step 1 last
    frame.loc[1, "Keywords"] = "revenue, segment , ,revenue"
    frame.loc[1, "Item"] = "any"
    extra = pd.DataFrame([{"#": 2, "Sub-question": "Growth?", "Tool": "calculator", "Item": None}])
    blank = pd.DataFrame([{"#": None, "Sub-question": "  "}])
    plan, notes = rows_to_plan(pd.concat([frame, extra, blank], ignore_index=True), original)

    assert [s.sub_question for s in plan.steps] == ["Revenue?", "Growth?", "Risks?"]
    assert plan.steps[0].step_id == "s2" and plan.steps[2].step_id == "s1"
    assert plan.steps[1].step_id not in {"s1", "s2"}
    assert plan.steps[0].keywords == ["revenue", "segment"]
    assert plan.steps[0].document_section is None
    assert plan.steps[1].tool == "calculator"
    assert plan.steps[2].document_section == "Item 1A"
    assert len(notes) == 1 and "no sub-question" in notes[0]


def test_highlight_escapes_document_text_before_marking_terms():
    from views.components.evidence_cards import highlight_html

    hostile = 'Revenue <script>alert(1)</script> grew; <img src=x onerror="alert(2)"> revenue & "risk"'
    html = highlight_html(hostile, ["revenue", "script", "risk"])
    assert "<script" not in html and "<img" not in html
    assert "&lt;<mark>script</mark>&gt;" in html
    assert html.count("<mark>") == 5
    assert "&amp;" in html and "&quot;<mark>risk</mark>&quot;" in html
    # Only our own <mark> tags remain once the escaped text is removed.
    assert set(re.findall(r"<(/?\w+)", html)) == {"mark", "/mark"}


def _search_step(**fields):
    """A filing-search step record with just the fields a test cares about."""
    from core.models import StepRecord

    return StepRecord(index=0, step_id="s1", sub_question="q", tool="search_10k", **fields)


def test_candidates_table_places_each_score_in_its_stage():
    from core.models import CandidateRef, Evidence, StageScores
    from views.components.step_panel import candidates_frame

    step = _search_step(
        strategy="keyword",
        candidates=[
            CandidateRef(chunk_id="c1", section="Item 7", page=3, score=4.2),
            CandidateRef(chunk_id="c2", section="Item 7", page=4, score=2.0),
        ],
        evidence=[
            Evidence(
                evidence_id="S1-E1",
                text="t",
                chunk_id="c2",
                scores=StageScores(bm25=2.0, rerank=0.9),
            )
        ],
    )
    frame = candidates_frame(step)
    assert list(frame["Chunk"]) == ["c1", "c2"]
    assert frame.loc[0, "bm25"] == 4.2 and pd.isna(frame.loc[0, "rerank"])
    assert frame.loc[1, "rerank"] == 0.9
    assert list(frame["Kept"]) == [False, True]


def test_candidates_table_shows_every_stage_of_every_candidate():
    from core.models import CandidateRef, StageScores
    from views.components.step_panel import candidates_frame

    full = StageScores(vector=0.5, vector_rank=2, bm25=3.1, keyword_rank=1, fused=0.03, fused_rank=1)
    step = _search_step(
        strategy="hybrid",
        candidates=[
            CandidateRef(
                chunk_id="c1", score=0.03, scores=full.model_copy(update={"rerank": 0.2, "rerank_rank": 2})
            ),
            CandidateRef(
                chunk_id="c2", score=0.02, scores=StageScores(fused=0.02, rerank=0.8, rerank_rank=1)
            ),
        ],
    )
    frame = candidates_frame(step)
    assert frame.loc[0, "vector"] == 0.5 and frame.loc[0, "bm25"] == 3.1 and frame.loc[0, "rerank"] == 0.2
    assert list(frame["Rerank rank"]) == [2, 1]
    assert not frame["Kept"].any()


def test_statement_page_candidates_show_their_rank_and_no_invented_search_score():
    from core.models import CandidateRef, StageScores
    from views.components.step_panel import candidates_frame

    step = _search_step(
        strategy="hybrid",
        candidates=[CandidateRef(chunk_id="s1", score=0.0, scores=StageScores(statement_rank=1, rerank=0.7))],
    )
    frame = candidates_frame(step)
    assert frame.loc[0, "Statement page"] == 1 and frame.loc[0, "rerank"] == 0.7
    assert pd.isna(frame.loc[0, "fused"]), "a statement page was not found by the search: no search score"


def test_widening_is_a_warning_only_when_evidence_left_the_item():
    from core.models import Evidence
    from views.components.step_panel import _evidence_all_in_item

    def step(*sections: str):
        evidence = [Evidence(evidence_id=f"S1-E{i}", text="t", section=s) for i, s in enumerate(sections)]
        return _search_step(document_section="Item 1A", widened=True, evidence=evidence)

    assert _evidence_all_in_item(step("Item 1A", "Item 1A"))
    assert not _evidence_all_in_item(step("Item 1A", "Item 7"))
    assert not _evidence_all_in_item(step())


def test_the_plans_section_choices_follow_the_forms_in_the_library():
    from core.models import Plan, PlanStep, section_choices
    from views.components.plan_editor import plan_frame, rows_to_plan

    only_annual = section_choices(["10-K", "10-K/A"])
    assert "Item 7" in only_annual and "Part II Item 1A" not in only_annual and "Item 2.02" not in only_annual
    with_quarters = section_choices(["10-K", "10-Q", "8-K"])
    assert {"Item 7", "Part I Item 2", "Part II Item 1A", "Item 2.02", "Exhibit 99"} <= set(with_quarters)
    assert "Outlook" not in with_quarters  # no earnings release in this library
    original = Plan(
        steps=[PlanStep(step_id="s1", sub_question="New risks?", document_section="Part II Item 1A")]
    )
    frame = plan_frame(original)
    assert frame.loc[0, "Item"] == "Part II Item 1A"
    plan, _ = rows_to_plan(frame, original)
    assert plan.steps[0].document_section == "Part II Item 1A"
