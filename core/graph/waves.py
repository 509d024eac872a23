"""Which planned steps may run at once: each step's dependencies, and the next wave of independent steps.

A step depends on the steps whose findings it reads:
- a calculator reads the figures of every step before it (its lookups and the searches that found pages);
- every other step (the anchor, a planner's search, an analyst's, a reflection follow-up, a read-on) starts
  from the question and the plan alone: a follow-up or read-on is added after the step it follows has run.

A wave is the longest run of consecutive steps from the next one to execute whose dependencies have all
run, at most `limit` long. Waves keep plan order, so the steps' records stay indexed by plan position.
"""

from __future__ import annotations

from core.graph.node_support import load_plan
from core.graph.state import ResearchState
from core.models import Plan

#: Steps one wave runs at once when an LLM engine is configured and the setting is unset: model calls
#: wait on the network, so independent steps overlap their waiting.
DEFAULT_LLM_PARALLEL_STEPS = 4


def step_dependencies(plan: Plan) -> list[list[int]]:
    """For each step of the plan, the positions of the steps it depends on."""
    return [list(range(index)) if step.tool == "calculator" else [] for index, step in enumerate(plan.steps)]


def next_wave(plan: Plan, start: int, limit: int) -> list[int]:
    """Positions of the steps to run together from `start`: consecutive, each with every dependency before
    `start`, at most `limit` (at least the step at `start`, when there is one)."""
    if start >= len(plan.steps):
        return []
    dependencies = step_dependencies(plan)
    wave = [start]
    for index in range(start + 1, min(len(plan.steps), start + max(1, limit))):
        if any(dep >= start for dep in dependencies[index]):
            break
        wave.append(index)
    return wave


def wave_limit(state: ResearchState) -> int:
    """How many steps the run executes at once: its `max_parallel_steps` setting, or when unset, one for the
    offline engine (its work is on this machine's cores) and DEFAULT_LLM_PARALLEL_STEPS with an LLM."""
    configured = (state.get("settings") or {}).get("max_parallel_steps")
    if configured:
        return max(1, int(configured))
    return 1 if state.get("engine", "offline") == "offline" else DEFAULT_LLM_PARALLEL_STEPS


def current_wave(state: ResearchState) -> list[int]:
    """The wave that starts at the run's current step; a re-run of one step (an analyst's override) is a wave
    of its own."""
    start = int(state.get("current_step", 0))
    if state.get("resume_at") is not None or state.get("rerun_only"):
        return [start]
    return next_wave(load_plan(state), start, wave_limit(state))
