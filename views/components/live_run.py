"""Live progress of a run whose action is on a worker: redrawn every second from the kept events."""

from __future__ import annotations

from typing import Any

import streamlit as st

from core.service.display import escape_markdown
from views.components.display import NODE_LABELS
from views.components.run_progress import RunProgress, step_prefix, steps_running

#: How often the live panel redraws, in seconds.
REFRESH_S = 1.5
#: The panel lists this many of the latest events (a long run has hundreds; each redraw replays them).
SHOWN_EVENTS = 12


def live_progress(bench: Any, run_id: str) -> None:
    """The action's progress box and a Cancel button; when the action ends, the whole page reruns to show
    the run as it now is. Safe to leave: the run goes on without the page."""

    @st.fragment(run_every=REFRESH_S)
    def panel() -> None:
        live = bench.live_run(run_id)
        if live is None or not live.active:
            st.rerun()  # the whole page: the run has a new state to show
        events = live.events_since(0)
        if live.state == "queued":
            label = "Waiting for a free research worker…"
        else:
            started = [e for e in events if e.kind == "node_started" and e.node in NODE_LABELS]
            last = started[-1] if started else None
            label = f"{step_prefix(last)}{NODE_LABELS[last.node]}…" if last and last.node else live.label
        progress = RunProgress(label, total_steps=live.total_steps)
        running = steps_running(events)
        if len(running) > 1:  # a wave of independent steps: each in its own column while they run
            with progress.lines:
                st.caption(f"{len(running)} independent steps are running at once:")
                for column, (step, node) in zip(st.columns(len(running)), running.items(), strict=True):
                    with column.container(border=True):
                        st.markdown(f"**Step {step + 1}** · {NODE_LABELS[node]}…")
        hidden = max(0, len(events) - SHOWN_EVENTS)
        if hidden:
            progress.lines.caption(f"… {hidden} earlier event(s)")
        for event in events[hidden:]:
            progress(event)
        writing = live.writing
        if writing is not None and writing.message:
            with progress.lines:
                st.caption(f":material/edit_note: {step_prefix(writing)}The model is writing:")
                st.text(writing.message)
        left, right = st.columns([4, 1], vertical_alignment="center")
        with left:
            st.caption(
                "The run continues on the server: switch pages, close the tab or start another run, and "
                "come back here or to **History** to see it."
            )
        with right:
            if st.button("Cancel run", icon=":material/cancel:", key=f"cancel-{run_id}", width="stretch"):
                bench.cancel_run(run_id)
                st.toast(escape_markdown("Cancelling: the run stops before its next stage."))

    panel()
