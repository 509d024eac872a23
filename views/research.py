"""Research: ask a question, review and edit the plan, run it step by step, read the cited answer."""

from __future__ import annotations

import streamlit as st

from core.graph.records import RunRecord
from views.components.display import error_text, inject_css, show_error
from views.components.question_form import question_form
from views.components.run_header import run_header
from views.components.run_progress import RunProgress
from views.components.run_views import Action, interrupted, plan_review, results, step_review
from views.shared import workbench

# A failed action's message survives the redraw that follows it (a UI message, not run state).
FLASH = "research-flash"

bench = workbench()
inject_css()
st.title("Research")
st.caption(
    "Ask a multi-hop question about your filings. Review the plan, run it step by step, "
    "and read an answer in which every claim cites a filing, Item, page and passage."
)

# --- Which run: the URL holds its id, so a reload (or a shared link) shows the same run -----------
run_id = st.query_params.get("run")
record: RunRecord | None = None
if run_id:
    try:
        record = bench.get_run(run_id)
    except Exception as exc:  # noqa: BLE001 - RunNotFound or an unreadable checkpoint: say so, offer a new run
        show_error(f"Opening run {run_id}", exc)

if record is None:
    filings = bench.filings()
    if not filings:
        st.info(
            "The library is empty. Add a 10-K on the **Library** page first, then come back to ask about it.",
            icon=":material/folder_open:",
        )
        st.stop()
    request = question_form(filings, bench.settings.max_steps)
    if request is not None:
        progress = RunProgress("Planning the research…", total_steps=1)
        try:
            record = bench.start_research(
                request.question,
                request.filing_ids,
                step_mode=request.step_mode,
                max_steps=request.max_steps,
                on_event=progress,
            )
        except Exception as exc:  # noqa: BLE001 - the page shows the failure; show_error logs it
            progress.finish("Planning failed", ok=False)
            show_error("Planning", exc)
            st.stop()
        progress.finish("Plan ready")
        st.query_params["run"] = record.run_id
        st.rerun()
    st.stop()

# --- The run ------------------------------------------------------------------------------------
top_left, top_right = st.columns([5, 1], vertical_alignment="bottom")
with top_right:
    if st.button("New question", icon=":material/add:", width="stretch"):
        st.query_params.clear()
        st.rerun()
with top_left:
    st.caption(
        "Plan → steps → cited answer. The run is checkpointed: reload or come back later from History."
    )
run_header(record)
if flash := st.session_state.pop(FLASH, None):
    st.error(flash, icon=":material/error:")
action_slot = st.container()
# Everything below lives in one placeholder, cleared while an action runs so nothing stale is clickable.
body = st.empty()
action: Action | None = None
with body.container():
    filings = bench.filings()
    if record.status == "awaiting_plan_review":
        action = plan_review(record, filings, bench)
    else:
        if record.status == "paused_after_step":
            action = step_review(record, filings, bench)
        elif record.status in ("running", "failed"):
            action = interrupted(record, bench)
        action = results(record, bench) or action

if action is not None:
    body.empty()
    with action_slot:
        progress = RunProgress(action.label, total_steps=action.total_steps)
        try:
            result = action.call(*action.args, on_event=progress, **action.kwargs)
            progress.finish(
                "Done" if result.status == "finished" else result.status.replace("_", " ").capitalize()
            )
        except Exception as exc:  # noqa: BLE001 - the failure is shown after the redraw; error_text logs it
            progress.finish(f"{action.label.rstrip('…')} failed", ok=False)
            st.session_state[FLASH] = error_text(action.label.rstrip("…"), exc)
    st.rerun()
