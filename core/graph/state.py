"""Graph state: plain JSON-able values so that SQLite checkpoints stay readable across versions."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict


def merge_timings(left: dict[str, float] | None, right: dict[str, float] | None) -> dict[str, float]:
    """Reducer: add up seconds per node name."""
    out = dict(left or {})
    for name, seconds in (right or {}).items():
        out[name] = round(out.get(name, 0.0) + seconds, 4)
    return out


def merge_usage(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    """Reducer: add up token usage dicts (see core.models.TokenUsage)."""
    from core.models import TokenUsage

    total = TokenUsage.model_validate(left or {}).add(TokenUsage.model_validate(right or {}))
    return total.model_dump()


def merge_fallbacks(
    left: list[dict[str, Any]] | None, right: list[dict[str, Any]] | None
) -> list[dict[str, Any]]:
    """Reducer: fallbacks in the order recorded; an installation's documented default (`routine`, e.g. no
    cross-encoder installed) is stated once, even when steps run together each meet it."""
    out = list(left or [])
    stated = {(f.get("component"), f.get("used")) for f in out if f.get("routine")}
    for fallback in right or []:
        key = (fallback.get("component"), fallback.get("used"))
        if fallback.get("routine"):
            if key in stated:
                continue
            stated.add(key)
        out.append(fallback)
    return out


def merge_steps(
    left: list[dict[str, Any]] | None, right: list[dict[str, Any]] | None
) -> list[dict[str, Any]]:
    """Reducer: step records by their index, the newer record of an index replacing the older. A node that
    writes every record (a step run alone) replaces them all; steps run together each write their own; an
    empty list (a new plan) clears them."""
    if right == []:
        return []
    by_index = {int(s["index"]): s for s in left or []}
    by_index.update({int(s["index"]): s for s in right or []})
    return [by_index[i] for i in sorted(by_index)]


class ResearchState(TypedDict, total=False):
    """Everything a run knows; pydantic models are stored as dicts (model_dump(mode='json'))."""

    run_id: str
    question: str
    filing_ids: list[str]
    step_mode: bool
    max_steps: int
    engine: str
    settings: dict[str, Any]  # config.run_settings: what the run started with, never the API key
    created_at: str
    started_by: str | None  # the signed-in analyst who asked (None where sign-in is not configured)
    plan: dict[str, Any]  # core.models.Plan
    plan_history: list[dict[str, Any]]  # core.models.PlanVersion
    current_step: int
    steps: Annotated[list[dict[str, Any]], merge_steps]  # core.models.StepRecord, index == plan position
    # After a strategy override re-runs one step, execution continues from here (None = next step).
    resume_at: int | None
    rerun_only: bool
    finish_requested: bool
    next_action: str  # the policy's last decision: "continue" | "finish"
    finish_reason: str | None
    answer: str
    citations: list[dict[str, Any]]  # core.models.Citation
    unsupported_claims: list[str]
    fallbacks: Annotated[list[dict[str, Any]], merge_fallbacks]  # core.models.Fallback
    timings: Annotated[dict[str, float], merge_timings]
    token_usage: Annotated[dict[str, Any], merge_usage]
