"""The three systems an evaluation compares, answering in the same cited format.

- naive: the baseline everyone knows: each page's text cut into fixed 1,000-character pieces, embedded with
  the same model, the question's top-k pieces by cosine similarity, then the answer.
- one-search: this workbench's retrieval funnel (strategy, hybrid search, rerank) on the raw question, top 10,
  then the answer.
- deep: the whole research graph with the plan approved as proposed.

The naive and one-search answers are written by the same writer as the deep loop's (offline: extractive;
with an LLM configured: the LLM, checked), over a single step holding their passages.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from core.agents.contracts import DistilInput, FilingInfo, StepDigest
from core.evaluation.workspace import Workspace
from core.graph.answering import compose_answer
from core.graph.deps import ResearchDeps, build_deps
from core.index.vector_store import VectorStore
from core.ingest.parse import parse_filing
from core.ingest.validate import check_upload
from core.models import ANCHOR_TOP_N, Chunk, EvalContext, Evidence, Filing, SystemAnswer, evidence_id

NAIVE_CHUNK_CHARS = 1000
ONE_SEARCH_TOP_N = ANCHOR_TOP_N


def naive_pieces(data: bytes, filename: str, filing_id: str, id_prefix: str) -> list[Chunk]:
    """The naive baseline's passages: each page's extracted text cut into fixed 1,000-character pieces."""
    parsed = parse_filing(data, check_upload(data, filename, 1 << 40))
    pages: dict[int, list[str]] = {}
    for block in parsed.blocks:
        pages.setdefault(block.page, []).append(block.text)
    chunks: list[Chunk] = []
    for page, parts in sorted(pages.items()):
        text = "\n".join(parts)
        for start in range(0, len(text), NAIVE_CHUNK_CHARS):
            piece = text[start : start + NAIVE_CHUNK_CHARS]
            chunks.append(
                Chunk(
                    chunk_id=f"{id_prefix}-{len(chunks):05d}",
                    filing_id=filing_id,
                    section="Other",
                    page=page,
                    chunk_index=len(chunks),
                    char_start=start,
                    char_end=start + len(piece),
                    text=piece,
                )
            )
    return chunks


def cited_first(contexts: list[EvalContext], cited: list[str | None]) -> list[EvalContext]:
    """A system's passages ranked as its answer used them: those it cites, in the order it cites them, then
    the others in the order it found them. Every system is ranked so, for context precision (which rewards
    relevant passages ranked high) to measure the evidence an answer rests on, not the order of a search."""
    order = {chunk_id: k for k, chunk_id in enumerate(dict.fromkeys(c for c in cited if c))}
    return sorted(contexts, key=lambda c: order.get(c.chunk_id, len(order)))


class NaiveIndex:
    """Fixed-size page splits of each filing in their own Chroma collection, beside the product index."""

    def __init__(self, workspace: Workspace) -> None:
        self.store = workspace.store
        self.vectors = VectorStore(workspace.settings, self.store.embedder, kind="naive")

    def has(self, filing_id: str) -> bool:
        return self.vectors.count([filing_id]) > 0

    def build(self, filing: Filing) -> int:
        """Index a filing's pages as 1,000-character pieces (from its stored original); returns the count."""
        if self.has(filing.filing_id):
            return self.vectors.count([filing.filing_id])
        path = self.store.original_path(filing)
        chunks = naive_pieces(
            path.read_bytes(), filing.filename, filing.filing_id, f"naive-{filing.filing_id[:16]}"
        )
        if chunks:
            embeddings = self.store.embedder.embed_documents([c.text for c in chunks])
            self.vectors.add(chunks, embeddings, with_text=True)
        return len(chunks)

    def search(self, question: str, filing_ids: list[str], k: int) -> list[EvalContext]:
        """The k pieces nearest to the question among the given filings' pieces."""
        hits = self.vectors.query(self.store.embedder.embed_query(question), k, filing_ids=filing_ids)
        texts = self.vectors.texts([cid for cid, _ in hits])
        out = []
        for cid, _ in hits:
            text, meta = texts.get(cid, ("", {}))
            filing_id = str(meta.get("filing_id") or filing_ids[0])
            out.append(EvalContext(chunk_id=cid, filing_id=filing_id, page=meta.get("page"), text=text))
        return out

    def chunk_text(self, ids: list[str]) -> dict[str, str]:
        return {cid: text for cid, (text, _) in self.vectors.texts(ids).items()}


