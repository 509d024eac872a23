"""The retrieval funnel: analysis -> strategy -> filtered vector / keyword / hybrid search -> rerank."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict

import numpy as np

from core.config import Settings
from core.index.embedding_cache import CachedEmbedder
from core.index.store import IndexStore
from core.models import (
    Fallback,
    Filing,
    QueryAnalysis,
    ScoredChunk,
    SearchResult,
    StageScores,
    Strategy,
    StrategyChoice,
)
from core.retrieval.analysis import analyze_query, vector_query_text
from core.retrieval.fusion import fuse_rrf
from core.retrieval.pages import PageReader
from core.retrieval.ranking import keep_filter_first
from core.retrieval.rerank import Reranker, load_reranker, rerank_pool
from core.retrieval.routing import route_filings
from core.retrieval.scope import SearchScope, resolve_scope
from core.retrieval.strategy_rules import strategy_by_rules
from core.text.tokens import tokenize

#: Each list feeding the fusion is this many times deeper than k, so agreement below rank k still counts.
FUSION_DEPTH = 3
#: Statement pages join the candidates when the search spans at most this many filings (a routed or
#: per-filing search); over a whole library they would crowd out the passages the search found.
STATEMENT_FILINGS = 3
#: Best statement pages of each kind asked for, per filing (a statement may run over two pages).
STATEMENT_PAGES = 2
#: Weight of a static index's vector list in the hybrid fusion. A static model's passage vectors are too
#: coarse to rank passages: on FinanceBench (55 filings) they put the gold page in the top 5 for 8.5% of
#: questions (MiniLM's: 33%), and at the transformer's weight they pushed the keyword list's candidates
#: out of the pool (auto top 5 per filing 84.0% without them, 77.7% with them). The candidates are read
#: by MiniLM in the rerank either way.
STATIC_VECTOR_WEIGHT = 0.0


def keyword_query_tokens(analysis: QueryAnalysis) -> list[str]:
    """BM25 tokens of the information need: core query, statements it names, line items of its metrics."""
    tokens = tokenize(analysis.core_query)
    extra = [t for t in tokenize(" ".join(analysis.keywords)) if t not in tokens]
    return tokens + extra


class Retriever:
    """Searches an IndexStore with the same filters in every mode, and reranks the candidates."""

    def __init__(self, store: IndexStore, settings: Settings | None = None, reranker: Reranker | None = None):
        self.store = store
        self.settings = settings or store.settings
        self._reranker = reranker
        self.fallback: Fallback | None = None
        self._lock = threading.Lock()
        self._query_vectors: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._cache_lock = threading.Lock()
        self.pages = PageReader(store.catalog)

    # --- shared pieces ----------------------------------------------------------------------

    @property
    def reranker(self) -> Reranker:
        """The reranker, loaded on first use (cross-encoder, or the local scorer with a Fallback)."""
        with self._lock:
            if self._reranker is None:
                # A static index's candidates are read again by the model it was distilled from (their
                # vectors kept in the embedding cache); otherwise the stored vectors are the reader's.
                rescoring = self.store.rescores
                self._reranker, self.fallback = load_reranker(
                    self.settings,
                    CachedEmbedder(self.store.reader, self.store.embedding_cache)
                    if rescoring
                    else self.store.embedder,
                    vectors=None if rescoring else self.store.vectors,
                    embed_query=self.embed_reader_query,
                )
            return self._reranker

    def embed_query(self, text: str) -> np.ndarray:
        """Query embedding by the index's model, cached for the last few queries (rerank reuses it)."""
        return self._cached_query_vector(self.store.embedder, text)

    def embed_reader_query(self, text: str) -> np.ndarray:
        """Query embedding by the reader model (the same as embed_query unless the index model is static)."""
        return self._cached_query_vector(self.store.reader, text)

    def _cached_query_vector(self, embedder, text: str) -> np.ndarray:
        key = (embedder.model_name, text)
        with self._cache_lock:
            vec = self._query_vectors.get(key)
        if vec is None:
            vec = embedder.embed_query(text)
            with self._cache_lock:
                self._query_vectors[key] = vec
                while len(self._query_vectors) > 64:
                    self._query_vectors.popitem(last=False)
        return vec

    def clear_query_cache(self) -> None:
        """Forget cached query vectors (benchmarks clear it to time cold queries)."""
        with self._cache_lock:
            self._query_vectors.clear()

    def _k(self, k: int | None) -> int:
        return int(k if k is not None else self.settings.k)

    def _result(
        self,
        query: str,
        strategy: Strategy,
        ranked: list[tuple[str, StageScores, float]],
        scope: SearchScope,
        section: str | None,
        filings: list[str] | None,
    ) -> SearchResult:
        catalog = self.store.catalog
        chunks = {c.chunk_id: c for c in catalog.get_chunks([cid for cid, _, _ in ranked])}
        inside: set[str] | None = None
        if scope.fill is not None:  # which candidates only the widening brought in
            inside = set()
            for filing_ids, part_section in scope.parts:
                inside.update(catalog.chunk_ids(filing_ids, part_section))
        scored = [
            ScoredChunk(
                chunk=chunks[cid], score=score, scores=stage, widened=inside is not None and cid not in inside
            )
            for cid, stage, score in ranked
            if cid in chunks
        ]
        return SearchResult(
            query=query,
            strategy=strategy,
            section_filter=section,
            filing_filter=filings,
            widened=scope.widened,
            widen_note=scope.note,
            candidates=scored,
            chunks=list(scored),
        )

    # --- first-stage rankings over a scope ---------------------------------------------------

    def _vector_ranking(self, text: str, k: int, scope: SearchScope) -> list[tuple[str, float]]:
        vec = self.embed_query(text)
        merged: list[tuple[str, float]] = []
        for filing_ids, section in scope.parts:
            merged.extend(self.store.vectors.query(vec, k, filing_ids=filing_ids, section=section))
        merged = sorted(dict(merged).items(), key=lambda p: -p[1])[:k]
        if scope.fill is not None and len(merged) < k:
            have = {cid for cid, _ in merged}
            extra = self.store.vectors.query(
                vec, k + len(have), filing_ids=scope.fill[0], section=scope.fill[1]
            )
            merged.extend([p for p in extra if p[0] not in have][: k - len(merged)])
        return merged

    def _keyword_ranking(self, tokens: list[str], k: int, scope: SearchScope) -> list[tuple[str, float]]:
        catalog, index = self.store.catalog, self.store.keywords
        if scope.parts == [(None, None)]:
            allowed: set[str] | None = None
        else:
            allowed = set()
            for filing_ids, section in scope.parts:
                allowed.update(catalog.chunk_ids(filing_ids, section))
        ranked = index.search(tokens, k, allowed_ids=allowed, filing_ids=_filings_of(scope.parts))
        if scope.fill is not None and allowed is not None and len(allowed) < k:
            rest = set(catalog.chunk_ids(scope.fill[0], scope.fill[1])) - allowed
            ranked.extend(
                index.search(tokens, k - len(ranked), allowed_ids=rest, filing_ids=_filings_of([scope.fill]))
            )
        return ranked

    # --- the three searches -----------------------------------------------------------------

    def strategy_search(
        self,
        strategy: Strategy,
        query: str,
        k: int | None = None,
        section: str | None = None,
        filings: list[str] | None = None,
        analysis: QueryAnalysis | None = None,
    ) -> SearchResult:
        """One search by the given strategy within the filters, without routing or rerank.

        vector: nearest chunks by cosine similarity of the information need (+ line items);
        keyword: BM25 over the core query (instructions removed);
        hybrid: weighted reciprocal rank fusion of those two rankings.
        """
        started = time.perf_counter()
        k = self._k(k)
        analysis = analysis or analyze_query(query)
        scope = resolve_scope(self.store.catalog, filings, section, k)
        ranked = {
            "vector": self._vector_ranked,
            "keyword": self._keyword_ranked,
            "hybrid": self._hybrid_ranked,
        }[strategy](analysis, k, scope)
        result = self._result(query, strategy, ranked, scope, section, filings)
        result.seconds = time.perf_counter() - started
        return result

    def _vector_ranked(
        self, analysis: QueryAnalysis, k: int, scope: SearchScope
    ) -> list[tuple[str, StageScores, float]]:
        ranking = self._vector_ranking(vector_query_text(analysis), k, scope)
        return [(cid, StageScores(vector=s, vector_rank=r), s) for r, (cid, s) in enumerate(ranking, start=1)]

    def _keyword_ranked(
        self, analysis: QueryAnalysis, k: int, scope: SearchScope
    ) -> list[tuple[str, StageScores, float]]:
        ranking = self._keyword_ranking(keyword_query_tokens(analysis), k, scope)
        return [(cid, StageScores(bm25=s, keyword_rank=r), s) for r, (cid, s) in enumerate(ranking, start=1)]

    def _hybrid_ranked(
        self, analysis: QueryAnalysis, k: int, scope: SearchScope
    ) -> list[tuple[str, StageScores, float]]:
        depth = k * FUSION_DEPTH
        vector_weight = STATIC_VECTOR_WEIGHT if self.store.rescores else self.settings.rrf_vector_weight
        vector = self._vector_ranking(vector_query_text(analysis), depth, scope) if vector_weight else []
        keyword = self._keyword_ranking(keyword_query_tokens(analysis), depth, scope)
        fused = fuse_rrf(
            {"vector": [cid for cid, _ in vector], "keyword": [cid for cid, _ in keyword]},
            {"vector": vector_weight, "keyword": self.settings.rrf_keyword_weight},
            k=self.settings.rrf_k,
        )[:k]
        vec_at = {cid: (r, s) for r, (cid, s) in enumerate(vector, start=1)}
        kw_at = {cid: (r, s) for r, (cid, s) in enumerate(keyword, start=1)}
        ranked = []
        for rank, (cid, score) in enumerate(fused, start=1):
            stage = StageScores(fused=score, fused_rank=rank)
            if cid in vec_at:
                stage.vector_rank, stage.vector = vec_at[cid]
            if cid in kw_at:
                stage.keyword_rank, stage.bm25 = kw_at[cid]
            ranked.append((cid, stage, score))
        return ranked

    # --- the funnel -------------------------------------------------------------------------

    def _add_statement_pages(
        self, result: SearchResult, analysis: QueryAnalysis, section: str | None, scope: list[str]
    ) -> None:
        """Passages of the statement pages that report the figures asked for join the candidates.

        A statement page is mostly numbers, so neither the embedding nor BM25 of a question finds it
        reliably; its title tells what it is (PageReader.statement_pages). Only within the Item filter
        (statements are in Item 8) and over a few filings (`scope`, the filings searched); each passage
        records its page's statement rank.
        """
        if not analysis.statements or section not in (None, "Item 8"):
            return
        if len(scope) > STATEMENT_FILINGS:
            return
        by_id = {c.chunk.chunk_id: i for i, c in enumerate(result.candidates)}
        rank = 0
        for kind in analysis.statements:
            for filing_id in scope:
                for page in self.pages.statement_pages(filing_id, kind)[:STATEMENT_PAGES]:
                    rank += 1
                    for chunk, _, _ in page.spans:
                        if chunk.page != page.page:
                            continue  # the previous page's passage that carries the title
                        at = by_id.get(chunk.chunk_id)
                        if at is None:
                            by_id[chunk.chunk_id] = len(result.candidates)
                            result.candidates.append(
                                ScoredChunk(chunk=chunk, score=0.0, scores=StageScores(statement_rank=rank))
                            )
                        elif result.candidates[at].scores.statement_rank is None:
                            result.candidates[at].scores.statement_rank = rank

    @staticmethod
    def _route(
        analysis: QueryAnalysis, filings: list[str] | None, library: list[Filing]
    ) -> tuple[list[str] | None, str | None]:
        """The filings in scope narrowed to those the query names, and the sentence saying so."""
        in_scope = [f for f in library if filings is None or f.filing_id in filings]
        if len(in_scope) < 2:
            return filings, None
        routed = route_filings(analysis, in_scope)
        return (filings, None) if routed is None else (routed.filing_ids, routed.note)

    def search(
        self,
        query: str,
        *,
        strategy: StrategyChoice = "auto",
        section: str | None = None,
        filings: list[str] | None = None,
        k: int | None = None,
        top_n: int | None = None,
        rerank: bool = True,
        route: bool | None = None,
    ) -> SearchResult:
        """Analyse, choose a strategy (auto) or take the one given, search k with filters, rerank to top_n.

        With ``route`` on (default: settings.route_to_named_filings) and more than one filing in scope
        (the given ones, or the whole library), a query naming a company and/or fiscal year among them
        searches only those filings; the result's filing_filter and justification say so.
        """
        started = time.perf_counter()
        analysis = analyze_query(query)
        route_note = None
        routing = self.settings.route_to_named_filings if route is None else route
        # The library is read once, and only when routing or statement pages over it need it.
        library = (
            self.store.catalog.list_filings() if routing or (analysis.statements and not filings) else []
        )
        if routing:
            filings, route_note = self._route(analysis, filings, library)
        if strategy == "auto":
            decision = strategy_by_rules(analysis)
            chosen: Strategy = decision.strategy
            justification = decision.justification
        else:
            chosen, justification = strategy, f"Chose {strategy}: set explicitly."
        result = self.strategy_search(chosen, query, k=k, section=section, filings=filings, analysis=analysis)
        self._add_statement_pages(result, analysis, section, filings or [f.filing_id for f in library])
        result.justification = f"{justification} {route_note}" if route_note else justification
        result.route_note = route_note
        top_n = int(top_n if top_n is not None else self.settings.top_n)
        if rerank and result.candidates:
            reranker = self.reranker
            result.chunks = rerank_pool(reranker, query, result.candidates, analysis)[:top_n]
            result.reranker = reranker.name
        else:
            result.chunks = keep_filter_first(result.candidates, top_n)
        result.seconds = time.perf_counter() - started
        return result


def _filings_of(parts: list[tuple[list[str] | None, str | None]]) -> list[str] | None:
    """Every filing the scope's parts allow, or None when a part allows every filing."""
    if any(not filing_ids for filing_ids, _ in parts):
        return None
    return sorted({f for filing_ids, _ in parts for f in filing_ids or ()})
