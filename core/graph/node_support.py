"""Plumbing shared by the graph nodes: timing and events around each node, state (de)serialisation."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

from langgraph.errors import GraphBubbleUp
from langgraph.runtime import Runtime

from core.agents.base import AgentDeps
from core.failures import failure_message
from core.graph.deps import ResearchDeps
from core.graph.state import ResearchState
from core.models import GRAPH_NODES, STEP_NODES, NodeName, Plan, RunEvent, RunEventKind, StepRecord

NodeFn = Callable[[ResearchState, Runtime[ResearchDeps]], dict[str, Any]]


class RunCancelled(Exception):
    """The analyst cancelled the run; raised before the next node starts (its checkpoint stays)."""


#: What a cancelled run says (event, run header, History).
CANCELLED_MESSAGE = "cancelled by the analyst"


def emit(
    runtime: Runtime[ResearchDeps],
    state: ResearchState,
    kind: RunEventKind,
    *,
    node: NodeName | None = None,
    step_index: int | None = None,
    message: str = "",
    data: dict[str, Any] | None = None,
) -> None:
    """Send one typed RunEvent through the deps' callback."""
    runtime.context.emit(
        RunEvent(
            run_id=state.get("run_id", ""),
            kind=kind,
            node=node,
            step_index=step_index,
            message=message,
            data=data or {},
        )
    )


def instrumented(fn: NodeFn) -> NodeFn:
    """A graph node, named after its function (one of GRAPH_NODES): emit node_started/node_finished (or
    error), and record the node's seconds for the run and step."""
    if fn.__name__ not in GRAPH_NODES:
        raise ValueError(f"{fn.__name__} is not one of the graph's nodes (core.models.GRAPH_NODES)")
    name: NodeName = fn.__name__  # type: ignore[assignment]  # checked above

    @functools.wraps(fn)
    def node(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict[str, Any]:
        step = state.get("current_step") if name in STEP_NODES else None
        emit(runtime, state, "node_started", node=name, step_index=step)
        started = time.perf_counter()
        if runtime.context.stop_requested():
            emit(runtime, state, "error", node=name, step_index=step, message=CANCELLED_MESSAGE)
            raise RunCancelled(name)
        try:
            update = fn(state, runtime) or {}
        except GraphBubbleUp:
            raise  # interrupts are control flow, not errors
        except Exception as exc:
            emit(
                runtime,
                state,
                "error",
                node=name,
                step_index=step,
                message=failure_message(f"The {name.replace('_', ' ')} stage", exc),
            )
            raise
        seconds = round(time.perf_counter() - started, 4)
        update["timings"] = {name: seconds}
        steps = update.get("steps")
        if step is not None and steps and 0 <= step < len(steps):
            timings = dict(steps[step].get("timings") or {})
            timings[name] = round(timings.get(name, 0.0) + seconds, 4)
            steps[step] = {**steps[step], "timings": timings}
        emit(runtime, state, "node_finished", node=name, step_index=step, data={"seconds": seconds})
        return update

    return node


def load_plan(state: ResearchState) -> Plan:
    """The current plan as a model."""
    return Plan.model_validate(state.get("plan") or {})


def load_steps(state: ResearchState) -> list[StepRecord]:
    """Executed step records as models."""
    return [StepRecord.model_validate(s) for s in state.get("steps") or []]


def dump_steps(steps: list[StepRecord]) -> list[dict[str, Any]]:
    """Step records as checkpoint-friendly dicts."""
    return [s.model_dump(mode="json") for s in steps]


def current_record(state: ResearchState) -> tuple[int, list[StepRecord], StepRecord]:
    """(index, all records, the record of the step being executed)."""
    index = int(state.get("current_step", 0))
    steps = load_steps(state)
    return index, steps, steps[index]


def agent_outputs(adeps: AgentDeps) -> dict[str, Any]:
    """State updates for what an agent call reported: fallbacks and token usage."""
    update: dict[str, Any] = {}
    if adeps.fallbacks:
        update["fallbacks"] = [f.model_dump(mode="json") for f in adeps.fallbacks]
    if adeps.usage.calls:
        update["token_usage"] = adeps.usage.model_dump()
    return update


def report_fallbacks(
    runtime: Runtime[ResearchDeps], state: ResearchState, adeps: AgentDeps, node: NodeName
) -> None:
    """A fallback event for each fallback an agent call recorded."""
    for fb in adeps.fallbacks:
        emit(
            runtime,
            state,
            "fallback",
            node=node,
            step_index=fb.step_index,
            message=f"{fb.component} -> {fb.used}: {fb.reason}",
            data=fb.model_dump(mode="json"),
        )


def steps_update(
    runtime: Runtime[ResearchDeps],
    state: ResearchState,
    adeps: AgentDeps,
    node: NodeName,
    steps: list[StepRecord],
) -> dict[str, Any]:
    """The usual end of a step node: its fallbacks reported, then the new step records and agent outputs."""
    report_fallbacks(runtime, state, adeps, node)
    return {"steps": dump_steps(steps), **agent_outputs(adeps)}
