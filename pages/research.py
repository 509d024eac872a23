"""Research: ask a question, review and edit the plan, run it step by step, read the cited answer."""

from __future__ import annotations

import streamlit as st

from core.models import RunRecord
from core.service import FilingNotFound, RunBusy, RunNotFound
from core.service.display import escape_markdown
from views.components.auth import signed_in_analyst
from views.components.display import show_error
from views.components.live_run import live_progress
from views.components.navigation import page_setup
from views.components.question_form import question_form
from views.components.run_header import run_header
from views.components.run_views import Action, interrupted, plan_review, results, step_review

bench = page_setup(
    "Research",
    "Ask a multi-hop question about your filings. Review the plan, run it step by step, "
    "and read an answer in which every claim cites a filing, Item, page and passage.",
)

# --- Which run: the URL holds its id, so a reload (or a shared link) shows the same run -----------
run_id = st.query_params.get("run")
record: RunRecord | None = None
live = bench.live_run(run_id) if run_id else None
if run_id:
    try:
        record = bench.get_run(run_id)
    except RunNotFound as exc:
        if live is None:  # neither checkpointed nor being planned: say so, offer a new run
            show_error(f"Opening run {run_id}", exc)
    except Exception as exc:  # noqa: BLE001 - an unreadable checkpoint: say so, offer a new run
        show_error(f"Opening run {run_id}", exc)

if record is None and not (live is not None and live.active):
    filings = bench.filings()
    if not filings:
        st.info(
            "The library is empty. Add a 10-K on the **Library** page first, then come back to ask about it.",
            icon=":material/folder_open:",
        )
        st.stop()
    request = question_form(filings, bench.settings.max_steps)
    if request is not None:
        try:
            st.query_params["run"] = bench.start_research_in_background(
                request.question,
                request.filing_ids,
                step_mode=request.step_mode,
                max_steps=request.max_steps,
                started_by=signed_in_analyst(),
            )
        except FilingNotFound as exc:  # removed from the library (another tab, another analyst) meanwhile
            show_error("Starting the research", exc)
            st.stop()
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
        "Plan → steps → cited answer. The run is checkpointed and runs on the server: leave the page, "
        "reload or come back later from History."
    )
if live is not None and live.active:
    # An action of this run is on a worker: show its live progress (and what is known so far) only.
    if record is not None:
        run_header(record, live=True)
    live_progress(bench, run_id)
    st.stop()

assert record is not None
run_header(record)
if live is not None and live.state == "failed":
    st.error(escape_markdown(live.message), icon=":material/error:")
action_slot = st.container()
action: Action | None = None
filings = bench.filings()
if record.status == "awaiting_plan_review":
    action = plan_review(record, filings, bench)
else:
    if record.status == "paused_after_step":
        action = step_review(record, filings, bench)
    elif record.status in ("running", "failed", "cancelled"):
        action = interrupted(record, bench)
    action = results(record, bench) or action

if action is not None:
    try:
        bench.run_in_background(record.run_id, action.label, action.total_steps, action.call, *action.args)
    except RunBusy as exc:
        with action_slot:
            show_error(action.label.rstrip("…"), exc)
        st.stop()
    st.rerun()
