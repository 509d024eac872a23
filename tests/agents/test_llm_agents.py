"""LLM agents through structured output on a scripted chat model; invalid output falls back to offline."""

from __future__ import annotations

from langchain_core.messages import AIMessage

from core.agents.base import AgentDeps
from core.agents.contracts import DistilInput, FilingInfo, PlannerInput
from core.agents.registry import llm_agents, offline_agents
from core.config import Settings
from core.models import Evidence
from tests.agents.chat_fakes import scripted, tool_message

FILINGS = [
    FilingInfo(filing_id="nv", label="NVIDIA 10-K FY2023", company="NVIDIA Corporation", fiscal_year=2023)
]
QUESTION = "What competition risks does NVIDIA list, and how did Data Center revenue change?"


def _deps(messages: list) -> AgentDeps:
    return AgentDeps(
        settings=Settings(llm_provider="openai", llm_model="gpt-4o-mini"), chat_model=scripted(messages)
    )


def test_llm_plan_is_validated_and_costed() -> None:
    draft = {
        "steps": [
            {
                "sub_question": "Which competition risks are listed?",
                "tool": "search_10k",
                "keywords": ["competition"],
                "document_section": "1A",
                "filing_id": "nv",
            },
            {
                "sub_question": "AMD news",
                "tool": "search_web",
                "document_section": "Item 7",
                "filing_id": "unknown",
            },
        ],
        "rationale": "two hops",
    }
    deps = _deps([tool_message("PlanDraft", draft, tokens=(1000, 200))])
    plan = llm_agents("gpt-4o-mini").plan(PlannerInput(question=QUESTION, filings=FILINGS), deps)
    assert [s.document_section for s in plan.steps] == ["Item 1A", None]  # web steps have no Item
    assert plan.steps[1].filing_id is None  # ids the model invented are dropped
    assert deps.fallbacks == []
    assert deps.usage.calls == 1 and deps.usage.input_tokens == 1000 and deps.usage.output_tokens == 200
    assert deps.usage.cost_usd > 0


def test_invalid_output_falls_back_to_offline_and_is_recorded() -> None:
    bad = tool_message("PlanDraft", {"steps": [{"tool": "search_moon"}]})
    deps = _deps([bad])
    plan = llm_agents("gpt-4o-mini").plan(PlannerInput(question=QUESTION, filings=FILINGS), deps)
    expected = offline_agents().plan(
        PlannerInput(question=QUESTION, filings=FILINGS), AgentDeps(settings=Settings())
    )
    assert plan == expected
    assert len(deps.fallbacks) == 1
    fb = deps.fallbacks[0]
    assert (fb.component, fb.used) == ("llm planner", "offline planner")
    assert "validate" in fb.reason


def test_plain_text_answer_and_exceptions_fall_back() -> None:
    deps = _deps([AIMessage(content="Sure! Here is my plan: step one...")])
    plan = llm_agents("m").plan(PlannerInput(question=QUESTION, filings=FILINGS), deps)
    assert plan.steps and deps.fallbacks[0].used == "offline planner"
    deps = _deps([])  # the scripted model has nothing left: it raises
    llm_agents("m").plan(PlannerInput(question=QUESTION, filings=FILINGS), deps)
    assert deps.fallbacks and deps.fallbacks[0].component == "llm planner"


def test_llm_cards_keep_only_known_evidence_ids() -> None:
    evidence = [Evidence(evidence_id="S1-E1", text="We face intense competition.", chunk_id="c1")]
    cards = {
        "cards": [
            {"claim": "Competition is intense.", "evidence_ids": ["S1-E1", "S9-E9"], "confidence": 0.9},
            {"claim": "Invented fact.", "evidence_ids": ["S7-E1"], "confidence": 0.9},
        ]
    }
    deps = _deps([tool_message("Distillation", cards)])
    out = llm_agents("m").distil(DistilInput(sub_question="competition", evidence=evidence), deps)
    assert [(c.claim, c.evidence_ids) for c in out.cards] == [("Competition is intense.", ["S1-E1"])]
