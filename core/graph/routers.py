"""Conditional edges of the research graph (route_after_<node>)."""

from __future__ import annotations

from core.graph.node_support import load_plan
from core.graph.state import ResearchState
from core.models import NodeName

_TOOL_NODES: dict[str, NodeName] = {
    "search_10k": "choose_strategy",
    "search_web": "search_web",
    "calculator": "calculate",
}


def _has_next(state: ResearchState) -> bool:
    return int(state.get("current_step", 0)) < len(load_plan(state).steps)


def route_after_review_plan(state: ResearchState) -> NodeName:
    """Execute the first step, or go straight to the report when the plan is empty or cancelled."""
    if state.get("finish_requested") or not _has_next(state):
        return "write_report"
    return "rewrite_query"


def route_after_rewrite_query(state: ResearchState) -> NodeName:
    """Each step goes to the node of its tool."""
    step = load_plan(state).steps[int(state.get("current_step", 0))]
    return _TOOL_NODES[step.tool]


def route_after_decide_next(state: ResearchState) -> NodeName:
    """Report when the policy finished; otherwise pause (step mode) or run the next step."""
    if state.get("next_action") == "finish" or not _has_next(state):
        return "write_report"
    return "review_step" if state.get("step_mode") else "rewrite_query"


def route_after_review_step(state: ResearchState) -> NodeName:
    """After a step-mode pause: the next (or re-run) step, or the report."""
    if state.get("finish_requested") or not _has_next(state):
        return "write_report"
    return "rewrite_query"
