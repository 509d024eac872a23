"""Research: ask a question, review and edit the plan, run it step by step, read the cited answer."""

from __future__ import annotations

import logging

import streamlit as st

from core.graph.records import RunRecord
from core.models import Plan
from core.report.safe_text import escape_markdown
from pages.components.answer_view import show_sections
from pages.components.display import inject_css, page_link, show_error
from pages.components.plan_editor import plan_changed, plan_editor, rows_to_plan
from pages.components.question_form import question_form
from pages.components.run_charts import run_charts, run_graph
from pages.components.run_header import run_header
from pages.components.run_progress import RunProgress
from pages.components.step_panel import step_panel
from pages.shared import workbench

log = logging.getLogger(__name__)

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
action_slot = st.container()
filings = bench.filings()
total_steps = max(len(record.plan.steps), 1)


def perform(label: str, call, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
    """Run one service call with live progress in the action slot, then redraw the page."""
    with action_slot:
        progress = RunProgress(label, total_steps=total_steps)
        try:
            result: RunRecord = call(*args, on_event=progress, **kwargs)
        except Exception as exc:  # noqa: BLE001 - the page shows the failure; show_error logs it
            progress.finish(f"{label.rstrip('…')} failed", ok=False)
            show_error(label.rstrip("…"), exc)
            return
        progress.finish(
            "Done" if result.status == "finished" else result.status.replace("_", " ").capitalize()
        )
    st.rerun()


# --- Plan review --------------------------------------------------------------------------------
if record.status == "awaiting_plan_review":
    proposed = Plan.model_validate((record.pending or {}).get("plan") or record.plan.model_dump())
    st.subheader("Review the plan", anchor="plan-review")
    st.caption(
        "Edit any cell; add a step with the **+** row at the bottom; delete steps by ticking their row "
        "boxes and pressing Delete; change **#** to reorder. Nothing runs until you approve."
    )
    edited = plan_editor(proposed, filings, key=f"plan-{record.run_id}")
    plan, notes = rows_to_plan(edited, proposed)
    for note in notes:
        st.caption(f":material/info: {escape_markdown(note)}")
    changed = plan_changed(plan, proposed)
    mode = "pause after every step" if record.step_mode else "run every step, then write the answer"
    left, right = st.columns([3, 1], vertical_alignment="center")
    with left:
        st.caption(
            f"{len(plan.steps)} step(s){' — edited' if changed else ' as proposed'}. On approval the run will "
            f"{mode}."
        )
    with right:
        approve = st.button(
            "Approve plan",
            type="primary",
            icon=":material/play_arrow:",
            disabled=not plan.steps,
            width="stretch",
            key=f"approve-{record.run_id}",
        )
    if approve:
        total_steps = len(plan.steps)
        perform("Running the plan…", bench.approve_plan, record.run_id, plan if changed else None)
    st.stop()

# --- Paused, interrupted or failed: what the analyst can do next -----------------------------------
if record.status == "paused_after_step":
    pending = record.pending or {}
    remaining = Plan.model_validate(pending.get("remaining_plan") or {})
    with st.container(border=True):
        st.subheader(f"Paused after step {len(record.steps)}", anchor="step-review")
        st.caption(
            "Review what the last step found below. Edit the remaining plan if needed, then continue, "
            "or finish now and write the answer from the evidence so far."
        )
        edited = plan_editor(remaining, filings, key=f"remaining-{record.run_id}-{len(record.steps)}")
        plan, notes = rows_to_plan(edited, remaining)
        for note in notes:
            st.caption(f":material/info: {escape_markdown(note)}")
        changed = plan_changed(plan, remaining)
        left, mid, right = st.columns([3, 1, 1], vertical_alignment="center")
        with left:
            st.caption(f"{len(plan.steps)} step(s) remaining{' — edited' if changed else ''}.")
        with mid:
            go_on = st.button("Continue", type="primary", icon=":material/skip_next:", width="stretch")
        with right:
            finish = st.button("Finish now", icon=":material/flag:", width="stretch")
    if go_on:
        total_steps = len(record.steps) + len(plan.steps)
        perform("Continuing…", bench.continue_run, record.run_id, plan if changed else None)
    if finish:
        perform("Writing the answer…", bench.finish_early, record.run_id)
elif record.status in ("running", "failed"):
    st.warning(
        "This run stopped before it finished (the app was closed or restarted, or a step failed). "
        "Resume it from its last checkpoint.",
        icon=":material/sync_problem:",
    )
    if st.button("Resume", type="primary", icon=":material/play_arrow:"):
        perform("Resuming…", bench.continue_run, record.run_id)

# --- Results ------------------------------------------------------------------------------------
finished = record.status == "finished"
tab_names = ["Plan & steps", "Answer", "Evidence graph", "Charts"]
# Tabs rerun on change so the graph and charts are built only when opened, at their visible size.
steps_tab, answer_tab, graph_tab, charts_tab = st.tabs(
    tab_names, default=tab_names[1] if finished else None, key=f"tabs-{record.run_id}", on_change="rerun"
)
can_override = record.status in ("paused_after_step", "finished")

with steps_tab:
    if not record.steps:
        st.info("No step has run yet.", icon=":material/hourglass_empty:")
    for step in record.steps:
        strategy = step_panel(step, record.run_id, can_override, expanded=step.index == len(record.steps) - 1)
        if strategy is not None:
            perform(
                f"Re-running step {step.index + 1} with {strategy} retrieval…",
                bench.override_strategy,
                record.run_id,
                step.index,
                strategy,
            )
    if record.plan_history:
        with st.expander("Plan history", icon=":material/history:"):
            for version in record.plan_history:
                changes = (
                    "\n".join(f"- {escape_markdown(c)}" for c in version.changes) or "- no change listed"
                )
                st.markdown(f"**Version {version.version}** by the {version.author}\n\n{changes}")

with answer_tab:
    if finished:
        if record.finish_reason:
            st.caption(f":material/flag: {escape_markdown(record.finish_reason)}")
        show_sections(record, ["Answer", "References", "Unsupported or flagged claims"])
        page_link(
            "pages/report.py",
            "Open the report and its exports",
            ":material/description:",
            {"run": record.run_id},
        )
    else:
        st.info("The answer is written when the run finishes.", icon=":material/hourglass_empty:")

if graph_tab.open:
    with graph_tab:
        run_graph(record)

if charts_tab.open:
    with charts_tab:
        run_charts(record)
