"""Per-step gathering nodes: rewrite_query, choose_strategy, retrieve_evidence, rerank_evidence,
search_web, calculate."""

from __future__ import annotations

import logging
from typing import Any

from langgraph.runtime import Runtime

from core.agents.contracts import RewriteInput, SupervisorInput
from core.failures import failure_message
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
from core.graph.state import ResearchState
from core.models import (
    ANCHOR_TOP_N,
    CandidateRef,
    Chunk,
    Evidence,
    Fallback,
    ScoredChunk,
    StepRecord,
    StrategyDecision,
    evidence_id,
)
from core.retrieval.facts import fact_lookup, parts_lookup
from core.retrieval.ranking import keep_filter_first
from core.retrieval.rerank import rerank_pool
from core.retrieval.routing import company_forms
from core.tools.calculator import run_calculator
from core.tools.web_search import search_web as web_search_tool

log = logging.getLogger(__name__)


def _company(deps: ResearchDeps, state: ResearchState, filing_id: str | None) -> str | None:
    ids = [filing_id] if filing_id else list(state.get("filing_ids") or [])
    infos = filing_infos(deps, ids[:1]) if len(ids) == 1 else []
    return infos[0].company if infos else None


@instrumented
def rewrite_query(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict[str, Any]:
    """Start the step's record and rewrite its sub-question into a search query using earlier findings."""
    deps = runtime.context
    index = int(state.get("current_step", 0))
    step = load_plan(state).steps[index]
    steps = load_steps(state)
    previous = steps[index] if index < len(steps) else None
    earlier = steps[:index]
    adeps = deps.agent_deps(index)
    if step.tool == "calculator" or step.is_anchor or step.reads_on_from:
        # The anchor searches the question exactly as asked, like one plain search would; a read-on step
        # does not search, its question ranks the passages it reads.
        query = step.sub_question
    else:
        out = deps.agents.rewrite(
            RewriteInput(
                question=state["question"],
                sub_question=step.sub_question,
                keywords=step.keywords,
                document_section=step.document_section,
                earlier_claims=[c.claim for s in earlier for c in s.cards],
                earlier_keywords=[k for s in earlier for k in s.keywords],
                company=_company(deps, state, step.filing_id),
            ),
            adeps,
        )
        query = out.query
    record = StepRecord(
        index=index,
        step_id=step.step_id,
        sub_question=step.sub_question,
        tool=step.tool,
        document_section=step.document_section,
        filing_id=step.filing_id,
        keywords=step.keywords,
        origin=step.origin,
        reason=step.reason,
        reads_on_from=step.reads_on_from,
        rewritten_query=query,
        strategy_override=previous.strategy_override if previous else None,
        attempt=(previous.attempt + 1) if previous else 1,
    )
    steps = [*steps[:index], record, *steps[index + 1 :]]
    return steps_update(runtime, state, adeps, "rewrite_query", steps)


@instrumented
def choose_strategy(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict[str, Any]:
    """The supervisor picks vector/keyword/hybrid with a reason; an analyst override wins."""
    deps = runtime.context
    index, steps, rec = current_record(state)
    adeps = deps.agent_deps(index)
    if rec.reads_on_from:
        # Nothing to choose: the step reads the passages that follow earlier hits.
        steps[index] = rec.model_copy(
            update={"justification": READ_ON_NOTE, "decided_by": "offline", "strategy": None}
        )
        emit(
            runtime, state, "strategy_chosen", node="choose_strategy", step_index=index, message=READ_ON_NOTE
        )
        return {"steps": dump_steps(steps)}
    if rec.strategy_override:
        decision = StrategyDecision(
            strategy=rec.strategy_override,  # type: ignore[arg-type]
            justification=f"Analyst override: {rec.strategy_override} (re-run #{rec.attempt - 1}).",
            decided_by="analyst",
        )
    else:
        decision = deps.agents.choose_strategy(
            SupervisorInput(
                query=rec.rewritten_query,
                sub_question=rec.sub_question,
                document_section=rec.document_section,
            ),
            adeps,
        )
    steps[index] = rec.model_copy(
        update={
            "strategy": decision.strategy,
            "justification": decision.justification,
            "decided_by": decision.decided_by,
        }
    )
    report_fallbacks(runtime, state, adeps, "choose_strategy")
    emit(
        runtime,
        state,
        "strategy_chosen",
        node="choose_strategy",
        step_index=index,
        message=decision.justification,
        data={**decision.model_dump(mode="json"), "query": rec.rewritten_query},
    )
    return {"steps": dump_steps(steps), **agent_outputs(adeps)}


@instrumented
def retrieve_evidence(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict[str, Any]:
    """First-stage search of the filings (k candidates, Item and filing filters) with the chosen strategy."""
    deps = runtime.context
    index, steps, rec = current_record(state)
    filings = [rec.filing_id] if rec.filing_id else (list(state.get("filing_ids") or []) or None)
    update: dict[str, Any] = {}
    try:
        if rec.reads_on_from:
            steps[index] = _read_on(deps, rec, load_steps(state)[:index])
            return {"steps": dump_steps(steps), **update}
        if deps.retriever is None:
            raise RuntimeError("no retriever configured")
        result = deps.retriever.search(
            rec.rewritten_query,
            strategy=rec.strategy or "auto",
            section=rec.document_section,
            filings=filings,
            k=deps.settings.k,
            rerank=False,
        )
        pool = result.candidates or result.chunks
        rec = rec.model_copy(
            update={
                "pool": pool,
                "candidates": [
                    CandidateRef(
                        chunk_id=c.chunk.chunk_id,
                        section=c.chunk.section,
                        page=c.chunk.page,
                        score=c.score,
                        scores=c.scores,
                        widened=c.widened,
                    )
                    for c in pool
                ],
                "widened": result.widened,
                "widen_note": result.widen_note,
                "route_note": result.route_note,
            }
        )
    except Exception as exc:  # a failed search leaves the step empty, the run goes on
        log.exception("search of step %d failed", index + 1)
        message = failure_message("The search", exc) + ", so this step has no evidence"
        rec = rec.model_copy(update={"errors": [*rec.errors, message]})
        emit(runtime, state, "error", node="retrieve_evidence", step_index=index, message=rec.errors[-1])
    steps[index] = rec
    return {"steps": dump_steps(steps), **update}


#: Passages a read-on step reads after each passage it starts from; in an Item of at most
#: `SHORT_ITEM_PASSAGES` passages (Legal Proceedings, Cybersecurity), the whole Item: it is one disclosure, and
#: the matter a search found may be the second it describes (the DOJ's lawsuit after the EU's investigations).
READ_ON_PASSAGES, SHORT_ITEM_PASSAGES = 3, 6
READ_ON_NOTE = "No search: the step reads the passages that follow the best hits of an earlier step."


def unread_passages_after(deps: ResearchDeps, chunk_ids: list[str], earlier: list[StepRecord]) -> list[Chunk]:
    """The passages that follow each of `chunk_ids` in the same filing and section (a few each; the whole
    section when it is short), in reading order, that no step in `earlier` has as evidence; none without a
    catalog."""
    catalog = getattr(deps.store, "catalog", None)
    if catalog is None:
        return []
    seen = {ev.chunk_id for s in earlier for ev in s.evidence if ev.chunk_id}
    passages: list[Chunk] = []
    for start in catalog.get_chunks(chunk_ids):
        whole = catalog.section_chunks(start, SHORT_ITEM_PASSAGES)
        for chunk in whole or catalog.following_chunks(start, READ_ON_PASSAGES):
            if chunk.chunk_id not in seen and chunk.chunk_id != start.chunk_id:
                seen.add(chunk.chunk_id)
                passages.append(chunk)
    return passages


def _read_on(deps: ResearchDeps, rec: StepRecord, earlier: list[StepRecord]) -> StepRecord:
    """The step with the unread passages after its starting passages as its pool, in reading order."""
    if getattr(deps.store, "catalog", None) is None:
        raise RuntimeError("no catalog to read passages from")
    passages = unread_passages_after(deps, rec.reads_on_from, earlier)
    pool = [ScoredChunk(chunk=chunk, score=1.0 / rank) for rank, chunk in enumerate(passages, start=1)]
    return rec.model_copy(
        update={
            "pool": pool,
            "candidates": [
                CandidateRef(
                    chunk_id=c.chunk.chunk_id, section=c.chunk.section, page=c.chunk.page, score=c.score
                )
                for c in pool
            ],
            "evidence_note": None if pool else "the passages after the best hits were read already",
        }
    )


def _evidence(index: int, chunks: list[ScoredChunk], labels: dict[str, str]) -> list[Evidence]:
    return [
        Evidence(
            evidence_id=evidence_id(index, j),
            kind="filing",
            text=sc.chunk.text,
            chunk_id=sc.chunk.chunk_id,
            filing_id=sc.chunk.filing_id,
            filing_label=labels.get(sc.chunk.filing_id),
            section=sc.chunk.section,
            section_title=sc.chunk.section_title or None,
            page=sc.chunk.page,
            score=sc.score,
            scores=sc.scores,
        )
        for j, sc in enumerate(chunks, start=1)
    ]


def _with_rerank_scores(candidates: list[CandidateRef], ranked: list[ScoredChunk]) -> list[CandidateRef]:
    """The candidates in first-stage order, each with the stage scores the reranker gave it."""
    by_id = {sc.chunk.chunk_id: sc.scores for sc in ranked}
    return [c.model_copy(update={"scores": by_id.get(c.chunk_id, c.scores)}) for c in candidates]


@instrumented
def rerank_evidence(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict[str, Any]:
    """Rerank the candidates to top_n (cross-encoder, or the documented local scorer) and keep them as evidence."""
    deps = runtime.context
    index, steps, rec = current_record(state)
    top_n = max(deps.settings.top_n, ANCHOR_TOP_N) if rec.origin == "anchor" else deps.settings.top_n
    if rec.reads_on_from:
        top_n = max(top_n, len(rec.pool))  # a read-on step keeps every passage it read
    fallbacks: list[Fallback] = []
    chunks: list[ScoredChunk] = []
    candidates = rec.candidates
    reranker_name: str | None = None
    if rec.pool:
        try:
            from core.retrieval.analysis import analyze_query

            reranker = deps.retriever.reranker
            ranked = rerank_pool(reranker, rec.rewritten_query, rec.pool, analyze_query(rec.rewritten_query))
            chunks = ranked[:top_n]
            candidates = _with_rerank_scores(rec.candidates, ranked)
            reranker_name = reranker.name
            loaded = deps.reranker_fallback()
            already = {(f.get("component"), f.get("used")) for f in state.get("fallbacks") or []}
            if loaded is not None and (loaded.component, loaded.used) not in already:
                fallbacks.append(loaded.model_copy(update={"step_index": index}))
        except Exception:  # keep first-stage order rather than lose the step (logged)
            log.exception("reranking step %d failed; keeping the search order", index)
            chunks = keep_filter_first(rec.pool, top_n)
            reranker_name = "none (first-stage order)"
            fallbacks.append(
                Fallback(
                    component="reranker",
                    used="first-stage order",
                    reason="The reranker failed on this step; the passages keep their search order.",
                    step_index=index,
                )
            )
    labels = {i.filing_id: i.label for i in filing_infos(deps, sorted({c.chunk.filing_id for c in chunks}))}
    evidence = _evidence(index, chunks, labels)
    note = None if evidence else "no passage matched in the searched scope"
    steps[index] = rec.model_copy(
        update={
            "pool": [],
            "candidates": candidates,
            "evidence": evidence,
            "reranker": reranker_name,
            "evidence_note": rec.evidence_note or note,
        }
    )
    for fb in fallbacks:
        emit(
            runtime,
            state,
            "fallback",
            node="rerank_evidence",
            step_index=index,
            message=f"{fb.component} -> {fb.used}: {fb.reason}",
            data=fb.model_dump(mode="json"),
        )
    emit(
        runtime,
        state,
        "evidence_found",
        node="rerank_evidence",
        step_index=index,
        message=f"{len(evidence)} passage(s) kept of {len(rec.candidates)} candidate(s)",
        data={
            "evidence": [
                {
                    "evidence_id": e.evidence_id,
                    "chunk_id": e.chunk_id,
                    "section": e.section,
                    "page": e.page,
                    "score": e.score,
                }
                for e in evidence
            ],
            "reranker": reranker_name,
        },
    )
    update: dict[str, Any] = {"steps": dump_steps(steps)}
    if fallbacks:
        update["fallbacks"] = [f.model_dump(mode="json") for f in fallbacks]
    return update


@instrumented
def search_web(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict[str, Any]:
    """Web search for facts outside the filings; without network the step says so and the run goes on."""
    deps = runtime.context
    index, steps, rec = current_record(state)
    outcome = web_search_tool(rec.rewritten_query, deps.settings, step_index=index, search_fn=deps.web_search)
    steps[index] = rec.model_copy(update={"evidence": outcome.evidence, "evidence_note": outcome.note})
    update: dict[str, Any] = {"steps": dump_steps(steps)}
    if outcome.fallback is not None:
        fb = outcome.fallback.model_copy(update={"step_index": index})
        update["fallbacks"] = [fb.model_dump(mode="json")]
        emit(
            runtime,
            state,
            "fallback",
            node="search_web",
            step_index=index,
            message=outcome.note or "web search unavailable",
            data=fb.model_dump(mode="json"),
        )
    emit(
        runtime,
        state,
        "evidence_found",
        node="search_web",
        step_index=index,
        message=outcome.note or f"{len(outcome.evidence)} web result(s)",
        data={"evidence": [{"evidence_id": e.evidence_id, "url": e.url} for e in outcome.evidence]},
    )
    return update


@instrumented
def calculate(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict[str, Any]:
    """State the figures the step asks for, computed from table rows of the pages earlier steps found and of
    the statements that report them (each input cited); otherwise growth, ratio or difference from figures
    in earlier evidence (safe arithmetic)."""
    deps = runtime.context
    index, steps, rec = current_record(state)
    prior = [e for s in steps[:index] for e in s.evidence]
    infos = filing_infos(deps, [rec.filing_id] if rec.filing_id else list(state.get("filing_ids") or []))
    forms = company_forms(infos[0].company) if len(infos) == 1 else []
    pages = deps.pages

    def rows(statements: list[str]) -> list:
        assert pages is not None
        found = pages.rows(prior, filing_id=rec.filing_id)
        # Then the statements themselves, as an analyst would open them: the filing's pages titled with the
        # statement that reports each input (after the retrieved pages, which rank first); a primary
        # statement is the authority for its line items, so its rows rank first.
        for filing_id in [rec.filing_id] if rec.filing_id else [i.filing_id for i in infos]:
            found = pages.statement_rows(filing_id, statements, rank=-1) + found
        return found

    result = run_calculator(
        rec.sub_question,
        rec.keywords,
        prior,
        step_index=index,
        default_year=infos[0].fiscal_year if len(infos) == 1 else None,
        calendar=infos[0].calendar if len(infos) == 1 else None,
        rows=rows if pages is not None else None,
        # With several filings in the run, each figure says whose it is.
        owner=forms[0] if forms and len(state.get("filing_ids") or []) > 1 else None,
        labels={i.filing_id: i.label for i in infos},
        facts=fact_lookup(deps.facts, [i.filing_id for i in infos]) if deps.facts is not None else None,
        parts=parts_lookup(deps.facts, [i.filing_id for i in infos]) if deps.facts is not None else None,
    )
    steps[index] = rec.model_copy(
        update={
            "evidence": result.evidence,
            "evidence_note": result.note,
            "cards": result.cards,
            "missing": result.missing,
        }
    )
    emit(runtime, state, "evidence_found", node="calculate", step_index=index, message=result.note)
    return {"steps": dump_steps(steps)}
