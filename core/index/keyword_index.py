"""Persisted BM25 keyword index over the same chunks as the vector store."""

from __future__ import annotations

import math
import os
import pickle
import threading
from pathlib import Path

import numpy as np
from rank_bm25 import BM25Okapi

from core.index.tokenizer import tokenize
from core.models import Chunk

_FORMAT_VERSION = 1


class _LuceneIdfBM25(BM25Okapi):
    """BM25Okapi with Lucene's always-positive idf, log(1 + (N - n + 0.5) / (n + 0.5)).

    rank_bm25's Okapi idf is zero for a term in half the documents and negative above that, which
    silently drops common-but-relevant terms in small collections such as one filing's Item.
    """

    def _calc_idf(self, nd: dict[str, int]) -> None:
        self.idf = {
            word: math.log(1.0 + (self.corpus_size - freq + 0.5) / (freq + 0.5)) for word, freq in nd.items()
        }


class KeywordIndex:
    """BM25 (rank_bm25.BM25Okapi) over tokenised chunks, persisted as one file per data directory.

    Token lists are kept per filing, so adding or removing a filing only re-fits the BM25 statistics;
    nothing is tokenised twice.
    """

    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock = threading.RLock()
        self._filings: dict[str, tuple[list[str], list[list[str]]]] = {}
        if path.exists():
            with path.open("rb") as fh:
                saved = pickle.load(fh)  # noqa: S301 - our own file in our own data directory
            if saved.get("version") == _FORMAT_VERSION:
                self._filings = saved["filings"]
        self._fit()

    def _fit(self) -> None:
        ids: list[str] = []
        corpus: list[list[str]] = []
        for chunk_ids, tokens in self._filings.values():
            ids.extend(chunk_ids)
            corpus.extend(tokens)
        self._ids = ids
        self._position = {cid: i for i, cid in enumerate(ids)}
        # BM25Okapi divides by the corpus size, so an empty index has no model at all.
        self._bm25 = _LuceneIdfBM25([t or ["_"] for t in corpus]) if corpus else None

    def _save(self) -> None:
        self._path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self._path.with_suffix(".tmp")
        with tmp.open("wb") as fh:
            pickle.dump({"version": _FORMAT_VERSION, "filings": self._filings}, fh)
        os.replace(tmp, self._path)  # atomic: readers see the old or the new index, never half

    def add_filing(self, filing_id: str, chunks: list[Chunk]) -> None:
        """Tokenise and add a filing's chunks, then persist."""
        with self._lock:
            self._filings[filing_id] = ([c.chunk_id for c in chunks], [tokenize(c.text) for c in chunks])
            self._fit()
            self._save()

    def remove_filing(self, filing_id: str) -> None:
        """Remove a filing's chunks (no-op if absent), then persist."""
        with self._lock:
            if self._filings.pop(filing_id, None) is not None:
                self._fit()
                self._save()

    def has_filing(self, filing_id: str) -> bool:
        return filing_id in self._filings

    def __len__(self) -> int:
        return len(self._ids)

    def search(
        self, query_tokens: list[str], k: int, allowed_ids: set[str] | None = None
    ) -> list[tuple[str, float]]:
        """Top-k (chunk_id, BM25 score) among allowed_ids (None = all), best first, score > 0 only."""
        with self._lock:
            if self._bm25 is None or not query_tokens or k <= 0:
                return []
            if allowed_ids is None:
                positions = np.arange(len(self._ids))
                scores = np.asarray(self._bm25.get_scores(query_tokens))
            else:
                positions = np.array(sorted(self._position[c] for c in allowed_ids if c in self._position))
                if positions.size == 0:
                    return []
                scores = np.asarray(self._bm25.get_batch_scores(query_tokens, positions.tolist()))
            top = np.argsort(-scores, kind="stable")[:k]
            return [(self._ids[positions[i]], float(scores[i])) for i in top if scores[i] > 0]
