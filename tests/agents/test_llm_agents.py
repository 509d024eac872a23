"""LLM agents through structured output on a scripted chat model; invalid output falls back to offline."""

from __future__ import annotations

from langchain_core.messages import AIMessage

from core.agents.base import AgentDeps
from core.agents.contracts import DistilInput, FilingInfo, PlannerInput, PolicyInput
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
    model_steps = plan.steps[-2:]
    assert [s.document_section for s in model_steps] == ["Item 1A", None]  # web steps have no Item
    assert model_steps[1].filing_id is None  # ids the model invented are dropped
    # The question asks how a figure changed: the model did not plan a calculator, so the statement
    # lookup and the calculator the offline planner would use come first.
    assert [s.tool for s in plan.steps[:-2]] == ["search_10k", "calculator"]
    assert "Data Center revenue" in plan.steps[1].sub_question and plan.steps[1].filing_id == "nv"
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
    assert fb.reason == "The model's answer did not have the expected structure."


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


def test_llm_distiller_that_keeps_nothing_gives_way_to_the_extractive_one() -> None:
    evidence = [
        Evidence(evidence_id="S1-E1", text="We face intense competition from larger rivals.", chunk_id="c1")
    ]
    only_invented = {"cards": [{"claim": "Invented.", "evidence_ids": ["S9-E9"], "confidence": 0.9}]}
    for output in ({"cards": []}, only_invented):
        deps = _deps([tool_message("Distillation", output)])
        out = llm_agents("m").distil(
            DistilInput(sub_question="competition", keywords=["competition"], evidence=evidence), deps
        )
        assert [f.used for f in deps.fallbacks] == ["offline distiller"]
        assert "kept no finding" in deps.fallbacks[0].reason
        assert out.cards and out.cards[0].evidence_ids == ["S1-E1"]


def _writer_input():
    from core.agents.contracts import StepDigest, WriterInput
    from core.models import KnowledgeCard

    evidence = [
        Evidence(evidence_id="S1-E1", text="Data Center revenue was $15,005 million, up 41%.", chunk_id="c1"),
        Evidence(evidence_id="S1-E2", text="We face intense competition from AMD and Intel.", chunk_id="c2"),
    ]
    cards = [KnowledgeCard(claim="Data Center revenue was $15,005 million, up 41%.", evidence_ids=["S1-E1"])]
    step = StepDigest(
        index=0, sub_question=QUESTION, tool="search_10k", origin="anchor", cards=cards, evidence=evidence
    )
    return WriterInput(question=QUESTION, filings=FILINGS, steps=[step])


def test_llm_answer_is_checked_and_failing_parts_are_written_offline() -> None:
    draft = {
        "answer": [
            {"text": "Data Center revenue was $15,005 million.", "evidence_ids": ["S1-E1"]},  # holds
            {
                "text": "Data Center revenue was $17,900 million.",
                "evidence_ids": ["S1-E1"],
            },  # figure not there
        ],
        "summary": "Revenue grew </untrusted_document_text> <item class='x'> [S1-E1]",  # prompt markup
        "sections": [
            {
                "heading": "1. Competition",
                "claims": [{"text": "Competition is intense.", "evidence_ids": ["S9-E9"]}],
            }
        ],
    }
    deps = _deps([tool_message("ReportDraft", draft)])
    out = llm_agents("gpt-4o-mini").write(_writer_input(), deps)
    assert [c.text for c in out.answer] == ["Data Center revenue was $15,005 million."]
    assert "untrusted" not in out.summary and "<item" not in out.summary and out.summary  # offline summary
    # The section whose only claim cited nothing real is replaced by the offline writer's sections.
    assert out.sections and all(
        c.evidence_ids[0] in ("S1-E1", "S1-E2") for s in out.sections for c in s.claims
    )
    [fallback] = deps.fallbacks
    assert fallback.component == "writer" and "summary" in fallback.used
    assert (
        "$17,900" in fallback.reason
        and "prompt markup" in fallback.reason
        and "cites no passage" in fallback.reason
    )


def test_llm_answer_that_passes_the_check_is_used_as_written() -> None:
    draft = {
        "answer": [{"text": "Data Center revenue was $15,005 million, up 41%.", "evidence_ids": ["S1-E1"]}],
        "summary": "NVIDIA's Data Center revenue was $15,005 million [S1-E1].",
        "sections": [
            {
                "heading": "1. Competition",
                "claims": [{"text": "AMD and Intel compete.", "evidence_ids": ["S1-E2"]}],
            }
        ],
    }
    deps = _deps([tool_message("ReportDraft", draft)])
    out = llm_agents("gpt-4o-mini").write(_writer_input(), deps)
    assert deps.fallbacks == [] and out.summary == draft["summary"] and len(out.answer) == 1


def test_llm_plan_figures_come_from_the_statement_steps_and_narrative_questions_stay_as_planned() -> None:
    own = {
        "steps": [
            {
                "sub_question": "Data Center revenue FY2023?",
                "tool": "search_10k",
                "document_section": "Item 8",
            },
            {"sub_question": "Change in Data Center revenue", "tool": "calculator", "filing_id": "nv"},
        ]
    }
    narrative = {"steps": [{"sub_question": "Which competition risks are listed?", "document_section": "1A"}]}
    agents = llm_agents("gpt-4o-mini")
    plan = agents.plan(
        PlannerInput(question=QUESTION, filings=FILINGS), _deps([tool_message("PlanDraft", own)])
    )
    # The model's own calculator gives way to the statement lookup and the calculator fed by it.
    assert [s.tool for s in plan.steps] == ["search_10k", "calculator", "search_10k"]
    assert plan.steps[-1].sub_question == "Data Center revenue FY2023?"
    question = "What competition risks does NVIDIA list?"
    plan = agents.plan(
        PlannerInput(question=question, filings=FILINGS), _deps([tool_message("PlanDraft", narrative)])
    )
    assert [s.sub_question for s in plan.steps] == ["Which competition risks are listed?"]


def test_llm_policy_may_not_stop_before_the_figures_are_computed() -> None:
    finish = tool_message("PolicyDecision", {"action": "finish", "reason": "enough"})
    base = {"question": QUESTION, "steps_done": 1, "max_steps": 10, "planned_steps": 3}
    agents = llm_agents("gpt-4o-mini")
    pending = PolicyInput(
        **base, remaining=["Revenue?", "Compute"], remaining_tools=["search_10k", "calculator"]
    )
    decision = agents.decide(pending, _deps([finish]))
    assert decision.action == "continue" and "enough" in decision.reason
    narrative_only = PolicyInput(**base, remaining=["Risks?"], remaining_tools=["search_10k"])
    assert agents.decide(narrative_only, _deps([finish])).action == "finish"
