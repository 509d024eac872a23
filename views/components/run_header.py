"""The top of a run: question, status, engine, reranker, run mode and every fallback that happened."""

from __future__ import annotations

import streamlit as st

from core.models import Fallback, RunRecord
from core.service.display import escape_markdown
from views.components.display import engine_label, status_badge


def rerankers(record: RunRecord) -> list[str]:
    """Rerankers that ordered evidence in this run, in order of first use."""
    return list(dict.fromkeys(step.reranker for step in record.steps if step.reranker))


def run_header(record: RunRecord, live: bool = False) -> None:
    """Question, badges (status, engine, mode, reranker) and fallbacks, shown above any run view; `live`
    when an action of the run is on a worker right now."""
    with st.container(border=True):
        st.markdown(f"#### {escape_markdown(record.question)}")
        cols = st.columns([1, 1, 1, 2], vertical_alignment="center")
        with cols[0]:
            status_badge("live" if live else record.status)
        with cols[1]:
            icon = ":material/cloud:" if record.engine != "offline" else ":material/memory:"
            st.badge(engine_label(record.engine), color="blue", icon=icon)
        with cols[2]:
            mode = "Step mode" if record.step_mode else "Auto mode"
            st.badge(
                mode, color="gray", icon=":material/footprint:" if record.step_mode else ":material/bolt:"
            )
        with cols[3]:
            used = rerankers(record)
            if used:
                st.badge(f"Reranker: {', '.join(used)}", color="gray", icon=":material/sort:")
        done = len(record.steps)
        planned = len(record.plan.steps)
        by = f" by {escape_markdown(record.started_by)}" if record.started_by else ""
        st.caption(
            f"Run `{record.run_id}` · started{by} {record.created_at:%Y-%m-%d %H:%M} UTC · "
            f"{done} of {planned} planned step(s) executed · at most {record.max_steps} steps"
        )
    # The same fallback can repeat on every step; show it once with the steps it affected.
    grouped: dict[tuple[str, str], list[Fallback]] = {}
    for fallback in record.fallbacks:
        grouped.setdefault((fallback.component, fallback.used), []).append(fallback)
    for (component, used), items in grouped.items():
        if all(f.routine for f in items):
            # The installation's documented default (no cross-encoder installed): said once, not a warning.
            st.caption(
                f":material/info: {escape_markdown(component.capitalize())}: {escape_markdown(used)} — "
                f"{escape_markdown(items[0].reason)}"
            )
            continue
        steps = sorted({f.step_index + 1 for f in items if f.step_index is not None})
        where = f" (step {', '.join(map(str, steps))})" if steps else ""
        st.warning(
            f"**Fallback{where}: {escape_markdown(component)}** ran as *{escape_markdown(used)}*. "
            f"{escape_markdown(items[0].reason)}",
            icon=":material/swap_horiz:",
        )
    if record.status == "cancelled" and not live:
        st.info(
            "The run was cancelled. **Resume** goes on from its last finished stage.",
            icon=":material/cancel:",
        )
    elif record.error and not live:
        st.error(
            f"The run stopped: {escape_markdown(record.error)}. Use **Resume** to retry from the last "
            "checkpoint.",
            icon=":material/error:",
        )
