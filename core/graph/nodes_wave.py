"""Steps run together: each step of a wave is one graph task (LangGraph `Send`) that runs the step's own
nodes, from the rewrite to the reflection, on its own copy of the run's state.

A step of a wave sees the records of the steps that ran before the wave (every step it may depend on, see
core.graph.waves), never those of its wave-mates, so its result does not depend on which thread finishes
first. It writes only its own record; the `steps` reducer puts each where the plan has it. The policy then
decides once for the whole wave (decide_next). LangGraph keeps the writes of a wave's finished tasks with
the checkpoint, so a run stopped mid-wave resumes with the unfinished steps only.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import Send

from core.graph.deps import ResearchDeps
from core.graph.node_support import NodeFn, dump_steps, load_plan, load_steps
from core.graph.nodes_reason import distil_evidence, reflect_on_step
from core.graph.nodes_step import (
    calculate,
    choose_strategy,
    rerank_evidence,
    retrieve_evidence,
    rewrite_query,
    search_web,
)
from core.graph.state import ResearchState, merge_fallbacks, merge_timings, merge_usage
from core.graph.waves import current_wave
from core.models import PlanStep, StepRecord

#: The nodes that gather a step's evidence, by the step's tool (as the graph's edges route a step run alone).
_GATHERING: dict[str, list[NodeFn]] = {
    "search_10k": [choose_strategy, retrieve_evidence, rerank_evidence],
    "search_web": [search_web],
    "calculator": [calculate],
}


def wave_sends(state: ResearchState) -> list[Send]:
    """One task per step of the wave that starts at the current step."""
    return [Send("run_wave_step", {**state, "current_step": index}) for index in current_wave(state)]


def _not_yet_run(index: int, step: PlanStep) -> StepRecord:
    """What a step's own task sees of a wave-mate before it: the planned step, with nothing found yet."""
    return StepRecord(index=index, step_id=step.step_id, sub_question=step.sub_question, tool=step.tool)


def run_wave_step(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict[str, Any]:
    """Run one step of a wave from its rewrite to its reflection; return its record, fallbacks, timings and
    token usage (the nodes it runs emit their events and check for a cancel as always)."""
    index = int(state["current_step"])
    plan = load_plan(state)
    before = load_steps(state)[:index]
    records = before + [_not_yet_run(j, plan.steps[j]) for j in range(len(before), index)]
    local: dict[str, Any] = {**state, "steps": dump_steps(records)}
    fallbacks: list[dict[str, Any]] = []
    timings: dict[str, float] = {}
    usage: dict[str, Any] = {}
    for node in [rewrite_query, *_GATHERING[plan.steps[index].tool], distil_evidence, reflect_on_step]:
        update = node(local, runtime)  # type: ignore[arg-type]  # a plain dict carries the state's keys
        local["steps"] = update.get("steps", local["steps"])
        fallbacks = merge_fallbacks(fallbacks, update.get("fallbacks"))
        local["fallbacks"] = merge_fallbacks(local.get("fallbacks"), update.get("fallbacks"))
        timings = merge_timings(timings, update.get("timings"))
        usage = merge_usage(usage, update.get("token_usage"))
    out: dict[str, Any] = {"steps": [local["steps"][index]], "timings": timings}
    if fallbacks:
        out["fallbacks"] = fallbacks
    if usage:
        out["token_usage"] = usage
    return out