@dataclass
class Systems:
    """Runs the systems of an evaluation in one workspace (its own data directory)."""

    workspace: Workspace
    naive_k: int = 5

    def __post_init__(self) -> None:
        self._naive: NaiveIndex | None = None
        self._deps: ResearchDeps | None = None

    @property
    def naive(self) -> NaiveIndex:
        if self._naive is None:
            self._naive = NaiveIndex(self.workspace)
        return self._naive

    @property
    def deps(self) -> ResearchDeps:
        if self._deps is None:
            self._deps = build_deps(self.workspace.settings, store=self.workspace.store)
        return self._deps

    def _filing_info(self, filing: Filing) -> FilingInfo:
        return FilingInfo.of(filing)

    def _answer_one_step(
        self, question: str, filings: list[Filing], evidence: list[Evidence], *, chunk_text=None
    ) -> tuple[str, list, list[str]]:
        """Distil and write over a single step holding the passages (the baselines' answers)."""
        adeps = self.deps.agent_deps(0)
        companies = list(dict.fromkeys(f.company for f in filings))
        cards = self.deps.agents.distil(
            DistilInput(sub_question=question, evidence=evidence, exclude_terms=companies), adeps
        ).cards
        digest = StepDigest(
            index=0,
            sub_question=question,
            tool="search_10k",
            origin="anchor",
            query=question,
            candidates=len(evidence),
            cards=cards,
            evidence=evidence,
        )
        checked = compose_answer(
            question,
            [digest],
            [self._filing_info(f) for f in filings],
            self.deps.agents,
            adeps,
            catalog=None if chunk_text else self.workspace.store.catalog,
            chunk_text=chunk_text,
        )
        fallbacks = [f"{f.component} → {f.used}" for f in adeps.fallbacks]
        return checked.answer, checked.citations, fallbacks

    def run(self, system: str, question: str, filings: list[Filing]) -> SystemAnswer:
        """One system's answer to one question, its search scoped to the question's filings."""
        if not filings:
            raise ValueError("a question needs at least one filing")
        started = time.perf_counter()
        scope = [f.filing_id for f in filings]
        labels = {f.filing_id: f.label for f in filings}
        if system == "naive":
            contexts = self.naive.search(question, scope, self.naive_k)
            evidence = [_evidence(i, c, labels) for i, c in enumerate(contexts, start=1)]
            answer, citations, fallbacks = self._answer_one_step(
                question, filings, evidence, chunk_text=self.naive.chunk_text
            )
            steps, run_id = 1, None
        elif system == "one-search":
            result = self.workspace.retriever.search(question, filings=scope, top_n=ONE_SEARCH_TOP_N)
            contexts = [
                EvalContext(
                    chunk_id=s.chunk.chunk_id,
                    filing_id=s.chunk.filing_id,
                    page=s.chunk.page,
                    text=s.chunk.text,
                )
                for s in result.chunks
            ]
            evidence = [_evidence(i, c, labels) for i, c in enumerate(contexts, start=1)]
            answer, citations, fallbacks = self._answer_one_step(question, filings, evidence)
            steps, run_id = 1, None
        elif system == "deep":
            runner = self.workspace.runner
            record = runner.approve_plan(runner.start(question, scope).run_id)
            seen: set[str] = set()
            contexts = []
            for step in record.steps:
                for ev in step.evidence:
                    if ev.kind == "filing" and ev.chunk_id and ev.chunk_id not in seen:
                        seen.add(ev.chunk_id)
                        contexts.append(
                            EvalContext(
                                chunk_id=ev.chunk_id,
                                filing_id=ev.filing_id or (scope[0] if len(scope) == 1 else ""),
                                page=ev.page,
                                text=ev.text,
                                step=step.index,
                            )
                        )
            answer, citations = record.answer, record.citations
            fallbacks = [f"{f.component} → {f.used}" for f in record.fallbacks]
            steps, run_id = len(record.steps), record.run_id
        else:
            raise ValueError(f"unknown system {system!r}")
        return SystemAnswer(
            system=system,  # type: ignore[arg-type]
            answer=answer,
            citations=citations,
            contexts=cited_first(contexts, [c.chunk_id for c in citations]),
            steps=steps,
            seconds=round(time.perf_counter() - started, 3),
            run_id=run_id,
            fallbacks=fallbacks,
        )


def _evidence(rank: int, context: EvalContext, labels: dict[str, str]) -> Evidence:
    return Evidence(
        evidence_id=evidence_id(0, rank),
        kind="filing",
        text=context.text,
        chunk_id=context.chunk_id,
        filing_id=context.filing_id,
        filing_label=labels.get(context.filing_id, ""),
        page=context.page,
    )
