"""Retrieval supervisor agent: picks vector, keyword or hybrid search and says why."""

from __future__ import annotations

from core.agents.base import AgentDeps
from core.agents.contracts import SupervisorInput
from core.agents.structured import structured_call
from core.models import StrategyDecision
from core.prompts import SUPERVISOR_HUMAN, SUPERVISOR_SYSTEM


def offline_choose_strategy(inputs: SupervisorInput, deps: AgentDeps) -> StrategyDecision:
    """The rules of core.retrieval.strategy_rules over the query's analysis."""
    from core.retrieval.analysis import analyze_query
    from core.retrieval.strategy_rules import strategy_by_rules

    decision = strategy_by_rules(analyze_query(inputs.query))
    return decision.model_copy(update={"decided_by": "offline"})


def llm_choose_strategy(inputs: SupervisorInput, deps: AgentDeps) -> StrategyDecision:
    """The LLM's choice, marked decided_by='llm'."""
    out = structured_call(
        deps,
        SUPERVISOR_SYSTEM,
        SUPERVISOR_HUMAN,
        {
            "query": inputs.query,
            "sub_question": inputs.sub_question,
            "section": inputs.document_section or "none",
        },
        StrategyDecision,
    )
    return out.model_copy(update={"decided_by": "llm", "justification": out.justification.strip()[:400]})
