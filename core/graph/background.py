"""Research actions on worker threads: a run keeps going when the page that started it goes away.

The browser only asks for an action (plan, approve, continue, finish, re-run a step) and watches. Each
action runs on a bounded pool of workers, one action per run at a time; its events are kept in memory so
any page, in any session, can re-attach and show live progress. The run itself is in the checkpointer as
always: if the process dies, the run is resumed from its last checkpoint like any interrupted run.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal

from core.failures import WorkbenchError, failure_message
from core.models import RunEvent, RunRecord

log = logging.getLogger(__name__)

#: Finished actions remembered (for their last events and outcome) before the oldest is forgotten.
KEEP_FINISHED = 64

LiveState = Literal["queued", "running", "done", "failed"]


class RunBusy(WorkbenchError, RuntimeError):
    """An action of this run is already queued or running."""


@dataclass
class LiveRun:
    """One action of a run on a worker: its progress label, events so far and outcome."""

    run_id: str
    label: str
    total_steps: int
    state: LiveState = "queued"
    events: list[RunEvent] = field(default_factory=list)
    writing: RunEvent | None = None  # the answer the model is writing now, if it is writing one
    message: str = ""  # the outcome in a sentence, once done
    status: str | None = None  # the run's status when the action ended
    submitted_at: float = field(default_factory=time.time)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def active(self) -> bool:
        return self.state in ("queued", "running")

    def add(self, event: RunEvent) -> None:
        """Keep an event; a model's answer in progress replaces the previous one and is not an event of
        the log (it ends with the next event)."""
        with self._lock:
            if event.kind == "model_writing":
                self.writing = event
                return
            self.writing = None
            self.events.append(event)

    def events_since(self, index: int) -> list[RunEvent]:
        with self._lock:
            return list(self.events[index:])


class BackgroundRuns:
    """A bounded pool of research workers and the live state of what they run."""

    def __init__(self, max_workers: int) -> None:
        self.max_workers = max(1, max_workers)
        self._pool = ThreadPoolExecutor(max_workers=self.max_workers, thread_name_prefix="research")
        self._live: dict[str, LiveRun] = {}
        self._lock = threading.Lock()

    def submit(
        self,
        run_id: str,
        label: str,
        total_steps: int,
        call: Callable[..., RunRecord],
        /,
        *args: Any,
        **kwargs: Any,
    ) -> LiveRun:
        """Queue `call(*args, on_event=..., **kwargs)` for run `run_id`; raises RunBusy if one is active."""
        with self._lock:
            current = self._live.get(run_id)
            if current is not None and current.active:
                raise RunBusy(f"run {run_id} is already {current.state}")
            live = LiveRun(run_id=run_id, label=label, total_steps=max(1, total_steps))
            self._live[run_id] = live
            self._forget_old()
        self._pool.submit(self._work, live, call, args, kwargs)
        return live

    def _work(self, live: LiveRun, call: Callable[..., RunRecord], args: tuple, kwargs: dict) -> None:
        live.state = "running"
        try:
            record = call(*args, on_event=live.add, **kwargs)
        except Exception as exc:  # a worker never dies with its exception unseen
            log.exception("background action %r of run %s failed", live.label, live.run_id)
            live.message = describe_action_failure(live.label, exc)
            live.state = "failed"
            return
        live.status = record.status
        live.message = record.error or record.status.replace("_", " ")
        live.state = "done"

    def _forget_old(self) -> None:
        finished = [run_id for run_id, live in self._live.items() if not live.active]
        for run_id in finished[: max(0, len(finished) - KEEP_FINISHED)]:
            del self._live[run_id]

    def get(self, run_id: str) -> LiveRun | None:
        """The run's latest action (active or finished), if this process ran one."""
        with self._lock:
            return self._live.get(run_id)

    def active(self) -> dict[str, LiveRun]:
        """Runs with an action queued or running, by run id."""
        with self._lock:
            return {run_id: live for run_id, live in self._live.items() if live.active}

    def shutdown(self) -> None:
        """Stop taking actions and wait for running ones (queued ones are dropped)."""
        self._pool.shutdown(wait=True, cancel_futures=True)


def describe_action_failure(label: str, exc: Exception) -> str:
    """An action that failed before or outside the graph (a bad state, a missing run), in a sentence."""
    from core.graph.runner import RunNotFound, RunStateError

    what = label.rstrip("…. ")
    if isinstance(exc, RunNotFound | RunStateError):
        return f"{what} was not possible: {exc.message}."
    return f"{failure_message(what, exc)}."
