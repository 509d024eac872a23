"""Run API over the research graph: start, review, continue, override, get and list runs (checkpointed in
SQLite or Postgres, see core.graph.checkpoints)."""

from __future__ import annotations

import dataclasses
import logging
import threading
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from langgraph.types import Command

from core.config import Settings, run_settings
from core.failures import WorkbenchError, failure_message
from core.graph.builder import build_graph
from core.graph.checkpoints import open_checkpoints
from core.graph.deps import EventCallback, ResearchDeps
from core.graph.node_support import CANCELLED_MESSAGE, RunCancelled
from core.llm import engine_name
from core.models import (
    Citation,
    Fallback,
    Plan,
    PlanVersion,
    RunEvent,
    RunRecord,
    RunSummary,
    StepRecord,
    TokenUsage,
    check_strategy,
)

log = logging.getLogger(__name__)


class RunNotFound(WorkbenchError, KeyError):
    """No checkpoint exists for this run id."""

    def __init__(self, run_id: str) -> None:
        super().__init__(f"there is no run {run_id}")
        self.run_id = run_id


class RunStateError(WorkbenchError, RuntimeError):
    """The run is not in a state that allows this action (e.g. approving a plan twice)."""


def _parse_time(value: str | None) -> datetime:
    if not value:
        return datetime.now(UTC)
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return datetime.now(UTC)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


