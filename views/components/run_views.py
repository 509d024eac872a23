"""The parts of a run view that ask the analyst for a decision; each returns the action chosen, if any."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from core.models import Filing, Plan, RunRecord
from core.service.display import escape_markdown
from views.components.answer_view import show_sections
from views.components.display import page_link
from views.components.plan_editor import plan_changed, plan_editor, rows_to_plan
from views.components.run_charts import run_charts, run_graph
from views.components.step_panel import step_panel


@dataclass
class Action:
    """A service call the analyst asked for: a progress label, the method and its arguments."""

    label: str
    call: Callable[..., RunRecord]
    args: tuple[Any, ...] = ()
    total_steps: int = 1
    kwargs: dict[str, Any] = field(default_factory=dict)


def _edited(plan: Plan, filings: list[Filing], key: str, bench: Any) -> tuple[Plan, bool]:
    """The plan editor; below it, each edit in plain words (what the plan history will record)."""
    edited = plan_editor(plan, filings, key=key)
    result, notes = rows_to_plan(edited, plan)
    for note in notes:
        st.caption(f":material/info: {escape_markdown(note)}")
    changed = plan_changed(result, plan)
    if changed:
        edits = bench.plan_edits(plan, result)
        st.caption("Your edits: " + "; ".join(escape_markdown(e) for e in edits) if edits else "Edited.")
    return result, changed


def plan_review(record: RunRecord, filings: list[Filing], bench: Any) -> Action | None:
    """The proposed plan as an editable table and the 'Approve plan' button."""
    proposed = Plan.model_validate((record.pending or {}).get("plan") or record.plan.model_dump())
    st.subheader("Review the plan", anchor="plan-review")
    st.caption(
        "Edit any cell; add a step with the **+** row at the bottom; delete steps by ticking their row "
        "boxes and pressing Delete; change **#** to reorder. Nothing runs until you approve."
    )
    plan, changed = _edited(proposed, filings, f"plan-{record.run_id}", bench)
    mode = "pause after every step" if record.step_mode else "run every step, then write the answer"
    left, right = st.columns([3, 1], vertical_alignment="center")
    with left:
        edited = " — edited" if changed else " as proposed"
        st.caption(f"{len(plan.steps)} step(s){edited}. On approval the run will {mode}.")
    with right:
        approve = st.button(
            "Approve plan",
            type="primary",
            icon=":material/play_arrow:",
            disabled=not plan.steps,
            width="stretch",
            key=f"approve-{record.run_id}",
        )
    if not approve:
        return None
    return Action(
        "Running the plan…", bench.approve_plan, (record.run_id, plan if changed else None), len(plan.steps)
    )


def step_review(record: RunRecord, filings: list[Filing], bench: Any) -> Action | None:
    """At a step-mode pause: the remaining plan (editable), 'Continue' and 'Finish now'."""
    remaining = Plan.model_validate((record.pending or {}).get("remaining_plan") or {})
    with st.container(border=True):
        st.subheader(f"Paused after step {len(record.steps)}", anchor="step-review")
        st.caption(
            "Review what the last step found below. Edit the remaining plan if needed, then continue, "
            "or finish now and write the answer from the evidence so far."
        )
        plan, changed = _edited(remaining, filings, f"remaining-{record.run_id}-{len(record.steps)}", bench)
        left, mid, right = st.columns([3, 1, 1], vertical_alignment="center")
        with left:
            st.caption(f"{len(plan.steps)} step(s) remaining{' — edited' if changed else ''}.")
        with mid:
            go_on = st.button("Continue", type="primary", icon=":material/skip_next:", width="stretch")
        with right:
            finish = st.button("Finish now", icon=":material/flag:", width="stretch")
    total = len(record.steps) + len(plan.steps)
    if go_on:
        return Action("Continuing…", bench.continue_run, (record.run_id, plan if changed else None), total)
    if finish:
        return Action("Writing the answer…", bench.finish_early, (record.run_id,), len(record.steps))
    return None


def interrupted(record: RunRecord, bench: Any) -> Action | None:
    """A run that stopped mid-way (crash, restart, error or cancel) and its 'Resume' button."""
    if record.status != "cancelled":
        st.warning(
            "This run stopped before it finished (the app was closed or restarted, or a step failed). "
            "Resume it from its last checkpoint.",
            icon=":material/sync_problem:",
        )
    if st.button("Resume", type="primary", icon=":material/play_arrow:"):
        return Action("Resuming…", bench.continue_run, (record.run_id,), max(len(record.plan.steps), 1))
    return None


def results(record: RunRecord, bench: Any) -> Action | None:
    """Tabs: executed steps (with strategy override), the cited answer, the evidence graph, charts."""
    finished = record.status == "finished"
    names = ["Plan & steps", "Answer", "Evidence graph", "Charts"]
    # Tabs rerun on change so the graph and charts are built only when opened, at their visible size.
    steps_tab, answer_tab, graph_tab, charts_tab = st.tabs(
        names, default=names[1] if finished else None, key=f"tabs-{record.run_id}", on_change="rerun"
    )
    can_override = record.status in ("paused_after_step", "finished")
    action = None
    with steps_tab:
        if not record.steps:
            st.info("No step has run yet.", icon=":material/hourglass_empty:")
        last = len(record.steps) - 1
        for step in record.steps:
            strategy = step_panel(step, record.run_id, can_override, expanded=step.index == last)
            if strategy is not None:
                label = f"Re-running step {step.index + 1} with {strategy} retrieval…"
                args = (record.run_id, step.index, strategy)
                action = Action(label, bench.override_strategy, args, max(len(record.plan.steps), 1))
        if record.plan_history:
            with st.expander("Plan history", icon=":material/history:"):
                for version in record.plan_history:
                    changes = "\n".join(f"- {escape_markdown(c)}" for c in version.changes) or "- no change"
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
    return action
