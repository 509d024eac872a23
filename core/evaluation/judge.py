"""LLM-judged variants of the RAGAS metrics, through the workbench's chat-model factory.

`ragas` itself cannot be installed beside this project's LangChain and OpenAI versions (0.4.3 pins older
releases), so these follow its published definitions: faithfulness = supported claims / claims; answer
correctness = the judge's grade against the reference; context precision = mean precision@k over relevant
ranks; context recall = reference sentences the passages support / reference sentences.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from core.agents.base import AgentDeps
from core.agents.structured import structured_call
from core.citations import answer_body
from core.models import EvalQuestion, MetricValue, SystemAnswer
from core.prompts import (
    JUDGE_CONTEXT_HUMAN,
    JUDGE_CONTEXT_SYSTEM,
    JUDGE_CORRECTNESS_HUMAN,
    JUDGE_CORRECTNESS_SYSTEM,
    JUDGE_FAITHFULNESS_HUMAN,
    JUDGE_FAITHFULNESS_SYSTEM,
)
from core.text.sentences import split_sentences

MAX_CONTEXTS = 10


class ClaimVerdict(BaseModel):
    claim: str
    supported: bool


class FaithfulnessVerdict(BaseModel):
    claims: list[ClaimVerdict] = Field(default_factory=list)


class CorrectnessVerdict(BaseModel):
    score: float = Field(ge=0.0, le=1.0, description="1 correct, 0.5 partly, 0 not.")
    reason: str = ""


class ContextVerdict(BaseModel):
    passage_relevant: list[bool] = Field(default_factory=list, description="One per passage, in order.")
    reference_supported: list[bool] = Field(default_factory=list, description="One per reference sentence.")


def _contexts(answer: SystemAnswer) -> str:
    return "\n\n".join(
        f"[{i}] {c.text[:1500]}" for i, c in enumerate(answer.contexts[:MAX_CONTEXTS], start=1)
    )


def llm_metrics(question: EvalQuestion, answer: SystemAnswer, deps: AgentDeps) -> list[MetricValue]:
    """Faithfulness, answer correctness, context precision and recall as judged by the configured LLM.

    A judgement that fails (transport or invalid output) gives None with the reason, never a guess.
    """
    values: list[MetricValue] = []
    text = answer_body(answer.answer)[:6000]
    try:
        verdict = structured_call(
            deps,
            JUDGE_FAITHFULNESS_SYSTEM,
            JUDGE_FAITHFULNESS_HUMAN,
            {"question": question.question, "answer": text, "contexts": _contexts(answer)},
            FaithfulnessVerdict,
        )
        value = sum(c.supported for c in verdict.claims) / len(verdict.claims) if verdict.claims else None
        values.append(
            MetricValue(
                name="faithfulness", value=value, variant="llm", detail=f"{len(verdict.claims)} claims"
            )
        )
    except Exception as exc:  # noqa: BLE001 - a failed judgement is reported, the run goes on
        values.append(
            MetricValue(
                name="faithfulness", value=None, variant="llm", detail=f"judge failed: {type(exc).__name__}"
            )
        )
    try:
        grade = structured_call(
            deps,
            JUDGE_CORRECTNESS_SYSTEM,
            JUDGE_CORRECTNESS_HUMAN,
            {"question": question.question, "reference": question.answer, "answer": text},
            CorrectnessVerdict,
        )
        values.append(
            MetricValue(
                name="answer_correctness", value=grade.score, variant="llm", detail=grade.reason[:200]
            )
        )
    except Exception as exc:  # noqa: BLE001
        values.append(
            MetricValue(
                name="answer_correctness",
                value=None,
                variant="llm",
                detail=f"judge failed: {type(exc).__name__}",
            )
        )
    sentences = split_sentences(question.answer) or [question.answer]
    try:
        ctx = structured_call(
            deps,
            JUDGE_CONTEXT_SYSTEM,
            JUDGE_CONTEXT_HUMAN,
            {
                "question": question.question,
                "reference": "\n".join(f"- {s}" for s in sentences),
                "contexts": _contexts(answer),
            },
            ContextVerdict,
        )
        relevant = ctx.passage_relevant[: len(answer.contexts)]
        hits, total = 0, 0.0
        for k, rel in enumerate(relevant, start=1):
            if rel:
                hits += 1
                total += hits / k
        precision = total / hits if hits else (0.0 if relevant else None)
        supported = ctx.reference_supported[: len(sentences)]
        recall = sum(supported) / len(sentences) if supported else None
        values.append(MetricValue(name="context_precision", value=precision, variant="llm"))
        values.append(MetricValue(name="context_recall", value=recall, variant="llm"))
    except Exception as exc:  # noqa: BLE001
        for name in ("context_precision", "context_recall"):
            values.append(
                MetricValue(
                    name=name, value=None, variant="llm", detail=f"judge failed: {type(exc).__name__}"
                )
            )
    return values
