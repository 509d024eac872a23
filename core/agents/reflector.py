"""Reflector agent: a research note per step (confirmed facts, open questions, conflicts)."""

from __future__ import annotations

from core.agents.base import AgentDeps
from core.agents.contracts import ReflectInput
from core.agents.structured import structured_call
from core.models import ResearchNote
from core.prompts import REFLECTOR_HUMAN, REFLECTOR_SYSTEM
from core.tools.sentences import content_terms

_CONFIRMED = 0.5


def _short(text: str, limit: int = 220) -> str:
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def offline_reflect(inputs: ReflectInput, deps: AgentDeps) -> ResearchNote:
    """Confirmed = confident cards; open = sub-question terms no evidence mentions; conflicts from cards."""
    where = inputs.document_section or "the selected filings"
    confirmed = [_short(c.claim) for c in inputs.cards if c.confidence >= _CONFIRMED]
    conflicts = [c.contradiction for c in inputs.cards if c.contradiction]
    open_questions: list[str] = []
    if not inputs.cards:
        reason = f" ({inputs.evidence_note})" if inputs.evidence_note else ""
        open_questions.append(f"Nothing in {where} answered: {inputs.sub_question}{reason}")
    else:
        found = set()
        for ev in inputs.evidence:
            found |= set(content_terms(ev.text))
        missing = [k for k in inputs.keywords if not set(content_terms(k)) <= found]
        if missing:
            open_questions.append("Not found in the evidence: " + ", ".join(missing))
        if not confirmed:
            open_questions.append("Only weakly supported claims were found; the answer may be incomplete.")
    summary = (
        f"{len(inputs.cards)} claim(s) from {len(inputs.evidence)} passage(s) in {where}"
        + (f"; {len(conflicts)} conflict(s)" if conflicts else "")
        + "."
    )
    return ResearchNote(
        confirmed_facts=confirmed, open_questions=open_questions, conflicts=conflicts, summary=summary
    )


def llm_reflect(inputs: ReflectInput, deps: AgentDeps) -> ResearchNote:
    """LLM research note."""
    cards = "\n".join(
        f"- {c.claim} (evidence {', '.join(c.evidence_ids)}, confidence {c.confidence:.2f})"
        + (f" CONFLICT: {c.contradiction}" if c.contradiction else "")
        for c in inputs.cards
    )
    return structured_call(
        deps,
        REFLECTOR_SYSTEM,
        REFLECTOR_HUMAN,
        {
            "sub_question": inputs.sub_question,
            "section": inputs.document_section or "(any)",
            "note": inputs.evidence_note or "(none)",
            "cards": cards or "(no cards)",
        },
        ResearchNote,
    )