class ResearchRunner:
    """Owns the checkpointer and the compiled graph; every method returns the run as a RunRecord."""

    def __init__(
        self,
        settings: Settings,
        deps_factory: Callable[[], ResearchDeps],
        cancel_requests: set[str] | None = None,
    ) -> None:
        self.settings = settings
        self._deps_factory = deps_factory
        self._deps: ResearchDeps | None = None
        self._lock = threading.Lock()
        # Run ids the analyst cancelled; shared by the runners of one workbench, since a run started
        # before a settings change keeps the runner it started with.
        self._cancel_requested = cancel_requests if cancel_requests is not None else set()
        self._checkpoints = open_checkpoints(settings)
        self.checkpointer = self._checkpoints.saver
        self.graph = build_graph(self.checkpointer)

    # --- plumbing -------------------------------------------------------------------------------

    def _context(self, on_event: EventCallback | None, run_id: str | None = None) -> ResearchDeps:
        with self._lock:
            if self._deps is None:
                self._deps = self._deps_factory()
        stop = (lambda: run_id in self._cancel_requested) if run_id is not None else None
        return dataclasses.replace(self._deps, on_event=on_event, should_stop=stop, run_id=run_id or "")

    @staticmethod
    def _config(run_id: str) -> dict[str, Any]:
        return {"configurable": {"thread_id": run_id}}

    def _invoke(self, run_id: str, payload: Any, on_event: EventCallback | None) -> RunRecord:
        deps = self._context(on_event, run_id)
        try:
            # durability="sync": each step's checkpoint is on disk before the next starts, so a killed
            # process resumes exactly after the last finished node.
            self.graph.invoke(payload, self._config(run_id), context=deps, durability="sync")
        except RunCancelled:
            log.info("research run %s cancelled", run_id)
        except Exception as exc:
            log.exception("research run %s failed", run_id)
            deps.emit(RunEvent(run_id=run_id, kind="error", message=failure_message("The research run", exc)))
        finally:
            with self._lock:
                self._cancel_requested.discard(run_id)  # a cancel ends with the action it stopped
        record = self.get(run_id)
        if record.pending is not None:
            deps.emit(
                RunEvent(
                    run_id=run_id,
                    kind="interrupt",
                    step_index=record.pending.get("step_index"),
                    message=record.status,
                    data=record.pending,
                )
            )
        return record

    def cancel(self, run_id: str) -> None:
        """Stop the run's current (or next queued) action before its next node; its checkpoints stay, so
        it can be resumed."""
        with self._lock:
            self._cancel_requested.add(run_id)

    def _snapshot(self, run_id: str) -> Any:
        snapshot = self.graph.get_state(self._config(run_id))
        if not snapshot.values and not snapshot.next:
            raise RunNotFound(run_id)
        return snapshot

    # --- the API --------------------------------------------------------------------------------

    def start(
        self,
        question: str,
        filing_ids: list[str],
        *,
        step_mode: bool = False,
        max_steps: int | None = None,
        run_id: str | None = None,
        on_event: EventCallback | None = None,
        started_by: str | None = None,
    ) -> RunRecord:
        """Plan the question and stop at the plan review; `started_by` names the signed-in analyst."""
        run_id = run_id or uuid.uuid4().hex[:12]
        if self.graph.get_state(self._config(run_id)).values:
            raise RunStateError(f"run {run_id} already exists")
        initial = {
            "run_id": run_id,
            "question": question.strip(),
            "filing_ids": list(filing_ids),
            "step_mode": step_mode,
            "max_steps": int(max_steps or self.settings.max_steps),
            "engine": engine_name(self.settings),
            "settings": run_settings(self.settings),
            "created_at": datetime.now(UTC).isoformat(),
            "started_by": started_by,
            "current_step": 0,
            "steps": [],
            "fallbacks": [],
            "timings": {},
            "token_usage": {},
        }
        return self._invoke(run_id, initial, on_event)

    def approve_plan(
        self, run_id: str, plan: Plan | None = None, on_event: EventCallback | None = None
    ) -> RunRecord:
        """Approve the pending plan (None = as proposed); an edited plan is diffed into the plan history."""
        self._require(run_id, "awaiting_plan_review")
        resume = {"action": "approve", "plan": plan.model_dump(mode="json") if plan is not None else None}
        return self._invoke(run_id, Command(resume=resume), on_event)

    def continue_run(
        self, run_id: str, remaining_plan: Plan | None = None, on_event: EventCallback | None = None
    ) -> RunRecord:
        """Continue after a step-mode pause (optionally with an edited remaining plan), or after a crash."""
        record = self.get(run_id)
        if record.status == "paused_after_step":
            resume = {
                "action": "continue",
                "remaining_plan": remaining_plan.model_dump(mode="json")
                if remaining_plan is not None
                else None,
            }
            return self._invoke(run_id, Command(resume=resume), on_event)
        if record.status in ("running", "failed", "cancelled"):
            # Interrupted by a crash, an error or the analyst: pick up from the last checkpoint.
            return self._invoke(run_id, None, on_event)
        raise RunStateError(f"run {run_id} is {record.status}; nothing to continue")

    def finish_early(self, run_id: str, on_event: EventCallback | None = None) -> RunRecord:
        """At a step-mode pause: skip the remaining steps and write the report."""
        self._require(run_id, "paused_after_step")
        return self._invoke(run_id, Command(resume={"action": "finish"}), on_event)

    def override_strategy(
        self, run_id: str, step_index: int, strategy: str, on_event: EventCallback | None = None
    ) -> RunRecord:
        """Re-run one executed filing-search step with the analyst's strategy (then continue or re-report)."""
        record = self.get(run_id)
        check_strategy(strategy)
        if not 0 <= step_index < len(record.steps):
            raise RunStateError(f"step {step_index} has not run in {run_id}")
        if record.steps[step_index].tool != "search_10k":
            raise RunStateError("only filing-search steps have a retrieval strategy")
        if record.status == "paused_after_step":
            resume = {"action": "override", "step_index": step_index, "strategy": strategy}
            return self._invoke(run_id, Command(resume=resume), on_event)
        if record.status == "finished":
            steps = [s.model_copy() for s in record.steps]
            steps[step_index] = steps[step_index].model_copy(update={"strategy_override": strategy})
            values = {
                "steps": [s.model_dump(mode="json") for s in steps],
                "current_step": step_index,
                "rerun_only": True,
                "resume_at": None,
                "finish_reason": None,
                "finish_requested": False,
            }
            # Fork the finished thread as if the step review had asked for the re-run.
            self.graph.update_state(self._config(run_id), values, as_node="review_step")
            deps = self._context(on_event)
            deps.emit(
                RunEvent(
                    run_id=run_id,
                    kind="strategy_chosen",
                    step_index=step_index,
                    message=f"Analyst override: {strategy}; re-running step {step_index + 1}",
                    data={"strategy": strategy, "decided_by": "analyst"},
                )
            )
            return self._invoke(run_id, None, on_event)
        raise RunStateError(f"run {run_id} is {record.status}; a strategy can be overridden after a step")

    def _require(self, run_id: str, status: str) -> RunRecord:
        record = self.get(run_id)
        if record.status != status:
            raise RunStateError(f"run {run_id} is {record.status}, not {status}")
        return record

    def get(self, run_id: str) -> RunRecord:
        """The run as stored in its latest checkpoint."""
        return record_from_snapshot(run_id, self._snapshot(run_id))

    def list_runs(self) -> list[RunSummary]:
        """Every run in the checkpointer (distinct thread ids), newest first."""
        summaries = []
        for thread_id in self._checkpoints.thread_ids():
            try:
                record = self.get(thread_id)
            except RunNotFound:
                continue
            summaries.append(
                RunSummary(
                    run_id=record.run_id,
                    question=record.question,
                    status=record.status,
                    engine=record.engine,
                    steps_done=len(record.steps),
                    started_by=record.started_by,
                    created_at=record.created_at,
                    updated_at=record.updated_at,
                )
            )
        return sorted(summaries, key=lambda s: s.updated_at, reverse=True)

    def close(self) -> None:
        """Close the checkpoint database."""
        self._checkpoints.close()


