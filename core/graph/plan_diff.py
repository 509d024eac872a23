"""Human-readable differences between two versions of a plan, for the plan history."""

from __future__ import annotations

from core.models import Plan, PlanStep


def _label(step: PlanStep) -> str:
    text = step.sub_question if len(step.sub_question) <= 70 else step.sub_question[:69] + "…"
    return f"“{text}”"


def _field_changes(old: PlanStep, new: PlanStep, position: int) -> list[str]:
    prefix = f"Step {position} {_label(new)}"
    changes = []
    if old.sub_question != new.sub_question:
        changes.append(f"Step {position}: sub-question changed from {_label(old)} to {_label(new)}")
    if old.tool != new.tool:
        changes.append(f"{prefix}: tool changed from {old.tool} to {new.tool}")
    if old.document_section != new.document_section:
        changes.append(
            f"{prefix}: Item changed from {old.document_section or 'any'} to {new.document_section or 'any'}"
        )
    if old.keywords != new.keywords:
        added = [k for k in new.keywords if k not in old.keywords]
        removed = [k for k in old.keywords if k not in new.keywords]
        parts = ([f"added {', '.join(added)}"] if added else []) + (
            [f"removed {', '.join(removed)}"] if removed else []
        )
        changes.append(f"{prefix}: keywords {'; '.join(parts) or 'reordered'}")
    if old.filing_id != new.filing_id:
        changes.append(
            f"{prefix}: filing changed from {(old.filing_id or 'all')[:12]} to {(new.filing_id or 'all')[:12]}"
        )
    return changes


def diff_plans(old: Plan, new: Plan) -> list[str]:
    """Deleted, added, moved and edited steps (matched by step_id), in plain words."""
    old_by_id = {s.step_id: (i, s) for i, s in enumerate(old.steps)}
    new_by_id = {s.step_id: (i, s) for i, s in enumerate(new.steps)}
    changes: list[str] = []
    for step_id, (i, step) in old_by_id.items():
        if step_id not in new_by_id:
            changes.append(f"Deleted step {i + 1} {_label(step)}")
    for step_id, (i, step) in new_by_id.items():
        if step_id not in old_by_id:
            where = f" in {step.document_section}" if step.document_section else ""
            changes.append(f"Added step {i + 1} {_label(step)} ({step.tool}{where})")
    kept_old = [s.step_id for s in old.steps if s.step_id in new_by_id]
    kept_new = [s.step_id for s in new.steps if s.step_id in old_by_id]
    if kept_old != kept_new:
        for step_id in kept_new:
            before, after = kept_old.index(step_id), kept_new.index(step_id)
            if before != after:
                changes.append(
                    f"Moved step {_label(new_by_id[step_id][1])} from position {old_by_id[step_id][0] + 1} "
                    f"to {new_by_id[step_id][0] + 1}"
                )
    for step_id in kept_new:
        changes += _field_changes(old_by_id[step_id][1], new_by_id[step_id][1], new_by_id[step_id][0] + 1)
    if old.rationale != new.rationale and new.rationale:
        changes.append("Plan rationale edited")
    return changes
