"""Per-step reasoning nodes and the report: distil_evidence, reflect_on_step, decide_next, write_report."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from core.agents.clauses import asks_beyond_figures
from core.agents.contracts import DistilInput, PolicyInput, ReflectInput, StepDigest
from core.agents.plan_tools import FIGURE_REASON
from core.agents.reflector import FIGURE_NOT_FOUND, evidence_gaps, read_on_gap, reason_gap
from core.finance.question import asks_why
from core.graph.answering import compose_answer
from core.graph.deps import ResearchDeps
from core.graph.node_support import (
    agent_outputs,
    current_record,
    dump_steps,
    emit,
    instrumented,
    load_plan,
    load_steps,
    report_fallbacks,
    steps_update,
)
from core.graph.nodes_plan import filing_infos
from core.graph.nodes_step import unread_passages_after
from core.graph.plan_growth import add_follow_ups, handled_gaps
from core.graph.state import ResearchState
from core.graph.waves import current_wave
from core.models import Chunk, Gap, Plan, PlanStep, PolicyDecision, ResearchNote, StepRecord
from core.retrieval.routing import company_forms
from core.text.sentences import jaccard
from core.text.tokens import content_terms


def _is_new(claim: str, known: list[set[str]]) -> bool:
    terms = set(content_terms(claim))
    return all(jaccard(terms, k) < 0.55 for k in known)


def _read_on_topic(rec: StepRecord, earlier: list[StepRecord]) -> list[str]:
    """For a step that reads on past earlier hits, the claims drawn from those hits: what the passages that
    follow continue (a lawsuit's later history shares none of the question's words, but the lawsuit's)."""
    if not rec.reads_on_from:
        return []
    started = set(rec.reads_on_from)
    return [
        card.claim
        for step in earlier
        for card in step.cards
        if any(ev.chunk_id in started and ev.evidence_id in card.evidence_ids for ev in step.evidence)
    ]


@instrumented
def distil_evidence(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict[str, Any]:
    """Knowledge cards from the step's evidence (calculator steps already carry their card)."""
    deps = runtime.context
    index, steps, rec = current_record(state)
    known_claims = [c.claim for s in steps[:index] for c in s.cards]
    adeps = deps.agent_deps(index)
    cards = rec.cards
    if rec.tool != "calculator":
        cards = deps.agents.distil(
            DistilInput(
                sub_question=rec.sub_question,
                keywords=[*rec.keywords, *_read_on_topic(rec, steps[:index])],
                evidence=rec.evidence,
                known_claims=known_claims,
                exclude_terms=[f.company for f in filing_infos(deps, list(state.get("filing_ids") or []))],
            ),
            adeps,
        ).cards
    known = [set(content_terms(c)) for c in known_claims]
    new_claims = sum(1 for c in cards if c.evidence_ids and _is_new(c.claim, known))
    steps[index] = rec.model_copy(update={"cards": cards, "new_claims": new_claims})
    return steps_update(runtime, state, adeps, "distil_evidence", steps)


def _looks_up_figures(rec: StepRecord) -> bool:
    """A step after figures only: the planner's statement lookups, reflection's search for a calculator input
    not found, or a question that asks for figures and nothing else (not why they changed)."""
    reason = rec.reason or ""
    if reason.startswith(FIGURE_REASON) or (rec.origin == "reflection" and reason.endswith(FIGURE_NOT_FOUND)):
        return True
    return not (asks_why(rec.sub_question) or asks_beyond_figures(rec.sub_question))


@instrumented
def reflect_on_step(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict[str, Any]:
    """The step's research note: confirmed facts, open questions, conflicts."""
    deps = runtime.context
    index, steps, rec = current_record(state)
    adeps = deps.agent_deps(index)
    infos = filing_infos(deps, [rec.filing_id] if rec.filing_id else [])
    inputs = ReflectInput(
        sub_question=rec.sub_question,
        keywords=rec.keywords,
        document_section=rec.document_section,
        cards=rec.cards,
        evidence=rec.evidence,
        evidence_note=rec.evidence_note,
        tool=rec.tool,
        filing_id=rec.filing_id,
        company=company_forms(infos[0].company)[0] if infos and company_forms(infos[0].company) else None,
        missing=rec.missing,
        reads_on=bool(rec.reads_on_from),
        looks_up_figures=_looks_up_figures(rec),
    )
    note = deps.agents.reflect(inputs, adeps)
    # Gaps the evidence itself shows (a calculator input not found, an empty Item, a passage that runs on)
    # are followed up whichever engine wrote the note.
    known = {g.description for g in note.gaps}
    read_on = read_on_gap(inputs)
    unread = unread_passages_after(deps, read_on.reads_on_from, steps[: index + 1]) if read_on else []
    if read_on is not None and not unread:
        read_on = None  # nothing follows the best passages that the run has not read (or no catalog)
    elif read_on is not None:
        read_on = named_by_what_it_reads(read_on, unread)
    # A why asked and no reason read yet for the figure: the filing's explanation, searched in MD&A.
    passages = {e.evidence_id: e.text for s in steps[: index + 1] for e in s.evidence}
    claims = [
        (c.claim, passages.get(c.evidence_ids[0], "") if c.evidence_ids else "")
        for s in steps[: index + 1]
        for c in s.cards
    ]
    why = reason_gap(inputs, claims)
    if why is not None and why.reads_on_from:
        if unread_passages_after(deps, why.reads_on_from, steps[: index + 1]):
            why = why.model_copy(update={"document_section": None})  # the read-on stays in the table's Item
        else:
            why = why.model_copy(update={"reads_on_from": []})  # nothing unread after the tables: search
    structural = [
        g
        for g in [*evidence_gaps(inputs), *([read_on] if read_on else []), *([why] if why else [])]
        if g.description not in known
    ]
    if structural:
        note = note.model_copy(update={"gaps": [*note.gaps, *structural]})
    steps[index] = rec.model_copy(update={"note": note})
    return steps_update(runtime, state, adeps, "reflect_on_step", steps)


def named_by_what_it_reads(read_on: Gap, unread: list[Chunk]) -> Gap:
    """A read-on gap named by the passages it would read: a later step whose best passages are on the same
    pages reads on when passages an earlier read-on stopped short of remain ("Accounting for Loss
    Contingencies" after the last case the first read-on reached), and not when it would read the same."""
    first = unread[0]
    where = f"p. {first.page}, {first.section}" if first.section else f"p. {first.page}"
    return read_on.model_copy(
        update={"description": f"{read_on.description}: {len(unread)} unread passage(s) from {where}"}
    )


def wave_note(records: list[StepRecord]) -> ResearchNote | None:
    """The notes of steps run together as one note for the policy (a step alone: its own note); each gap
    names the filing of the step that found it."""
    notes = [(r, r.note) for r in records if r.note is not None]
    if not notes:
        return None
    gaps = [g.model_copy(update={"filing_id": g.filing_id or r.filing_id}) for r, n in notes for g in n.gaps]
    if len(notes) == 1:
        return notes[0][1].model_copy(update={"gaps": gaps})
    return ResearchNote(
        confirmed_facts=[f for _, n in notes for f in n.confirmed_facts],
        open_questions=[q for _, n in notes for q in n.open_questions],
        conflicts=[c for _, n in notes for c in n.conflicts],
        summary=" ".join(n.summary for _, n in notes if n.summary),
        gaps=gaps,
    )


def _calculation_to_rerun(plan: Plan, records: list[StepRecord], follow_ups: list[Gap]) -> PlanStep | None:
    """The wave's calculator step, when a follow-up searches for one of its missing inputs."""
    wanted = {g.description for g in follow_ups}
    for record in records:
        if record.tool == "calculator" and record.note and wanted & {g.description for g in record.note.gaps}:
            return plan.steps[record.index]
    return None


@instrumented
def decide_next(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict[str, Any]:
    """Policy after a step, or after the steps of a wave: continue with the next planned step or finish
    (plan done, max steps, diminishing returns); gaps become follow-up steps after the wave."""
    deps = runtime.context
    index, steps, _ = current_record(state)
    wave = current_wave(state)
    last = wave[-1]
    records = [steps[i] for i in wave]
    plan = load_plan(state)
    adeps = deps.agent_deps(index)
    resume_at = state.get("resume_at")
    next_index = int(resume_at) if resume_at is not None else last + 1
    if state.get("rerun_only"):
        decision = PolicyDecision(
            action="finish", reason=f"Re-ran step {index + 1} with the analyst's strategy."
        )
    else:
        remaining = plan.steps[next_index:]
        done = steps[:next_index]
        decision = deps.agents.decide(
            PolicyInput(
                question=state["question"],
                steps_done=len(done),
                max_steps=int(state.get("max_steps") or deps.settings.max_steps),
                remaining=[s.sub_question for s in remaining],
                remaining_tools=[s.tool for s in remaining],
                new_claims_per_step=[s.new_claims for s in done],
                tools_done=[s.tool for s in done],
                last_note=wave_note(records),
                planned_steps=len(plan.steps),
                handled_gaps=handled_gaps(plan),
            ),
            adeps,
        )
    steps[last] = steps[last].model_copy(update={"decision": decision})
    report_fallbacks(runtime, state, adeps, "decide_next")
    update: dict[str, Any] = {
        "steps": dump_steps(steps),
        "resume_at": None,
        "next_action": decision.action,
        **agent_outputs(adeps),
    }
    if decision.follow_ups and not state.get("rerun_only"):
        rerun = _calculation_to_rerun(plan, records, decision.follow_ups)
        update |= add_follow_ups(state, plan, last, decision.follow_ups, rerun)
        for gap in decision.follow_ups:
            emit(
                runtime,
                state,
                "node_finished",
                node="decide_next",
                step_index=last,
                message=f"Added by reflection: {gap.description}",
            )
    if decision.action == "finish":
        update["finish_reason"] = decision.reason
        update["rerun_only"] = False
    else:
        update["current_step"] = next_index
    return update


def _digests(state: ResearchState) -> list[StepDigest]:
    return [
        StepDigest(
            index=s.index,
            sub_question=s.sub_question,
            tool=s.tool,
            origin=s.origin,
            reason=s.reason,
            query=s.rewritten_query,
            document_section=s.document_section,
            strategy=s.strategy,
            candidates=len(s.candidates),
            cards=s.cards,
            evidence=s.evidence,
            evidence_note=s.evidence_note,
            note=s.note,
            route_note=s.route_note,
            reads_on=bool(s.reads_on_from),
        )
        for s in load_steps(state)
    ]


@instrumented
def write_report(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict[str, Any]:
    """The cited answer, grouped by sub-question; every citation is checked against the catalog."""
    deps = runtime.context
    adeps = deps.agent_deps()
    digests = _digests(state)
    filings = filing_infos(deps, list(state.get("filing_ids") or []))
    checked = compose_answer(
        state["question"], digests, filings, deps.agents, adeps, catalog=getattr(deps.store, "catalog", None)
    )
    report_fallbacks(runtime, state, adeps, "write_report")
    for problem in checked.problems:
        emit(
            runtime,
            state,
            "error",
            node="write_report",
            message=f"citation [{problem.number}] dropped: {problem.reason}",
        )
    reason = state.get("finish_reason") or "The plan is complete."
    emit(
        runtime,
        state,
        "run_finished",
        node="write_report",
        message=reason,
        data={"citations": len(checked.citations), "unsupported_claims": len(checked.unsupported_claims)},
    )
    return {
        "answer": checked.answer,
        "citations": [c.model_dump(mode="json") for c in checked.citations],
        "unsupported_claims": checked.unsupported_claims,
        "finish_reason": reason,
        "finish_requested": False,
        **agent_outputs(adeps),
    }
