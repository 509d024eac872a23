"""History: every research run in the checkpoint store; open one, or resume one that did not finish."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.models import RunSummary
from core.service import RunBusy
from views.components.auth import sign_in_configured, signed_in_analyst
from views.components.display import STATUS_BADGES, engine_label, show_error
from views.components.navigation import page_setup

RESUMABLE = ("paused_after_step", "running", "failed", "cancelled")

bench = page_setup(
    "History",
    "Past research runs, newest first, read from the run checkpoints in the data directory. Open a run to "
    "see its steps and answer (a run that is running now shows its live progress); resume one that "
    "paused, was cancelled or was interrupted.",
)

runs = bench.list_runs()
live = bench.active_runs()
if sign_in_configured():
    analyst = signed_in_analyst()
    whose = st.segmented_control("Runs", ["Mine", "Everyone's"], default="Mine", key="history_whose")
    if whose != "Everyone's":
        runs = [run for run in runs if run.started_by == analyst]
if not runs:
    st.info("No research runs yet. Ask a question on the Research page.", icon=":material/history:")
    st.stop()


def _state(run: RunSummary) -> str:
    """The run's checkpoint status, or 'live' while an action of it runs on a worker of this app."""
    return "live" if run.run_id in live else run.status


def _status(run: RunSummary) -> str:
    return STATUS_BADGES.get(_state(run), (run.status,))[0]


states = [_state(r) for r in runs]
cols = st.columns(5)
cols[0].metric("Runs", len(runs))
cols[1].metric("Running now", states.count("live"))
cols[2].metric("Finished", states.count("finished"))
cols[3].metric("Waiting for you", sum(s in ("awaiting_plan_review", "paused_after_step") for s in states))
cols[4].metric(
    "Interrupted, cancelled or failed", sum(s in ("running", "failed", "cancelled") for s in states)
)

table = pd.DataFrame(
    [
        {
            "Question": run.question,
            "Started": run.created_at.strftime("%Y-%m-%d %H:%M"),
            "Last change": run.updated_at.strftime("%Y-%m-%d %H:%M"),
            "Status": _status(run),
            "Steps": run.steps_done,
            "Engine": engine_label(run.engine),
            **({"Started by": run.started_by or "—"} if any(r.started_by for r in runs) else {}),
            "Run": run.run_id,
        }
        for run in runs
    ]
)
st.dataframe(
    table,
    hide_index=True,
    width="stretch",
    column_config={
        "Question": st.column_config.TextColumn("Question", width=480),
        "Steps": st.column_config.NumberColumn("Steps", width=60),
        "Run": st.column_config.TextColumn("Run", width=110),
    },
)

by_id = {run.run_id: run for run in runs}
current = st.query_params.get("run")
chosen = st.selectbox(
    "Run",
    options=list(by_id),
    index=list(by_id).index(current) if current in by_id else 0,
    format_func=lambda rid: f"{by_id[rid].question[:90]} · {_status(by_id[rid])} · {rid}",
)
run = by_id[chosen]
action_slot = st.container()
left, mid, right, _ = st.columns([1, 1, 1, 2])
with left:
    open_run = st.button("Open in Research", type="primary", icon=":material/open_in_new:", width="stretch")
with mid:
    open_report = st.button(
        "Open report", icon=":material/description:", width="stretch", disabled=run.status != "finished"
    )
with right:
    resume = st.button(
        "Resume",
        icon=":material/play_arrow:",
        width="stretch",
        disabled=run.status not in RESUMABLE or run.run_id in live,
        help="Continue a paused run with its plan as it is, or a cancelled or interrupted run from its last "
        "checkpoint. A plan awaiting review is approved on the Research page.",
    )

if run.status == "awaiting_plan_review" and run.run_id not in live:
    st.caption(":material/rate_review: This run waits for its plan to be approved: open it in Research.")

if open_run:
    st.switch_page("pages/research.py", query_params={"run": chosen})
if open_report:
    st.switch_page("pages/report.py", query_params={"run": chosen})
if resume:
    record = bench.get_run(chosen)
    try:
        bench.run_in_background(
            chosen, "Resuming…", max(len(record.plan.steps), 1), bench.continue_run, chosen
        )
    except RunBusy as exc:
        with action_slot:
            show_error("Resuming the run", exc)
        st.stop()
    st.switch_page("pages/research.py", query_params={"run": chosen})
