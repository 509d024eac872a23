"""History: every research run in the checkpoint store; open one, or resume one that did not finish."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.graph.records import RunSummary
from views.components.display import STATUS_BADGES, engine_label, inject_css, show_error
from views.components.run_progress import RunProgress
from views.shared import workbench

RESUMABLE = ("paused_after_step", "running", "failed")

bench = workbench()
inject_css()
st.title("History")
st.caption(
    "Past research runs, newest first, read from the run checkpoints in the data directory. Open a run to "
    "see its steps and answer; resume one that paused or was interrupted."
)

runs = bench.list_runs()
if not runs:
    st.info("No research runs yet. Ask a question on the Research page.", icon=":material/history:")
    st.stop()


def _status(run: RunSummary) -> str:
    return STATUS_BADGES.get(run.status, (run.status,))[0]


cols = st.columns(4)
cols[0].metric("Runs", len(runs))
cols[1].metric("Finished", int(sum(r.status == "finished" for r in runs)))
cols[2].metric(
    "Waiting for you", int(sum(r.status in ("awaiting_plan_review", "paused_after_step") for r in runs))
)
cols[3].metric("Interrupted or failed", int(sum(r.status in ("running", "failed") for r in runs)))

table = pd.DataFrame(
    [
        {
            "Question": run.question,
            "Started": run.created_at.strftime("%Y-%m-%d %H:%M"),
            "Last change": run.updated_at.strftime("%Y-%m-%d %H:%M"),
            "Status": _status(run),
            "Steps": run.steps_done,
            "Engine": engine_label(run.engine),
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
        disabled=run.status not in RESUMABLE,
        help="Continue a paused run with its plan as it is, or an interrupted run from its last checkpoint. "
        "A plan awaiting review is approved on the Research page.",
    )

if run.status == "awaiting_plan_review":
    st.caption(":material/rate_review: This run waits for its plan to be approved: open it in Research.")

if open_run:
    st.switch_page("views/research.py", query_params={"run": chosen})
if open_report:
    st.switch_page("views/report.py", query_params={"run": chosen})
if resume:
    with action_slot:
        record = bench.get_run(chosen)
        progress = RunProgress("Resuming the run…", total_steps=max(len(record.plan.steps), 1))
        try:
            record = bench.continue_run(chosen, on_event=progress)
        except Exception as exc:  # noqa: BLE001 - the page shows the failure; show_error logs it
            progress.finish("Resume failed", ok=False)
            show_error("Resuming the run", exc)
            st.stop()
        progress.finish("Resumed")
    st.switch_page("views/research.py", query_params={"run": chosen})
