"""The local reranker used when no cross-encoder can be loaded: a documented blend of cheap signals."""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np

from core.finance.rows import read_rows
from core.finance.vocabulary import LINE_ITEM_BY_KEY, label_rank
from core.index.embeddings import Embedder
from core.models import QueryAnalysis, ScoredChunk
from core.retrieval.analysis import analyze_query, vector_query_text
from core.retrieval.ranking import apply_rerank_scores
from core.text.tokens import tokenize

#: Weight of each signal; every signal is scaled to [0, 1] over the candidate set before mixing.
WEIGHTS: dict[str, float] = {
    "semantic": 0.32,
    "lexical": 0.20,
    "prior": 0.12,
    "item": 0.08,
    "overlap": 0.08,
    "table": 0.20,
}


class LocalReranker:
    """Reranks candidates by a weighted sum of six signals, each min-max scaled over the candidates.

    The table signal is zero for every candidate of a query that asks for no figure, so such queries are
    ranked by the other five in the same proportions as before it was added.

    - semantic (0.32): cosine of the bi-encoder (all-MiniLM-L6-v2) embeddings of the information need
      and the chunk; stored chunk vectors are reused from the vector store, so nothing is re-embedded.
    - lexical (0.20): BM25 of the query's keywords over the candidate set itself, so the idf rewards
      terms that discriminate between candidates rather than across the whole library.
    - prior (0.12): the first-stage rank (fused, else vector, else keyword, else the rank of the statement
      page it joined as), linearly from 1 to 0.
    - item (0.08): 1 when the chunk's Item is the query's first Item hint, 0.6 for another hint.
    - overlap (0.08): share of the query's fiscal years, numbers and entity words found in the chunk
      (its text, or its filing's company name and fiscal year).
    - table (0.20): for a query asking for figures, half for a passage on a statement page that reports
      them (scores.statement_rank) and half for a table row labelled as a line item asked for; a
      bi-encoder and BM25 read a row of numbers poorly, its label and its statement say what it holds.
    """

    name = "local scorer (fallback: cross-encoder unavailable)"

    def __init__(
        self,
        embedder: Embedder,
        vectors: Any | None = None,
        embed_query: Callable[[str], np.ndarray] | None = None,
        weights: dict[str, float] | None = None,
    ) -> None:
        self._embedder = embedder
        self._vectors = vectors
        self._embed_query = embed_query or embedder.embed_query
        self.weights = dict(weights or WEIGHTS)

    def rerank(
        self, query: str, candidates: list[ScoredChunk], top_n: int, analysis: QueryAnalysis | None = None
    ) -> list[ScoredChunk]:
        """Score every candidate with the blended signals and keep the top_n."""
        if not candidates:
            return []
        analysis = analysis or analyze_query(query)
        docs = [tokenize(c.chunk.indexed_text) for c in candidates]
        signals = {
            "semantic": _minmax(self._semantic(analysis, candidates)),
            "lexical": _minmax(_bm25(_query_tokens(analysis), docs)),
            "prior": _prior(candidates),
            "item": [_item_match(c, analysis) for c in candidates],
            "overlap": [
                _overlap(analysis, _with_metadata(set(d), c)) for d, c in zip(docs, candidates, strict=True)
            ],
            "table": [_table_match(c, analysis, set(d)) for d, c in zip(docs, candidates, strict=True)],
        }
        scores = [
            sum(self.weights.get(name, 0.0) * values[i] for name, values in signals.items())
            for i in range(len(candidates))
        ]
        return apply_rerank_scores(candidates, scores, top_n)

    def _semantic(self, analysis: QueryAnalysis, candidates: list[ScoredChunk]) -> list[float]:
        # The same text the vector search embedded, so a cached query vector is reused.
        query_vec = self._embed_query(vector_query_text(analysis))
        ids = [c.chunk.chunk_id for c in candidates]
        stored: dict[str, np.ndarray] = {}
        if self._vectors is not None and hasattr(self._vectors, "get_embeddings"):
            stored = self._vectors.get_embeddings(ids)
        missing = [i for i, cid in enumerate(ids) if cid not in stored]
        if missing:  # one batch for whatever the store could not give back
            fresh = self._embedder.embed_documents([candidates[i].chunk.indexed_text for i in missing])
            for row, i in enumerate(missing):
                stored[ids[i]] = fresh[row]
        return [float(np.dot(query_vec, stored[cid])) for cid in ids]


