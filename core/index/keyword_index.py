"""Persisted BM25 keyword index over the same chunks as the vector store, one file per filing.

Adding or removing a filing costs that filing: its postings (term frequencies and passage lengths) are built
and written alone, and the statistics BM25 shares across the library (passage count, average length, how
many passages hold each term) are running totals. Scores are weighed at query time, for the query's terms
only, so nothing is refitted when the library changes.

Written here rather than taken from a library: rank_bm25 (the reference the tests compare against) fits
the whole corpus at once and scores every document in Python, and the embedded engines that index
incrementally (SQLite FTS5) tokenise on their own terms, where BM25 here must read the tokens of
core.text.tokens that the rest of retrieval uses.
"""

from __future__ import annotations

import math
import os
import pickle
import threading
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.models import Chunk
from core.text.tokens import tokenize

#: BM25's term-frequency saturation and length normalisation (rank_bm25's defaults).
K1, B = 1.5, 0.75
#: A passage with no token at all counts as one token of its own, as the index has always done.
_EMPTY = "_"
_SUFFIX = ".npz"


@dataclass
class _FilingPostings:
    """One filing's postings: for each of its terms (sorted), the passages holding it and how often."""

    chunk_ids: np.ndarray  # str, in filing order
    lengths: np.ndarray  # int64 tokens per passage
    terms: np.ndarray  # str, sorted and unique
    bounds: np.ndarray  # int64, len(terms) + 1: term i's postings are docs[bounds[i]:bounds[i + 1]]
    docs: np.ndarray  # int64 passage positions
    freqs: np.ndarray  # int64 term frequency in that passage

    @classmethod
    def build(cls, chunk_ids: list[str], token_lists: list[list[str]]) -> _FilingPostings:
        token_lists = [tokens or [_EMPTY] for tokens in token_lists]
        triples = sorted(
            (term, position, tf)
            for position, tokens in enumerate(token_lists)
            for term, tf in Counter(tokens).items()
        )
        terms = [t for t, _, _ in triples]
        unique, starts = np.unique(np.asarray(terms, dtype=str), return_index=True) if triples else ([], [])
        return cls(
            chunk_ids=np.asarray(chunk_ids, dtype=str),
            lengths=np.asarray([len(t) for t in token_lists], dtype=np.int64),
            terms=np.asarray(unique, dtype=str),
            bounds=np.asarray([*starts, len(triples)], dtype=np.int64),
            docs=np.asarray([p for _, p, _ in triples], dtype=np.int64),
            freqs=np.asarray([f for _, _, f in triples], dtype=np.int64),
        )

    def document_frequencies(self) -> dict[str, int]:
        return dict(zip(self.terms.tolist(), np.diff(self.bounds).tolist(), strict=True))

    def scores(self, terms: np.ndarray, idf: np.ndarray, average_length: float) -> np.ndarray:
        """BM25 score of each passage for the query `terms` (with their idf), 0 where none occurs; a repeated
        query term counts again."""
        total = np.zeros(len(self.lengths))
        at = np.searchsorted(self.terms, terms)
        for i in np.flatnonzero(at < len(self.terms)):
            if self.terms[at[i]] != terms[i]:
                continue
            start, end = self.bounds[at[i]], self.bounds[at[i] + 1]
            docs, tf = self.docs[start:end], self.freqs[start:end]  # each passage once per term
            norm = K1 * (1 - B + B * self.lengths[docs] / average_length)
            total[docs] += idf[i] * tf * (K1 + 1) / (tf + norm)
        return total

    def save(self, path: Path) -> None:
        tmp = path.with_name(f".{path.name}.tmp")
        with tmp.open("wb") as fh:
            np.savez(fh, **self.__dict__)
        os.replace(tmp, path)  # atomic: a reader sees the old postings or the new, never half

    @classmethod
    def load(cls, path: Path) -> _FilingPostings:
        with np.load(path, allow_pickle=False) as saved:
            return cls(**{name: saved[name] for name in cls.__dataclass_fields__})


