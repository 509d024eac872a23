"""Conditional edges of the research graph (route_after_<node>)."""

from __future__ import annotations

from langgraph.types import Send

from core.graph.node_support import load_plan
from core.graph.nodes_wave import wave_sends
from core.graph.state import ResearchState
from core.models import NodeName

_TOOL_NODES: dict[str, NodeName] = {
    "search_10k": "choose_strategy",
    "search_web": "search_web",
    "calculator": "calculate",
}


def _has_next(state: ResearchState) -> bool:
    return int(state.get("current_step", 0)) < len(load_plan(state).steps)


def _execute_next(state: ResearchState) -> NodeName | list[Send]:
    """The next step alone through the step's nodes, or the next wave of independent steps at once."""
    sends = wave_sends(state)
    return sends if len(sends) > 1 else "rewrite_query"


def route_after_review_plan(state: ResearchState) -> NodeName | list[Send]:
    """Execute the first step (or wave), or go straight to the report when the plan is empty or cancelled."""
    if state.get("finish_requested") or not _has_next(state):
        return "write_report"
    return _execute_next(state)


def route_after_rewrite_query(state: ResearchState) -> NodeName:
    """Each step goes to the node of its tool."""
    step = load_plan(state).steps[int(state.get("current_step", 0))]
    return _TOOL_NODES[step.tool]


def route_after_decide_next(state: ResearchState) -> NodeName | list[Send]:
    """Report when the policy finished; otherwise pause (step mode) or run the next step (or wave)."""
    if state.get("next_action") == "finish" or not _has_next(state):
        return "write_report"
    return "review_step" if state.get("step_mode") else _execute_next(state)


def route_after_review_step(state: ResearchState) -> NodeName | list[Send]:
    """After a step-mode pause: the next (or re-run) step or wave, or the report."""
    if state.get("finish_requested") or not _has_next(state):
        return "write_report"
    return _execute_next(state)
