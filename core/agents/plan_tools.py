"""Turn drafted steps into a valid Plan: Item names normalised, filings checked, ids assigned."""

from __future__ import annotations

import re

from core.agents.contracts import DraftStep, FilingInfo, PlanDraft
from core.models import ALL_SECTION_TITLES, ITEM_NUMBER, ITEM_TITLES, Plan, PlanStep, item_label

#: Reason of the steps that fetch the statements a figure is computed from (not passages to quote).
FIGURE_REASON = "Reads the figures asked for"
ANCHOR_REASON = "The question as asked, searched over the selected filings: the run never knows less than one plain search."

_ITEM_RE = re.compile(rf"^\s*(?:item\s*)?({ITEM_NUMBER})\s*\.?\s*$", re.IGNORECASE)
_ITEM_START = re.compile(rf"^\s*item\s*({ITEM_NUMBER})\b", re.IGNORECASE)
_TITLE_TO_ITEM = {title.lower(): item for item, title in ITEM_TITLES.items()}


def normalise_section(section: str | None) -> str | None:
    """'1a', 'ITEM 1A', 'Risk Factors' -> 'Item 1A'; another form's own section by its key ('Part II Item
    1A', 'Item 2.02') as it is; unknown or empty -> None."""
    if not section or not section.strip():
        return None
    text = section.strip()
    # A section of any form by its key ("Part II Item 1A", "Item 2.02", "Outlook").
    own = {key.lower(): key for key in ALL_SECTION_TITLES}
    if text.lower() in own:
        return own[text.lower()]
    if m := _ITEM_RE.match(text):  # "1a", "Item 1A": an Item, or None when there is no such Item
        return item_label(m.group(1))
    if (m := _ITEM_START.match(text)) and (label := item_label(m.group(1))):
        return label
    return _TITLE_TO_ITEM.get(text.lower())


def next_step_id(existing: list[str]) -> str:
    """A fresh deterministic step id: 's<n>' above every 's<k>' already used."""
    numbers = [int(m.group(1)) for s in existing if (m := re.fullmatch(r"s(\d+)", s))]
    return f"s{max(numbers, default=0) + 1}"


def ensure_step_ids(plan: Plan, reserved: list[str] | None = None) -> Plan:
    """Give steps with empty or duplicate ids a fresh id (never one in `reserved`), keeping the others."""
    seen: list[str] = []
    steps = []
    for step in plan.steps:
        step_id = step.step_id.strip() if step.step_id else ""
        if not step_id or step_id in seen:
            # A deleted step's id is reserved too: reusing it would read as an edit, not an addition.
            step_id = next_step_id(seen + [s.step_id for s in plan.steps] + list(reserved or []))
        seen.append(step_id)
        steps.append(step.model_copy(update={"step_id": step_id}))
    return Plan(steps=steps, rationale=plan.rationale)


def finalise_plan(draft: PlanDraft, filings: list[FilingInfo], max_steps: int) -> Plan:
    """A Plan from a draft: at most max_steps, sections normalised, unknown filing ids dropped."""
    known = {f.filing_id for f in filings}
    steps: list[PlanStep] = []
    for i, raw in enumerate(draft.steps[: max(1, max_steps)], start=1):
        step: DraftStep = raw
        question = step.sub_question.strip()
        if not question:
            continue
        steps.append(
            PlanStep(
                step_id=f"s{i}",
                sub_question=question,
                tool=step.tool,
                keywords=[k.strip() for k in step.keywords if k and k.strip()][:8],
                document_section=normalise_section(step.document_section)
                if step.tool == "search_10k"
                else None,
                filing_id=step.filing_id if step.filing_id in known else None,
                reason=(step.reason or "").strip()[:200] or None,
            )
        )
    return ensure_step_ids(Plan(steps=steps, rationale=draft.rationale))


def with_anchor(plan: Plan, question: str, max_steps: int) -> Plan:
    """The plan with the anchor step first (the raw question, every selected filing, no Item filter)."""
    if any(step.is_anchor for step in plan.steps):
        return plan
    anchor = PlanStep(step_id="", sub_question=question.strip(), origin="anchor", reason=ANCHOR_REASON)
    steps = [anchor, *plan.steps][: max(1, max_steps)]
    return ensure_step_ids(Plan(steps=steps, rationale=plan.rationale), [s.step_id for s in plan.steps])