def _query_tokens(analysis: QueryAnalysis) -> list[str]:
    return tokenize(" ".join([analysis.core_query, *analysis.keywords]))


def _bm25(query: list[str], docs: list[list[str]], k1: float = 1.2, b: float = 0.75) -> list[float]:
    """BM25 of the query against each doc, with idf computed over these docs only."""
    n = len(docs)
    avgdl = sum(len(d) for d in docs) / max(1, n) or 1.0
    df = Counter(t for d in docs for t in set(d))
    terms = Counter(query)
    out: list[float] = []
    for doc in docs:
        tf = Counter(doc)
        score = 0.0
        for term, qtf in terms.items():
            if term not in tf:
                continue
            idf = math.log(1.0 + (n - df[term] + 0.5) / (df[term] + 0.5))
            f = tf[term]
            score += qtf * idf * f * (k1 + 1) / (f + k1 * (1 - b + b * len(doc) / avgdl))
        out.append(score)
    return out


def _minmax(values: list[float]) -> list[float]:
    lo, hi = min(values), max(values)
    if hi - lo < 1e-12:
        return [1.0 if hi > 0 else 0.0 for _ in values]
    return [(v - lo) / (hi - lo) for v in values]


def _prior(candidates: list[ScoredChunk]) -> list[float]:
    n = len(candidates)
    out: list[float] = []
    for position, cand in enumerate(candidates, start=1):
        s = cand.scores
        # A statement page found by its title is a first-stage hit too: its rank among those pages.
        rank = s.fused_rank or s.vector_rank or s.keyword_rank or s.statement_rank or position
        out.append(1.0 - (min(rank, n) - 1) / max(1, n - 1) if n > 1 else 1.0)
    return out


def _item_match(candidate: ScoredChunk, analysis: QueryAnalysis) -> float:
    hints = analysis.item_hints
    if not hints:
        return 0.0
    if candidate.chunk.section == hints[0]:
        return 1.0
    return 0.6 if candidate.chunk.section in hints else 0.0


@functools.cache
def _item_words(key: str) -> frozenset[str]:
    """Tokens of a line item's name and search terms (fixed per item, so computed once)."""
    item = LINE_ITEM_BY_KEY[key]
    return frozenset(tokenize(f"{item.name} {item.search_terms}"))


def _table_match(candidate: ScoredChunk, analysis: QueryAnalysis, tokens: set[str] | None = None) -> float:
    """Half for a passage of a statement page asked for, half for a row labelled as a line item asked for.

    Rows are read only from passages sharing a word with an asked item's name or search terms (`tokens`
    are the passage's own), since reading rows is the costly part.
    """
    if not analysis.statements:
        return 0.0
    score = 0.5 if candidate.scores.statement_rank is not None else 0.0
    items = [LINE_ITEM_BY_KEY[key] for key in analysis.line_items if key in LINE_ITEM_BY_KEY]
    if tokens is not None:
        items = [i for i in items if tokens & _item_words(i.key)]
    if items and any(
        label_rank(item, row.label) is not None for row in read_rows(candidate.chunk.text) for item in items
    ):
        score += 0.5
    return score


def _with_metadata(tokens: set[str], candidate: ScoredChunk) -> set[str]:
    """A chunk's words plus its filing's company and fiscal year, which the text may not repeat."""
    chunk = candidate.chunk
    extra = set(tokenize(chunk.company)) if chunk.company else set()
    if chunk.fiscal_year:
        extra.add(str(chunk.fiscal_year))
    return tokens | extra


def _overlap(analysis: QueryAnalysis, doc_tokens: set[str]) -> float:
    """Share of the query's specific facets (years, numbers, entity words) that the chunk mentions."""
    facets: list[set[str]] = []
    facets.extend({str(y)} for y in analysis.fiscal_years)
    facets.extend({n} for n in analysis.numbers)
    for entity in analysis.entities:
        words = set(tokenize(entity))
        if words:
            facets.append(words)
    if not facets:
        return 0.0
    return sum(len(f & doc_tokens) / len(f) for f in facets) / len(facets)