class KeywordIndex:
    """BM25 (Lucene's always-positive idf) over tokenised chunks, one postings file per filing in `directory`.

    Only passages holding a query term are scored; a query term counts again when repeated and a term the
    library never uses adds nothing. A keyword index of the earlier single-file format (`legacy`) is split
    into per-filing files when the index is first opened; its token lists are reused, nothing is re-read.
    """

    def __init__(self, directory: Path, legacy: Path | None = None) -> None:
        self._dir = directory
        self._lock = threading.RLock()
        self._filings: dict[str, _FilingPostings] = {}
        self._where: dict[str, tuple[str, int]] = {}  # chunk id -> (filing id, position)
        self._df: Counter[str] = Counter()
        self._passages = 0
        self._tokens = 0
        if legacy is not None and legacy.exists():
            self._migrate(legacy)
        if directory.is_dir():
            for path in sorted(directory.glob(f"*{_SUFFIX}")):
                self._hold(path.name.removesuffix(_SUFFIX), _FilingPostings.load(path))

    def _migrate(self, legacy: Path) -> None:
        with legacy.open("rb") as fh:
            saved = pickle.load(fh)  # noqa: S301 - our own file in our own data directory
        if saved.get("version") == 1:
            self._dir.mkdir(parents=True, exist_ok=True)
            for filing_id, (chunk_ids, token_lists) in saved["filings"].items():
                _FilingPostings.build(chunk_ids, token_lists).save(self._path(filing_id))
        legacy.unlink()

    def _path(self, filing_id: str) -> Path:
        return self._dir / f"{filing_id}{_SUFFIX}"

    def _hold(self, filing_id: str, postings: _FilingPostings) -> None:
        self._release(filing_id)
        self._filings[filing_id] = postings
        self._where.update((cid, (filing_id, i)) for i, cid in enumerate(postings.chunk_ids.tolist()))
        self._df.update(postings.document_frequencies())
        self._passages += len(postings.lengths)
        self._tokens += int(postings.lengths.sum())

    def _release(self, filing_id: str) -> None:
        postings = self._filings.pop(filing_id, None)
        if postings is None:
            return
        for cid in postings.chunk_ids.tolist():
            self._where.pop(cid, None)
        self._df.subtract(postings.document_frequencies())
        self._df += Counter()  # drop the terms no passage holds any more
        self._passages -= len(postings.lengths)
        self._tokens -= int(postings.lengths.sum())

    def add_filing(self, filing_id: str, chunks: list[Chunk]) -> None:
        """Tokenise a filing's chunks and write its postings (replacing any it had)."""
        postings = _FilingPostings.build(
            [c.chunk_id for c in chunks], [tokenize(c.indexed_text) for c in chunks]
        )
        with self._lock:
            self._dir.mkdir(parents=True, exist_ok=True)
            postings.save(self._path(filing_id))
            self._hold(filing_id, postings)

    def remove_filing(self, filing_id: str) -> None:
        """Remove a filing's postings (no-op if absent)."""
        with self._lock:
            self._release(filing_id)
            self._path(filing_id).unlink(missing_ok=True)

    def ids_by_filing(self) -> dict[str, set[str]]:
        """filing_id -> its chunk ids in the index."""
        with self._lock:
            return {filing_id: set(p.chunk_ids.tolist()) for filing_id, p in self._filings.items()}

    def has_filing(self, filing_id: str) -> bool:
        return filing_id in self._filings

    def __len__(self) -> int:
        return self._passages

    def _idf(self, term: str) -> float:
        n = self._df.get(term, 0)
        return math.log(1.0 + (self._passages - n + 0.5) / (n + 0.5))

    def search(
        self, query_tokens: list[str], k: int, allowed_ids: set[str] | None = None
    ) -> list[tuple[str, float]]:
        """Top-k (chunk_id, BM25 score) among allowed_ids (None = all), best first, score > 0 only; ties in
        filing order, then passage order."""
        with self._lock:
            if not self._passages or not query_tokens or k <= 0:
                return []
            scope: dict[str, np.ndarray | None]
            if allowed_ids is None:
                scope = dict.fromkeys(sorted(self._filings))
            else:
                positions: dict[str, list[int]] = {}
                for cid in allowed_ids:
                    if (where := self._where.get(cid)) is not None:
                        positions.setdefault(where[0], []).append(where[1])
                scope = {f: np.asarray(sorted(p), dtype=np.int64) for f, p in sorted(positions.items())}
            known = [t for t in query_tokens if t in self._df]
            terms = np.asarray(known, dtype=str)
            idf = np.asarray([self._idf(t) for t in known])
            average = self._tokens / self._passages
            ids: list[np.ndarray] = []
            scores: list[np.ndarray] = []
            for filing_id, allowed in scope.items():
                postings = self._filings[filing_id]
                score = postings.scores(terms, idf, average) if known else np.zeros(len(postings.lengths))
                chosen = np.flatnonzero(score > 0) if allowed is None else allowed[score[allowed] > 0]
                ids.append(postings.chunk_ids[chosen])
                scores.append(score[chosen])
            if not ids:
                return []
            all_ids, all_scores = np.concatenate(ids), np.concatenate(scores)
            top = np.argsort(-all_scores, kind="stable")[:k]
            return [(str(all_ids[i]), float(all_scores[i])) for i in top]
