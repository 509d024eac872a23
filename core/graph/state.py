"""Graph state: plain JSON-able values so that SQLite checkpoints stay readable across versions."""

from __future__ import annotations

import operator
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
    steps: list[dict[str, Any]]  # core.models.StepRecord, index == plan position
    # After a strategy override re-runs one step, execution continues from here (None = next step).
    resume_at: int | None
    rerun_only: bool
    finish_requested: bool
    next_action: str  # the policy's last decision: "continue" | "finish"
    finish_reason: str | None
    answer: str
    citations: list[dict[str, Any]]  # core.models.Citation
    unsupported_claims: list[str]
    fallbacks: Annotated[list[dict[str, Any]], operator.add]  # core.models.Fallback
    timings: Annotated[dict[str, float], merge_timings]
    token_usage: Annotated[dict[str, Any], merge_usage]
