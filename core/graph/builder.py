"""The research graph factory: nodes, tool routing, review interrupts; compiled with a checkpointer."""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from core.graph.deps import ResearchDeps
from core.graph.nodes_plan import plan_research, review_plan, review_step
from core.graph.nodes_reason import decide_next, distil_evidence, reflect_on_step, write_report
from core.graph.nodes_step import (
    calculate,
    choose_strategy,
    rerank_evidence,
    retrieve_evidence,
    rewrite_query,
    search_web,
)
from core.graph.nodes_wave import run_wave_step
from core.graph.routers import (
    route_after_decide_next,
    route_after_review_plan,
    route_after_review_step,
    route_after_rewrite_query,
)
from core.graph.state import ResearchState


def build_graph(checkpointer: Any) -> Any:
    """Compile the deep-research graph; deps arrive per run as `context=ResearchDeps(...)`."""
    graph = StateGraph(ResearchState, context_schema=ResearchDeps)
    for node in (
        plan_research,
        review_plan,
        rewrite_query,
        choose_strategy,
        retrieve_evidence,
        rerank_evidence,
        search_web,
        calculate,
        run_wave_step,
        distil_evidence,
        reflect_on_step,
        decide_next,
        review_step,
        write_report,
    ):
        graph.add_node(node.__name__, node)
    graph.add_edge(START, "plan_research")
    graph.add_edge("plan_research", "review_plan")
    graph.add_conditional_edges(
        "review_plan", route_after_review_plan, ["rewrite_query", "run_wave_step", "write_report"]
    )
    graph.add_conditional_edges(
        "rewrite_query", route_after_rewrite_query, ["choose_strategy", "search_web", "calculate"]
    )
    graph.add_edge("choose_strategy", "retrieve_evidence")
    graph.add_edge("retrieve_evidence", "rerank_evidence")
    graph.add_edge("rerank_evidence", "distil_evidence")
    graph.add_edge("search_web", "distil_evidence")
    graph.add_edge("calculate", "distil_evidence")
    graph.add_edge("run_wave_step", "decide_next")
    graph.add_edge("distil_evidence", "reflect_on_step")
    graph.add_edge("reflect_on_step", "decide_next")
    graph.add_conditional_edges(
        "decide_next",
        route_after_decide_next,
        ["rewrite_query", "run_wave_step", "review_step", "write_report"],
    )
    graph.add_conditional_edges(
        "review_step", route_after_review_step, ["rewrite_query", "run_wave_step", "write_report"]
    )
    graph.add_edge("write_report", END)
    return graph.compile(checkpointer=checkpointer)
