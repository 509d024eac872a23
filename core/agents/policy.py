"""Policy agent: continue with the next planned step, or finish (plan done, budget, diminishing returns)."""

from __future__ import annotations

from core.agents.base import AgentDeps
from core.agents.contracts import PolicyInput
from core.agents.structured import structured_call
from core.models import Gap, PolicyDecision
from core.prompts import POLICY_HUMAN, POLICY_SYSTEM

#: Consecutive filing searches without a new supported claim before the run stops early.
STALE_STEPS = 2


def hard_limits(inputs: PolicyInput) -> PolicyDecision | None:
    """Stops no engine may override: the plan is done or the step budget is spent."""
    if not inputs.remaining:
        return PolicyDecision(action="finish", reason="The plan is complete.")
    if inputs.steps_done >= inputs.max_steps:
        return PolicyDecision(action="finish", reason=f"Reached the step budget ({inputs.max_steps} steps).")
    return None


#: Follow-up steps one reflection may add (each gap is researched once).
MAX_FOLLOW_UPS = 3


def follow_ups(inputs: PolicyInput) -> list[Gap]:
    """The last note's gaps that have no follow-up yet, as many as the step budget leaves room for."""
    if inputs.last_note is None:
        return []
    room = inputs.max_steps - max(inputs.planned_steps, inputs.steps_done)
    fresh = [g for g in inputs.last_note.gaps if g.description not in inputs.handled_gaps]
    return list({g.description: g for g in fresh}.values())[: max(0, min(room, MAX_FOLLOW_UPS))]


def offline_decide(inputs: PolicyInput, deps: AgentDeps) -> PolicyDecision:
    """Research the last step's gaps first; otherwise finish on plan end, budget, or when the last filing
    searches added no new supported claims."""
    gaps = follow_ups(inputs)
    if gaps and inputs.steps_done < inputs.max_steps:
        names = "; ".join(g.description for g in gaps)
        return PolicyDecision(action="continue", reason=f"Follow up on: {names}.", follow_ups=gaps)
    limit = hard_limits(inputs)
    if limit is not None:
        if limit.reason == "The plan is complete.":
            return PolicyDecision(action="finish", reason="The plan is complete and no gap remains.")
        return limit
    recent = [
        n
        for n, tool in zip(inputs.new_claims_per_step, inputs.tools_done, strict=False)
        if tool == "search_10k"
    ][-STALE_STEPS:]
    only_searches_left = all(t == "search_10k" for t in inputs.remaining_tools)
    if len(recent) == STALE_STEPS and sum(recent) == 0 and only_searches_left:
        return PolicyDecision(
            action="finish",
            reason=f"Diminishing returns: the last {STALE_STEPS} filing searches added no new supported claims.",
        )
    return PolicyDecision(action="continue", reason=f"{len(inputs.remaining)} planned step(s) remain.")


def llm_decide(inputs: PolicyInput, deps: AgentDeps) -> PolicyDecision:
    """The LLM's decision within the hard limits; gaps in the evidence are followed up whatever it says."""
    gaps = follow_ups(inputs)
    if gaps and inputs.steps_done < inputs.max_steps:
        return offline_decide(inputs, deps)
    limit = hard_limits(inputs)
    if limit is not None:
        return limit
    decision = structured_call(
        deps,
        POLICY_SYSTEM,
        POLICY_HUMAN,
        {
            "question": inputs.question,
            "steps_done": inputs.steps_done,
            "max_steps": inputs.max_steps,
            "remaining": "; ".join(inputs.remaining) or "(none)",
            "new_claims": ", ".join(map(str, inputs.new_claims_per_step)) or "(none)",
            "last_note": inputs.last_note.summary if inputs.last_note else "(none)",
        },
        PolicyDecision,
    )
    if decision.action == "finish" and "calculator" in inputs.remaining_tools:
        # The figures the question asks for are computed before any early stop.
        return PolicyDecision(
            action="continue",
            reason=f"The figures asked for are not computed yet (the model proposed to finish: {decision.reason})",
        )
    return decision
