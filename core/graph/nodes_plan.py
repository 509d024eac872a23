"""Planning nodes and the human-in-the-loop review points: plan_research, review_plan, review_step."""

from __future__ import annotations

import logging
from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import interrupt

from core.agents.contracts import FilingInfo, PlannerInput
from core.agents.plan_tools import ensure_step_ids, normalise_section, with_anchor
from core.graph.deps import ResearchDeps
from core.graph.node_support import (
    agent_outputs,
    dump_steps,
    emit,
    instrumented,
    load_plan,
    load_steps,
    report_fallbacks,
)
from core.graph.plan_diff import diff_plans
from core.graph.state import ResearchState
from core.models import Plan, PlanVersion, check_strategy

log = logging.getLogger(__name__)


def filing_infos(deps: ResearchDeps, filing_ids: list[str]) -> list[FilingInfo]:
    """What the agents may know about the selected filings (from the catalog when there is one)."""
    catalog = getattr(deps.store, "catalog", None)
    infos = []
    for fid in filing_ids:
        filing = catalog.get_filing(fid) if catalog is not None else None
        if filing is None:
            label = deps.filing_labels.get(fid, fid[:12])
            infos.append(FilingInfo(filing_id=fid, label=label, company=label.split(" ")[0]))
        else:
            infos.append(FilingInfo.of(filing))
    return infos


def _clean(plan: Plan, reserved: list[str]) -> Plan:
    steps = []
    for step in plan.steps:
        section = normalise_section(step.document_section) if step.tool == "search_10k" else None
        steps.append(step.model_copy(update={"document_section": section}))
    return ensure_step_ids(Plan(steps=steps, rationale=plan.rationale), reserved)


def apply_plan_edit(state: ResearchState, new_plan: Plan) -> dict[str, Any]:
    """State update for an analyst's plan: the plan, plus a history version listing what changed."""
    old = load_plan(state)
    reserved = [
        s.step_id for v in state.get("plan_history") or [] for s in PlanVersion.model_validate(v).plan.steps
    ]
    new = _clean(new_plan, reserved)
    changes = diff_plans(old, new)
    if not changes:
        return {}
    history = list(state.get("plan_history") or [])
    version = PlanVersion(version=len(history) + 1, author="analyst", changes=changes, plan=new)
    return {"plan": new.model_dump(mode="json"), "plan_history": [*history, version.model_dump(mode="json")]}


@instrumented
def plan_research(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict[str, Any]:
    """Draft the plan (version 1, author planner)."""
    deps = runtime.context
    adeps = deps.agent_deps()
    inputs = PlannerInput(
        question=state["question"],
        filings=filing_infos(deps, state.get("filing_ids") or []),
        max_steps=int(state.get("max_steps") or deps.settings.max_steps),
    )
    try:
        drafted = deps.agents.plan(inputs, adeps)
    except Exception:
        log.exception("the planner failed on %r", state["question"][:200])
        adeps.record_fallback(
            "planner", "the question as asked only", "the planner could not plan this question"
        )
        drafted = Plan(steps=[], rationale="The planner failed; the question is searched as asked.")
    plan = with_anchor(drafted, state["question"], inputs.max_steps)
    report_fallbacks(runtime, state, adeps, "plan_research")
    version = PlanVersion(
        version=1, author="planner", changes=[f"Initial plan with {len(plan.steps)} step(s)"], plan=plan
    )
    return {
        "plan": plan.model_dump(mode="json"),
        "plan_history": [version.model_dump(mode="json")],
        "current_step": 0,
        "steps": [],
        **agent_outputs(adeps),
    }


@instrumented
def review_plan(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict[str, Any]:
    """Pause for the analyst to approve or edit the plan (resume value: {'action': 'approve', 'plan': ...})."""
    response = interrupt(
        {"kind": "plan_review", "question": state.get("question", ""), "plan": state.get("plan") or {}}
    )
    update: dict[str, Any] = {"current_step": 0}
    if isinstance(response, dict) and response.get("plan"):
        update |= apply_plan_edit(state, Plan.model_validate(response["plan"]))
    if isinstance(response, dict) and response.get("action") == "cancel":
        update |= {"finish_requested": True, "finish_reason": "The analyst cancelled the run at plan review."}
    return update


@instrumented
def review_step(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict[str, Any]:
    """Step mode: pause after a step; the analyst may edit the remaining plan, override a strategy, or finish."""
    plan = load_plan(state)
    nxt = int(state.get("current_step", 0))
    response = interrupt(
        {
            "kind": "step_review",
            "step_index": nxt - 1,
            "next_step": nxt,
            "remaining_plan": Plan(steps=plan.steps[nxt:]).model_dump(mode="json"),
        }
    )
    response = response if isinstance(response, dict) else {"action": "continue"}
    action = response.get("action", "continue")
    if action == "finish":
        return {"finish_requested": True, "finish_reason": "The analyst finished the run after a step."}
    if action == "override":
        return override_update(state, int(response["step_index"]), str(response["strategy"]), runtime)
    if response.get("remaining_plan") is not None:
        remaining = Plan.model_validate(response["remaining_plan"])
        edited = Plan(steps=[*plan.steps[:nxt], *remaining.steps], rationale=plan.rationale)
        return apply_plan_edit(state, edited)
    return {}


def override_update(
    state: ResearchState, step_index: int, strategy: str, runtime: Runtime[ResearchDeps] | None = None
) -> dict[str, Any]:
    """State update that re-runs one executed step with the analyst's retrieval strategy."""
    steps = load_steps(state)
    check_strategy(strategy)
    if not 0 <= step_index < len(steps):
        raise ValueError(f"step {step_index} has not run yet")
    if steps[step_index].tool != "search_10k":
        raise ValueError("only filing-search steps have a retrieval strategy")
    steps[step_index] = steps[step_index].model_copy(update={"strategy_override": strategy})
    if runtime is not None:
        emit(
            runtime,
            state,
            "strategy_chosen",
            node="review_step",
            step_index=step_index,
            message=f"Analyst override: {strategy}; re-running step {step_index + 1}",
            data={"strategy": strategy, "decided_by": "analyst"},
        )
    return {
        "steps": dump_steps(steps),
        "resume_at": int(state.get("current_step", 0)),
        "current_step": step_index,
    }
