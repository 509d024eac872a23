"""LLM-judged metric variants on a scripted chat model: values after RAGAS's definitions, failures as None."""

from __future__ import annotations

from core.agents.base import AgentDeps
from core.config import Settings
from core.evaluation.judge import llm_metrics
from core.models import EvalContext, EvalQuestion, SystemAnswer
from tests.agents.chat_fakes import scripted, tool_message

QUESTION = EvalQuestion(
    qid="q", question="What was revenue?", answer="Revenue was $10 million. It grew 5%.", filing="a.pdf"
)
ANSWER = SystemAnswer(
    system="deep",
    answer="## Answer\n\n- Revenue was $10 million [1]\n",
    contexts=[
        EvalContext(chunk_id="c1", filing_id="f", page=1, text="Revenue was $10 million."),
        EvalContext(chunk_id="c2", filing_id="f", page=2, text="Unrelated."),
    ],
)


def _deps(messages) -> AgentDeps:
    return AgentDeps(settings=Settings(llm_provider="openai"), chat_model=scripted(messages))


def test_llm_judged_metrics_follow_ragas_definitions():
    deps = _deps(
        [
            tool_message(
                "FaithfulnessVerdict",
                {
                    "claims": [
                        {"claim": "Revenue was $10 million", "supported": True},
                        {"claim": "x", "supported": False},
                    ]
                },
            ),
            tool_message("CorrectnessVerdict", {"score": 0.5, "reason": "States revenue, not growth."}),
            tool_message(
                "ContextVerdict", {"passage_relevant": [False, True], "reference_supported": [True, False]}
            ),
        ]
    )
    values = {m.name: m for m in llm_metrics(QUESTION, ANSWER, deps)}
    assert all(m.variant == "llm" for m in values.values())
    assert values["faithfulness"].value == 0.5
    assert values["answer_correctness"].value == 0.5 and "growth" in values["answer_correctness"].detail
    assert values["context_precision"].value == 0.5  # the one relevant passage sits at rank 2
    assert values["context_recall"].value == 0.5  # one of two reference sentences supported


def test_a_failed_judgement_is_none_with_its_reason():
    deps = _deps(["not a tool call", "still not", "nope"])
    values = {m.name: m for m in llm_metrics(QUESTION, ANSWER, deps)}
    assert set(values) == {"faithfulness", "answer_correctness", "context_precision", "context_recall"}
    assert all(m.value is None and "judge failed" in m.detail for m in values.values())