def _status(snapshot: Any) -> tuple[str, dict | None, str | None]:
    interrupts = list(getattr(snapshot, "interrupts", ()) or ())
    if interrupts:
        value = interrupts[0].value if isinstance(interrupts[0].value, dict) else {"kind": "plan_review"}
        kind = value.get("kind")
        return ("paused_after_step" if kind == "step_review" else "awaiting_plan_review"), value, None
    failed = [t for t in snapshot.tasks if getattr(t, "error", None)]
    if failed and _is_cancellation(failed[0].error):
        return "cancelled", None, CANCELLED_MESSAGE
    if failed:
        # The task's error is the exception LangGraph caught; the runner logged its traceback.
        what = f"The {str(failed[0].name).replace('_', ' ')} stage"
        return "failed", None, failure_message(what, failed[0].error)
    if not snapshot.next and not snapshot.tasks:  # the graph reached its end
        return ("finished" if snapshot.values.get("answer") is not None else "failed"), None, None
    # Tasks left, or tasks whose writes were saved but not the checkpoint after them (the process stopped in
    # between: LangGraph lists them with their writes and not as next); either way the run resumes.
    return "running", None, None


def _is_cancellation(error: object) -> bool:
    # A checkpoint keeps a task's error as the exception or as its repr.
    return isinstance(error, RunCancelled) or str(error).startswith(RunCancelled.__name__)


def record_from_snapshot(run_id: str, snapshot: Any) -> RunRecord:
    """Build the RunRecord from a LangGraph StateSnapshot (status from next/interrupts/task errors)."""
    values = snapshot.values or {}
    status, pending, error = _status(snapshot)
    return RunRecord(
        run_id=values.get("run_id", run_id),
        question=values.get("question", ""),
        filing_ids=values.get("filing_ids") or [],
        status=status,  # type: ignore[arg-type]
        engine=values.get("engine", "offline"),
        settings=values.get("settings") or {},
        step_mode=bool(values.get("step_mode")),
        max_steps=int(values.get("max_steps") or 7),
        plan=Plan.model_validate(values.get("plan") or {}),
        plan_history=[PlanVersion.model_validate(v) for v in values.get("plan_history") or []],
        current_step=int(values.get("current_step") or 0),
        steps=[StepRecord.model_validate(s) for s in values.get("steps") or []],
        answer=values.get("answer") or "",
        citations=[Citation.model_validate(c) for c in values.get("citations") or []],
        unsupported_claims=values.get("unsupported_claims") or [],
        fallbacks=[Fallback.model_validate(f) for f in values.get("fallbacks") or []],
        timings=values.get("timings") or {},
        token_usage=TokenUsage.model_validate(values.get("token_usage") or {}),
        finish_reason=values.get("finish_reason"),
        pending=pending,
        next_nodes=list(snapshot.next or ()),
        error=error,
        created_at=_parse_time(values.get("created_at")),
        updated_at=_parse_time(getattr(snapshot, "created_at", None)),
        started_by=values.get("started_by"),
    )
