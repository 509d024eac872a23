"""Persisted BM25 keyword index over the same chunks as the vector store."""

from __future__ import annotations

import math
import os
import pickle
import threading
from pathlib import Path

import numpy as np
from rank_bm25 import BM25Okapi

from core.models import Chunk
from core.text.tokens import tokenize

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


class _Postings:
    """An inverted index over a fitted BM25: for each term, the documents holding it and its BM25 weight there.

    rank_bm25 scores a query by walking every document in Python (~200 ms over 40k passages). Here each
    term's contribution idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avgdl)) is computed once at
    fit time, so a query only adds up the postings of its own terms: the same scores as
    BM25Okapi.get_scores (a repeated query term counts again, a term outside the index adds nothing),
    for the documents that contain a query term; every other document scores 0.
    """

    def __init__(self, bm25: BM25Okapi) -> None:
        self.size = bm25.corpus_size
        k1, b, avgdl = bm25.k1, bm25.b, bm25.avgdl
        vocabulary: dict[str, int] = {}
        term_ids: list[int] = []
        doc_ids: list[int] = []
        freqs: list[int] = []
        for doc, counts in enumerate(bm25.doc_freqs):
            for term, tf in counts.items():
                term_ids.append(vocabulary.setdefault(term, len(vocabulary)))
                doc_ids.append(doc)
                freqs.append(tf)
        terms = np.asarray(term_ids, dtype=np.int64)
        docs = np.asarray(doc_ids, dtype=np.int64)
        tf = np.asarray(freqs, dtype=np.float64)
        lengths = np.asarray(bm25.doc_len, dtype=np.float64)[docs]
        idf = np.asarray([bm25.idf.get(t) or 0.0 for t in vocabulary], dtype=np.float64)[terms]
        weights = idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * lengths / avgdl))
        order = np.argsort(terms, kind="stable")
        bounds = np.searchsorted(terms[order], np.arange(len(vocabulary) + 1))
        self._docs = docs[order]
        self._weights = weights[order]
        self._span = {term: (int(bounds[i]), int(bounds[i + 1])) for term, i in vocabulary.items()}

    def scores(self, query_tokens: list[str]) -> np.ndarray:
        """BM25 score of every document (0 where no query term occurs)."""
        total = np.zeros(self.size)
        for term in query_tokens:
            span = self._span.get(term)
            if span is not None:
                start, end = span  # a term's postings name each document once
                total[self._docs[start:end]] += self._weights[start:end]
        return total


class KeywordIndex:
    """BM25 (rank_bm25.BM25Okapi statistics) over tokenised chunks, persisted as one file per data directory.

    Token lists are kept per filing, so adding or removing a filing only re-fits the BM25 statistics;
    nothing is tokenised twice. Queries are answered from an inverted index over the same statistics
    (see _Postings), so only passages holding a query term are scored.
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
        bm25 = _LuceneIdfBM25([t or ["_"] for t in corpus]) if corpus else None
        self._postings = _Postings(bm25) if bm25 is not None else None

    def _save(self) -> None:
        self._path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self._path.with_suffix(".tmp")
        with tmp.open("wb") as fh:
            pickle.dump({"version": _FORMAT_VERSION, "filings": self._filings}, fh)
        os.replace(tmp, self._path)  # atomic: readers see the old or the new index, never half

    def add_filing(self, filing_id: str, chunks: list[Chunk]) -> None:
        """Tokenise and add a filing's chunks, then persist."""
        with self._lock:
            self._filings[filing_id] = (
                [c.chunk_id for c in chunks],
                [tokenize(c.indexed_text) for c in chunks],
            )
            self._fit()
            self._save()

    def remove_filing(self, filing_id: str) -> None:
        """Remove a filing's chunks (no-op if absent), then persist."""
        with self._lock:
            if self._filings.pop(filing_id, None) is not None:
                self._fit()
                self._save()

    def ids_by_filing(self) -> dict[str, set[str]]:
        """filing_id -> its chunk ids in the index."""
        with self._lock:
            return {filing_id: set(ids) for filing_id, (ids, _) in self._filings.items()}

    def has_filing(self, filing_id: str) -> bool:
        return filing_id in self._filings

    def __len__(self) -> int:
        return len(self._ids)

    def search(
        self, query_tokens: list[str], k: int, allowed_ids: set[str] | None = None
    ) -> list[tuple[str, float]]:
        """Top-k (chunk_id, BM25 score) among allowed_ids (None = all), best first, score > 0 only."""
        with self._lock:
            if self._postings is None or not query_tokens or k <= 0:
                return []
            scores = self._postings.scores(query_tokens)
            if allowed_ids is None:
                positions = np.arange(len(self._ids))
            else:
                positions = np.array(sorted(self._position[c] for c in allowed_ids if c in self._position))
                if positions.size == 0:
                    return []
                scores = scores[positions]
            hits = np.flatnonzero(scores > 0)
            top = hits[np.argsort(-scores[hits], kind="stable")[:k]]
            return [(self._ids[positions[i]], float(scores[i])) for i in top]
