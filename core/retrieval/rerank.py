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
from core.retrieval.ranking import apply_rerank_scores, keep_filter_first, rank_pages

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


def rerank_pool(
    reranker: Reranker, query: str, pool: list[ScoredChunk], analysis: QueryAnalysis | None = None
) -> list[ScoredChunk]:
    """Every candidate of the pool reranked, one passage per page first (rank_pages), passages inside the
    Item filter ahead of widened ones (keep_filter_first).

    The whole pool is scored, not only the top_n kept, so every candidate carries its rerank score.
    """
    ranked = reranker.rerank(query, pool, len(pool), analysis=analysis)
    return keep_filter_first(rank_pages(ranked), len(pool))


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
