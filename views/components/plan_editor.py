"""The editable plan table: a Plan as editor rows, and the edited rows back as a Plan."""

from __future__ import annotations

import math
import uuid
from typing import Any

import pandas as pd
import streamlit as st

from core.models import ALL_SECTION_TITLES, Filing, Plan, PlanStep, section_choices

ANY = "any"
TOOLS = ["search_10k", "search_web", "calculator"]
COLUMNS = ["#", "Sub-question", "Tool", "Item", "Keywords", "Filing", "Why", "step_id"]
ORIGIN_LABELS = {"anchor": "the question as asked", "planner": "planner", "analyst": "added by you"}


def _why(step: PlanStep) -> str:
    """Who put the step in the plan and why (read-only in the grid)."""
    if step.origin == "reflection":
        return step.reason or "added by reflection"
    return ORIGIN_LABELS.get(step.origin, step.origin)


def filing_choices(filings: list[Filing], plan: Plan | None = None) -> dict[str, str]:
    """Filing id -> unique display label, including filings a plan names that left the library."""
    labels: dict[str, str] = {}
    seen: dict[str, int] = {}
    for filing in filings:
        seen[filing.label] = seen.get(filing.label, 0) + 1
    for filing in filings:
        dup = seen[filing.label] > 1
        labels[filing.filing_id] = f"{filing.label} ({filing.filing_id[:8]})" if dup else filing.label
    for step in plan.steps if plan else []:
        if step.filing_id and step.filing_id not in labels:
            labels[step.filing_id] = f"filing {step.filing_id[:8]} (not in the library)"
    return labels


def plan_frame(plan: Plan) -> pd.DataFrame:
    """One editor row per plan step, in plan order."""
    rows = [
        {
            "#": i + 1,
            "Sub-question": step.sub_question,
            "Tool": step.tool,
            "Item": step.document_section if step.document_section in ALL_SECTION_TITLES else ANY,
            "Keywords": ", ".join(step.keywords),
            "Filing": step.filing_id or ANY,
            "Why": _why(step),
            "step_id": step.step_id,
        }
        for i, step in enumerate(plan.steps)
    ]
    return pd.DataFrame(rows, columns=COLUMNS)


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA


def _text(value: Any) -> str:
    return "" if _blank(value) else str(value).strip()


def _order(value: Any, position: int) -> tuple[float, int]:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.inf
    return (math.inf if math.isnan(number) else number), position


def rows_to_plan(frame: pd.DataFrame, original: Plan) -> tuple[Plan, list[str]]:
    """The plan the edited rows describe (ordered by '#', ids kept for known rows) and what was skipped."""
    known = {step.step_id: step for step in original.steps}
    records = frame.to_dict("records")
    ordered = sorted(range(len(records)), key=lambda i: _order(records[i].get("#"), i))
    steps: list[PlanStep] = []
    used: set[str] = set()
    notes: list[str] = []
    for position in ordered:
        row = records[position]
        question = _text(row.get("Sub-question"))
        if not question:
            notes.append(f"Row {position + 1} has no sub-question and was left out.")
            continue
        step_id = _text(row.get("step_id"))
        if step_id not in known or step_id in used:
            # New rows (or a pasted copy of a row) get a fresh id so the plan history reads "added".
            step_id = f"a{uuid.uuid4().hex[:7]}"
        used.add(step_id)
        tool = _text(row.get("Tool"))
        item = _text(row.get("Item"))
        filing = _text(row.get("Filing"))
        keywords = [k.strip() for k in _text(row.get("Keywords")).split(",") if k.strip()]
        before = known.get(step_id)
        steps.append(
            PlanStep(
                step_id=step_id,
                sub_question=question,
                tool=tool if tool in TOOLS else "search_10k",  # type: ignore[arg-type]
                keywords=list(dict.fromkeys(keywords)),
                document_section=item if item in ALL_SECTION_TITLES else None,
                filing_id=None if filing in ("", ANY) else filing,
                # A kept row keeps who added it and why; a new row is the analyst's.
                origin=before.origin if before else "analyst",
                reason=before.reason if before else None,
            )
        )
    return Plan(steps=steps, rationale=original.rationale), notes


def plan_editor(plan: Plan, filings: list[Filing], key: str, disabled: bool = False) -> pd.DataFrame:
    """Show the plan as an editable table (add, delete, reorder by '#') and return the edited rows."""
    labels = filing_choices(filings, plan)
    return st.data_editor(
        plan_frame(plan),
        key=key,
        num_rows="dynamic",
        hide_index=True,
        disabled=disabled,
        width="stretch",
        column_order=["#", "Sub-question", "Why", "Tool", "Item", "Keywords", "Filing"],
        column_config={
            "#": st.column_config.NumberColumn(
                "#", help="Order of execution; change it to move a step.", min_value=1, step=1, width=45
            ),
            "Sub-question": st.column_config.TextColumn(
                "Sub-question", help="What this step should find out.", required=True, width=300
            ),
            "Tool": st.column_config.SelectboxColumn(
                "Tool", options=TOOLS, default="search_10k", required=True, width=105
            ),
            "Item": st.column_config.SelectboxColumn(
                "Item",
                options=[ANY, *section_choices([f.form for f in filings])],
                default=ANY,
                help="Restrict the search to one section ('any' searches the whole filing). A 10-K Item is "
                "searched in each filing's own section for it (Item 7 is a 10-Q's Part I Item 2); a 10-Q's, "
                "an 8-K's or a release's own sections are offered when the library holds one.",
                format_func=lambda v: "any" if v == ANY else f"{v} · {ALL_SECTION_TITLES.get(v, '')}",
                width=150,
            ),
            "Keywords": st.column_config.TextColumn("Keywords", help="Comma-separated.", width=150),
            "Why": st.column_config.TextColumn(
                "Why",
                help="Who added the step: the planner, reflection (and the gap it fills) or you.",
                disabled=True,
                width=160,
            ),
            "Filing": st.column_config.SelectboxColumn(
                "Filing",
                options=[ANY, *labels],
                default=ANY,
                format_func=lambda v: "any filing" if v == ANY else labels.get(v, str(v)),
                width=150,
            ),
        },
    )


def plan_changed(plan: Plan, original: Plan) -> bool:
    """Whether the edited plan differs from the proposed one in anything the run uses."""
    return [s.model_dump() for s in plan.steps] != [s.model_dump() for s in original.steps]
