"""Rerankers: the sentence-transformers cross-encoder, and the loader that falls back visibly."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from core.config import DEFAULT_RERANKER_MODEL, Settings
from core.index.embeddings import Embedder
from core.models import Fallback, QueryAnalysis, ScoredChunk

log = logging.getLogger(__name__)


@runtime_checkable
class Reranker(Protocol):
    """Reorders first-stage candidates; sets scores.rerank, scores.rerank_rank and score."""

    name: str

    def rerank(
        self, query: str, candidates: list[ScoredChunk], top_n: int, analysis: QueryAnalysis | None = None
    ) -> list[ScoredChunk]: ...


class RerankerUnavailable(RuntimeError):
    """The configured reranker model cannot be loaded on this machine."""


def keep_filter_first(ranked: list[ScoredChunk], top_n: int) -> list[ScoredChunk]:
    """Ranked chunks with those inside the Item filter ahead of those found by widening it, cut to top_n.

    Widening only makes up the numbers when an Item has few passages: the analyst asked for that Item,
    so its passages are kept first and a widened one is evidence only when the Item runs out. Each
    group keeps its order; rerank ranks, where set, are renumbered to the final order.
    """
    ordered = [c for c in ranked if not c.widened] + [c for c in ranked if c.widened]
    out: list[ScoredChunk] = []
    for rank, cand in enumerate(ordered[: max(0, top_n)], start=1):
        if cand.scores.rerank is not None and cand.scores.rerank_rank != rank:
            cand = cand.model_copy(update={"scores": cand.scores.model_copy(update={"rerank_rank": rank})})
        out.append(cand)
    return out


#: A page is scored from its passages in the reranked pool: the reciprocal rank of its best passage plus
#: this share of its second best's. A page that two passages of the pool match (a statement's rows and its
#: title, a note's table and its text) outranks a page that one passage matches about as well. FinanceBench,
#: 55 filings, auto top-5 per filing / pooled: 0 -> 75.5 / 73.4%, 0.25 -> 77.7 / 75.5%, 0.5 -> 78.7 / 77.7%
#: (no question lost at either step).
PAGE_SUPPORT = 0.5
#: Reciprocal-rank constant of the page score: ranks are used, not raw scores, so the page score means the
#: same for the cross-encoder's logits and the local scorer's [0, 1] scores.
PAGE_RANK_K = 10


def rank_pages(ranked: list[ScoredChunk], support: float = PAGE_SUPPORT) -> list[ScoredChunk]:
    """Pages ranked by their passages, each page's best passage in page order, then the pages' other
    passages in rank order.

    Passages of one page overlap and share their context (the page reads as a whole, see PageReader), so a
    page's second passage adds less than the next page's best one: the top of the list covers more pages.
    """
    ranks: dict[tuple[str, int], list[int]] = {}
    for rank, cand in enumerate(ranked, start=1):
        ranks.setdefault((cand.chunk.filing_id, cand.chunk.page), []).append(rank)

    def page_score(page_ranks: list[int]) -> float:
        score = 1.0 / (PAGE_RANK_K + page_ranks[0])
        if len(page_ranks) > 1:
            score += support / (PAGE_RANK_K + page_ranks[1])
        return score

    order = sorted(ranks, key=lambda key: (-page_score(ranks[key]), ranks[key][0]))
    best = {ranks[key][0] for key in order}
    first = [ranked[ranks[key][0] - 1] for key in order]
    rest = [cand for rank, cand in enumerate(ranked, start=1) if rank not in best]
    return first + rest


def rerank_pool(
    reranker: Reranker, query: str, pool: list[ScoredChunk], analysis: QueryAnalysis | None = None
) -> list[ScoredChunk]:
    """Every candidate of the pool reranked, one passage per page first (rank_pages), passages inside the
    Item filter ahead of widened ones (keep_filter_first).

    The whole pool is scored, not only the top_n kept, so every candidate carries its rerank score.
    """
    ranked = reranker.rerank(query, pool, len(pool), analysis=analysis)
    return keep_filter_first(rank_pages(ranked), len(pool))


def apply_rerank_scores(candidates: list[ScoredChunk], scores: list[float], top_n: int) -> list[ScoredChunk]:
    """Copies of the candidates ordered by score (ties keep first-stage order), cut to top_n."""
    order = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
    out: list[ScoredChunk] = []
    for rank, i in enumerate(order[: max(0, top_n)], start=1):
        cand = candidates[i]
        stage = cand.scores.model_copy(update={"rerank": float(scores[i]), "rerank_rank": rank})
        out.append(cand.model_copy(update={"score": float(scores[i]), "scores": stage}))
    return out


def _load_cross_encoder(model: str) -> Any:
    """Load a CrossEncoder from a local directory or the local HF cache only: never touch the network."""
    try:
        from sentence_transformers import CrossEncoder
    except ImportError as exc:  # pragma: no cover - sentence-transformers is a runtime dependency
        raise RerankerUnavailable("sentence-transformers is not installed") from exc
    path = Path(model).expanduser()
    source = str(path) if path.is_dir() else model
    try:
        # local_files_only makes a missing hub model fail at once instead of retrying for ~47 s offline.
        return CrossEncoder(source, local_files_only=True, device="cpu")
    except Exception as exc:  # any load failure means "not available here"
        log.info("cross-encoder %r could not be loaded: %s: %s", model, type(exc).__name__, exc)
        if path.is_dir():
            # The analyst chose a folder: name no path in the message (it goes into reports).
            raise RerankerUnavailable(
                "the cross-encoder in the configured folder could not be loaded"
            ) from exc
        raise RerankerUnavailable(f"the cross-encoder {model!r} is not installed on this machine") from exc


class CrossEncoderReranker:
    """Scores (query, passage) pairs jointly with a sentence-transformers CrossEncoder."""

    def __init__(self, model: str, *, batch_size: int = 16) -> None:
        self.model_name = model
        self.name = f"cross-encoder: {model}"
        self._batch_size = batch_size
        self._model = _load_cross_encoder(model)
        self._lock = threading.Lock()

    def rerank(
        self, query: str, candidates: list[ScoredChunk], top_n: int, analysis: QueryAnalysis | None = None
    ) -> list[ScoredChunk]:
        """Rerank by cross-encoder relevance of the information need (no instructions) to each passage."""
        if not candidates:
            return []
        text = analysis.core_query if analysis and analysis.core_query else query
        pairs = [(text, c.chunk.text) for c in candidates]
        with self._lock:  # torch modules are not safe to call from several threads at once
            scores = self._model.predict(pairs, batch_size=self._batch_size, show_progress_bar=False)
        return apply_rerank_scores(candidates, [float(s) for s in scores], top_n)


_CACHE: dict[str, CrossEncoderReranker | str] = {}
_CACHE_LOCK = threading.Lock()


def load_reranker(
    settings: Settings,
    embedder: Embedder,
    vectors: Any | None = None,
    embed_query: Callable[[str], np.ndarray] | None = None,
) -> tuple[Reranker, Fallback | None]:
    """The configured cross-encoder, or the local scorer plus a Fallback record saying why.

    Both outcomes are cached per model name for the process, so a missing model costs one failed
    local lookup, not one per query. ``vectors`` (a VectorStore) lets the local scorer reuse stored
    chunk embeddings instead of re-embedding candidates; ``embed_query`` lets it reuse a cached query vector.
    """
    from core.retrieval.local_rerank import LocalReranker

    model = settings.reranker_model
    with _CACHE_LOCK:
        cached = _CACHE.get(model)
        if cached is None:
            try:
                cached = CrossEncoderReranker(model)
            except RerankerUnavailable as exc:
                # The default model is not shipped, so its absence is routine; a configured one is a problem.
                level = logging.INFO if model == DEFAULT_RERANKER_MODEL else logging.WARNING
                log.log(level, "cross-encoder unavailable, using the local scorer: %s", exc)
                cached = str(exc)
            _CACHE[model] = cached
    if isinstance(cached, CrossEncoderReranker):
        return cached, None
    fallback = Fallback(
        component="reranker",
        used=LocalReranker.name,
        reason=f"{cached[:1].upper()}{cached[1:]}; reranked with the local scorer instead.",
        # The default model is not shipped: without it the local scorer is the documented default.
        routine=model == DEFAULT_RERANKER_MODEL,
    )
    return LocalReranker(embedder, vectors=vectors, embed_query=embed_query), fallback


def clear_reranker_cache() -> None:
    """Forget loaded rerankers (e.g. after a model was downloaded into the cache)."""
    with _CACHE_LOCK:
        _CACHE.clear()
