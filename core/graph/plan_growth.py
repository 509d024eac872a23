"""Reflection grows the plan: each gap in the evidence becomes a follow-up step, recorded in the history."""

from __future__ import annotations

from typing import Any

from core.agents.plan_tools import ensure_step_ids, normalise_section
from core.graph.state import ResearchState
from core.models import Gap, Plan, PlanStep, PlanVersion

REFLECTION_PREFIX = "added by reflection: "
RERUN_REASON = "re-run after the follow-up searches"


def handled_gaps(plan: Plan) -> list[str]:
    """Gap descriptions that already have a follow-up step in the plan."""
    return [
        s.reason.removeprefix(REFLECTION_PREFIX)
        for s in plan.steps
        if s.origin == "reflection" and s.reason and s.reason.startswith(REFLECTION_PREFIX)
    ]


def add_follow_ups(
    state: ResearchState, plan: Plan, index: int, gaps: list[Gap], rerun: PlanStep | None = None
) -> dict[str, Any]:
    """State update inserting a search step per gap right after step `index` (and then `rerun`, a calculator
    step whose inputs were missing, again), as a new plan version by 'reflection'. Each gap names its filing
    (the step that found it fills it in)."""
    added = [
        PlanStep(
            step_id="",
            sub_question=gap.query,
            tool="search_10k",
            keywords=gap.keywords[:8],
            document_section=normalise_section(gap.document_section),
            filing_id=gap.filing_id,
            origin="reflection",
            reason=REFLECTION_PREFIX + gap.description,
            reads_on_from=gap.reads_on_from,
        )
        for gap in gaps
    ]
    max_steps = int(state.get("max_steps") or 0) or len(plan.steps) + len(added) + 1
    if rerun is not None and len(plan.steps) + len(added) < max_steps:
        added.append(rerun.model_copy(update={"step_id": "", "origin": "reflection", "reason": RERUN_REASON}))
    reserved = [
        s.step_id for v in state.get("plan_history") or [] for s in PlanVersion.model_validate(v).plan.steps
    ]
    steps = [*plan.steps[: index + 1], *added, *plan.steps[index + 1 :]]
    new_plan = ensure_step_ids(Plan(steps=steps, rationale=plan.rationale), reserved)
    history = list(state.get("plan_history") or [])
    changes = [
        f"Added step {index + 2 + i} “{s.sub_question[:70]}” ({s.reason})" for i, s in enumerate(added)
    ]
    version = PlanVersion(version=len(history) + 1, author="reflection", changes=changes, plan=new_plan)
    return {
        "plan": new_plan.model_dump(mode="json"),
        "plan_history": [*history, version.model_dump(mode="json")],
    }
