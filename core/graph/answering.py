"""Compose the cited answer from research steps: the writer's draft, numbered citations, checked quotes.

One home for answering, used by the graph's write_report node and by the evaluation's one-search and naive
baselines, so that every system answers in the same format.
"""

from __future__ import annotations

from collections.abc import Callable

from core.agents.base import AgentDeps
from core.agents.contracts import FilingInfo, StepDigest, WriterInput
from core.agents.registry import Agents
from core.agents.report_assembly import assemble_report
from core.citations import ChunkSource, CitationReport, validate_answer
from core.models import Evidence


def evidence_pool(digests: list[StepDigest]) -> list[Evidence]:
    """Every passage the run found, once (by chunk and quote), credited to each step that found it."""
    pool: dict[tuple[str, str | None], Evidence] = {}
    for digest in digests:
        for ev in digest.evidence:
            if ev.kind not in ("filing", "web"):
                continue
            key = (ev.chunk_id or ev.url or ev.evidence_id, ev.quote)
            if key in pool:
                if digest.index not in pool[key].found_by:
                    pool[key].found_by.append(digest.index)
            else:
                pool[key] = ev.model_copy(update={"found_by": [digest.index]})
    return list(pool.values())


def compose_answer(
    question: str,
    digests: list[StepDigest],
    filings: list[FilingInfo],
    agents: Agents,
    adeps: AgentDeps,
    *,
    catalog: ChunkSource | None = None,
    chunk_text: Callable[[list[str]], dict[str, str]] | None = None,
) -> CitationReport:
    """The writer's answer with numbered citations, each checked against the passage it quotes.

    Citations are checked against `catalog`, or `chunk_text` (passages outside the catalog, such as a
    baseline's own index), or else the evidence itself.
    """
    pool = evidence_pool(digests)
    draft = agents.write(WriterInput(question=question, filings=filings, steps=digests, pool=pool), adeps)
    evidence = {e.evidence_id: e for d in digests for e in d.evidence}
    answer, citations = assemble_report(draft, evidence)
    if chunk_text is None and catalog is None:
        by_chunk = {e.chunk_id: e.text for e in evidence.values() if e.chunk_id}
        chunk_text = lambda ids: {i: by_chunk[i] for i in ids if i in by_chunk}  # noqa: E731
    return validate_answer(answer, citations, catalog, evidence=evidence, chunk_text=chunk_text)
