"""The set of agents a run uses: offline, or LLM with a per-call fallback to offline."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from core.agents.base import AgentDeps
from core.agents.contracts import (
    DistilInput,
    Distillation,
    PlannerInput,
    PolicyInput,
    ReflectInput,
    ReportDraft,
    RewriteInput,
    RewrittenQuery,
    SupervisorInput,
    WriterInput,
)
from core.agents.distiller import llm_distil, offline_distil
from core.agents.planner import llm_plan, offline_plan
from core.agents.policy import llm_decide, offline_decide
from core.agents.reflector import llm_reflect, offline_reflect
from core.agents.rewriter import llm_rewrite, offline_rewrite
from core.agents.structured import with_fallback
from core.agents.supervisor import llm_choose_strategy, offline_choose_strategy
from core.agents.writer import llm_write, offline_write
from core.models import Plan, PolicyDecision, ResearchNote, StrategyDecision


@dataclass(frozen=True)
class Agents:
    """One function per role, `(inputs, deps) -> model`; nodes call these without knowing the engine."""

    engine: str
    plan: Callable[[PlannerInput, AgentDeps], Plan]
    rewrite: Callable[[RewriteInput, AgentDeps], RewrittenQuery]
    choose_strategy: Callable[[SupervisorInput, AgentDeps], StrategyDecision]
    distil: Callable[[DistilInput, AgentDeps], Distillation]
    reflect: Callable[[ReflectInput, AgentDeps], ResearchNote]
    decide: Callable[[PolicyInput, AgentDeps], PolicyDecision]
    write: Callable[[WriterInput, AgentDeps], ReportDraft]


def offline_agents() -> Agents:
    """The deterministic, rule-based and extractive agents."""
    return Agents(
        engine="offline",
        plan=offline_plan,
        rewrite=offline_rewrite,
        choose_strategy=offline_choose_strategy,
        distil=offline_distil,
        reflect=offline_reflect,
        decide=offline_decide,
        write=offline_write,
    )


def llm_agents(model_name: str) -> Agents:
    """LLM agents; each falls back to its offline twin (recorded as a Fallback) when the LLM fails."""
    return Agents(
        engine=f"llm:{model_name}",
        plan=with_fallback("planner", llm_plan, offline_plan),
        rewrite=with_fallback("query rewriter", llm_rewrite, offline_rewrite),
        choose_strategy=with_fallback("retrieval supervisor", llm_choose_strategy, offline_choose_strategy),
        distil=with_fallback("distiller", llm_distil, offline_distil),
        reflect=with_fallback("reflector", llm_reflect, offline_reflect),
        decide=with_fallback("policy", llm_decide, offline_decide),
        write=with_fallback("writer", llm_write, offline_write),
    )
