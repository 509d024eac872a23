"""Which steps run together: dependencies, waves, the run's limit, and the reducers that merge a wave."""

from __future__ import annotations

from core.agents.contracts import PolicyInput
from core.agents.policy import follow_ups
from core.graph.nodes_reason import named_by_what_it_reads, wave_note
from core.graph.state import merge_fallbacks, merge_steps
from core.graph.waves import (
    DEFAULT_LLM_PARALLEL_STEPS,
    current_wave,
    next_wave,
    step_dependencies,
    wave_limit,
)
from core.models import Chunk, Gap, Plan, PlanStep, ResearchNote, StepRecord


def _plan(*tools: str) -> Plan:
    return Plan(
        steps=[
            PlanStep(
                step_id=f"s{i}", sub_question=f"part {i}", tool=tool, origin="anchor" if i == 0 else "planner"
            )
            for i, tool in enumerate(tools)
        ]
    )


def test_a_calculator_depends_on_every_step_before_it_and_others_on_none() -> None:
    plan = _plan("search_10k", "search_10k", "search_10k", "calculator", "search_10k")
    assert step_dependencies(plan) == [[], [], [], [0, 1, 2], []]


def test_a_wave_is_the_run_of_independent_steps_up_to_the_limit() -> None:
    plan = _plan("search_10k", "search_10k", "search_10k", "calculator", "search_10k", "calculator")
    assert next_wave(plan, 0, 4) == [0, 1, 2]  # the calculator waits for the lookups
    assert next_wave(plan, 0, 2) == [0, 1]
    assert next_wave(plan, 0, 1) == [0]
    # A calculator whose inputs ran before can start a wave, with the independent steps after it; the next
    # calculator reads what that wave finds.
    assert next_wave(plan, 3, 4) == [3, 4]
    assert next_wave(plan, 5, 4) == [5]
    assert next_wave(plan, 6, 4) == []


def test_the_limit_is_the_setting_or_one_offline_and_several_with_a_model() -> None:
    assert wave_limit({"engine": "offline", "settings": {}}) == 1
    assert wave_limit({"engine": "llm:gpt-4o-mini", "settings": {}}) == DEFAULT_LLM_PARALLEL_STEPS
    assert wave_limit({"engine": "offline", "settings": {"max_parallel_steps": 3}}) == 3
    assert wave_limit({"engine": "llm:x", "settings": {"max_parallel_steps": 1}}) == 1


def test_a_re_run_of_one_step_is_a_wave_of_its_own() -> None:
    plan = _plan("search_10k", "search_10k", "search_10k").model_dump(mode="json")
    state = {"engine": "llm:x", "settings": {}, "plan": plan, "current_step": 0}
    assert current_wave(state) == [0, 1, 2]
    assert current_wave({**state, "resume_at": 3}) == [0]
    assert current_wave({**state, "rerun_only": True}) == [0]


def _record(index: int, **update) -> dict:
    return StepRecord(
        index=index, step_id=f"s{index}", sub_question="q", tool="search_10k", **update
    ).model_dump(mode="json")


def test_steps_merge_by_index_whichever_finishes_first() -> None:
    before = [_record(0), _record(1)]
    merged = merge_steps(
        merge_steps(before, [_record(3, rewritten_query="c")]), [_record(2, rewritten_query="b")]
    )
    assert [s["index"] for s in merged] == [0, 1, 2, 3]
    assert [s["rewritten_query"] for s in merged[2:]] == ["b", "c"]
    # A step run alone writes every record: the result is what it wrote.
    again = [_record(0, rewritten_query="a"), _record(1)]
    assert merge_steps(before, again) == again
    # A new plan starts without records.
    assert merge_steps(before, []) == []


def test_a_routine_fallback_is_stated_once_a_failure_every_time() -> None:
    routine = {"component": "reranker", "used": "local scorer", "reason": "not installed", "routine": True}
    failure = {"component": "distiller", "used": "offline distiller", "reason": "timeout", "routine": False}
    merged = merge_fallbacks([routine], [{**routine, "step_index": 2}, failure, {**failure, "step_index": 3}])
    assert merged == [routine, failure, {**failure, "step_index": 3}]


def test_the_policy_reads_a_wave_as_one_note_each_gap_with_its_filing() -> None:
    first = StepRecord(
        index=1,
        step_id="s1",
        sub_question="q1",
        tool="search_10k",
        filing_id="a" * 64,
        note=ResearchNote(confirmed_facts=["one"], summary="First.", gaps=[Gap(description="g1", query="q")]),
    )
    second = StepRecord(
        index=2,
        step_id="s2",
        sub_question="q2",
        tool="search_10k",
        note=ResearchNote(
            open_questions=["two?"], summary="Second.", gaps=[Gap(description="g2", query="q")]
        ),
    )
    note = wave_note([first, second])
    assert note is not None
    assert (note.confirmed_facts, note.open_questions, note.summary) == (["one"], ["two?"], "First. Second.")
    assert [(g.description, g.filing_id) for g in note.gaps] == [("g1", "a" * 64), ("g2", None)]
    assert wave_note([first]).summary == "First."
    assert wave_note([StepRecord(index=0, step_id="s0", sub_question="q", tool="search_10k")]) is None


def test_a_later_read_on_from_the_same_pages_follows_up_what_the_first_one_stopped_short_of() -> None:
    """Two steps' best passages are on the same pages: the second reads on when unread passages remain past
    where the first read-on stopped (the accrual after the last case), not when it would read the same."""

    def passage(i: int, page: int) -> Chunk:
        return Chunk(
            chunk_id=f"c{i}", filing_id="f", company="Acme", section="Item 8", page=page, chunk_index=i,
            char_start=0, char_end=4, text="text",
        )  # fmt: skip

    gap = Gap(description="what follows the best passages (p. 73, Item 8)", query="q", reads_on_from=["c1"])
    first = named_by_what_it_reads(gap, [passage(2, 73), passage(3, 74), passage(4, 74)])
    later = named_by_what_it_reads(gap, [passage(5, 74)])
    again = named_by_what_it_reads(gap, [passage(2, 73), passage(3, 74), passage(4, 74)])

    def policy(note_gap: Gap, handled: list[str]) -> list[Gap]:
        return follow_ups(
            PolicyInput(
                question="q",
                steps_done=3,
                max_steps=10,
                remaining=[],
                planned_steps=3,
                handled_gaps=handled,
                last_note=ResearchNote(gaps=[note_gap]),
            )
        )

    assert first.description.endswith("3 unread passage(s) from p. 73, Item 8")
    assert policy(later, [first.description]) == [later]
    assert policy(again, [first.description]) == []
