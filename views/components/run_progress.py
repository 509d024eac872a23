"""Live progress of a research call: a status box with a progress bar, fed by the run's events."""

from __future__ import annotations

import streamlit as st

from core.models import NodeName, RunEvent
from core.service.display import escape_markdown
from views.components.display import NODE_LABELS

#: The nodes whose end gets a line of its own (the others are quick or are reviews).
LOGGED_NODES: frozenset[NodeName] = frozenset(
    {
        "plan_research",
        "rewrite_query",
        "retrieve_evidence",
        "search_web",
        "calculate",
        "distil_evidence",
        "reflect_on_step",
        "write_report",
    }
)


def steps_running(events: list[RunEvent]) -> dict[int, NodeName]:
    """The steps running now and the node each is in, from a run's events (several when a wave of
    independent steps runs at once): a step is running from its first node until its reflection ends."""
    running: dict[int, NodeName] = {}
    for event in events:
        if event.step_index is None or event.node is None:
            continue
        ended = event.kind == "error" or (event.kind == "node_finished" and event.node == "reflect_on_step")
        if ended or event.node == "decide_next":
            running.pop(event.step_index, None)
        elif event.kind == "node_started":
            running[event.step_index] = event.node
    return dict(sorted(running.items()))


def step_prefix(event: RunEvent) -> str:
    """'Step 2 · ' for an event of a step, '' for one of the run."""
    return f"Step {event.step_index + 1} · " if event.step_index is not None else ""


class RunProgress:
    """An `on_event` callback drawing into an `st.status` box: current node, per-step progress, messages."""

    def __init__(self, label: str, total_steps: int, first_step: int = 0) -> None:
        self.total = max(total_steps, 1)
        self.first_step = first_step
        self.box = st.status(label, expanded=True)
        with self.box:
            self.bar = st.progress(0.0, text="Starting…")
            self.lines = st.container()
        self.failed = False

    def _fraction(self, event: RunEvent) -> float | None:
        if event.kind == "run_finished" or event.node == "write_report":
            return 1.0
        if event.step_index is None:
            return None
        done = event.step_index + (
            1 if event.kind == "node_finished" and event.node == "decide_next" else 0.5
        )
        return min(done / self.total, 0.98)

    def __call__(self, event: RunEvent) -> None:
        """Render one event as it arrives (the service calls this synchronously)."""
        where = step_prefix(event)
        label = NODE_LABELS.get(event.node or "", event.node or "")
        message = escape_markdown(event.message)
        if event.kind == "node_started" and label:
            self.box.update(label=f"{where}{label}…", expanded=True, state="running")
        elif event.kind == "node_finished" and event.node in LOGGED_NODES:
            seconds = event.data.get("seconds")
            took = f" ({seconds:.1f} s)" if isinstance(seconds, (int, float)) else ""
            self.lines.markdown(f":material/check: {where}{label}{took}")
        elif event.kind == "strategy_chosen":
            self.lines.markdown(f":material/manage_search: {where}{message}")
        elif event.kind == "evidence_found":
            self.lines.markdown(f":material/description: {where}{message}")
        elif event.kind == "fallback":
            self.lines.warning(f"{where}{message}", icon=":material/swap_horiz:")
        elif event.kind == "error":
            self.failed = True
            self.lines.error(f"{where}{message}", icon=":material/error:")
        elif event.kind == "run_finished":
            self.lines.markdown(f":material/flag: {message}")
        fraction = self._fraction(event)
        if fraction is not None:
            self.bar.progress(fraction, text=f"{where}{label}" if label else "Working…")

    def finish(self, label: str, ok: bool = True) -> None:
        """Close the box with a final label."""
        self.bar.progress(1.0, text=label)
        self.box.update(label=label, state="complete" if ok and not self.failed else "error", expanded=False)
