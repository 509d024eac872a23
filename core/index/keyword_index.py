"""Persisted BM25 keyword index over the same chunks as the vector store, one file per filing.

Adding or removing a filing costs that filing: its postings (term frequencies and passage lengths) are built
and written alone, and the statistics BM25 shares across the library (passage count, average length, how
many passages hold each term) are running totals. Scores are weighed at query time, for the query's terms
only, so nothing is refitted when the library changes.

In memory, filings are merged into segments of up to SEGMENT_FILINGS filings (passage positions run on
across a segment's filings), so a search over a library of a thousand filings scores a few dozen arrays, not
a thousand. A new filing is a segment of its own, merged with the newest segments as a binary counter
merges (each merge is of at most SEGMENT_FILINGS filings); a removed filing's passages are masked in its
segment, and the segment is merged again without them once they are half of it. No change costs more
than one segment's filings, whatever the library's size.

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
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from core.models import Chunk
from core.text.tokens import tokenize

#: BM25's term-frequency saturation and length normalisation (rank_bm25's defaults).
K1, B = 1.5, 0.75
#: A passage with no token at all counts as one token of its own, as the index has always done.
TOKEN_OF_EMPTY_PASSAGE = "_"  # noqa: S105 - a token, not a password
_SUFFIX = ".npz"
#: The most filings one in-memory segment merges (bounds what adding or removing a filing may cost).
SEGMENT_FILINGS = 64


@dataclass
class _FilingPostings:
    """One filing's postings: for each of its terms (sorted), the passages holding it and how often."""

    chunk_ids: np.ndarray  # str, in filing order
    lengths: np.ndarray  # int64 tokens per passage
    terms: np.ndarray  # str, sorted and unique
    bounds: np.ndarray  # int64, len(terms) + 1: term i's postings are docs[bounds[i]:bounds[i + 1]]
    docs: np.ndarray  # passage positions (int64 as built and stored, int32 once merged)
    freqs: np.ndarray  # term frequency in that passage (as docs)

    @classmethod
    def build(cls, chunk_ids: list[str], token_lists: list[list[str]]) -> _FilingPostings:
        token_lists = [tokens or [TOKEN_OF_EMPTY_PASSAGE] for tokens in token_lists]
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

    @classmethod
    def merge(cls, parts: list[_FilingPostings], keep: list[np.ndarray | None]) -> _FilingPostings:
        """One postings of several, passages in part order; `keep` (per part, a mask over its passages, None:
        all) drops passages. Terms are unioned once; each term's postings stay in part order, then passage order."""
        term_index, docs, freqs, offset = [], [], [], 0
        unique, inverse = np.unique(np.concatenate([p.terms for p in parts]), return_inverse=True)
        term_start = 0
        for part, mask in zip(parts, keep, strict=True):
            local_term = np.repeat(np.arange(len(part.terms)), np.diff(part.bounds))
            part_docs, part_freqs = part.docs, part.freqs
            if mask is not None:
                new_position = np.cumsum(mask) - 1
                alive = mask[part_docs]
                local_term, part_docs, part_freqs = (
                    local_term[alive],
                    new_position[part_docs[alive]],
                    part_freqs[alive],
                )
            term_index.append(inverse[term_start + local_term])
            docs.append(part_docs + offset)
            freqs.append(part_freqs)
            offset += len(part.lengths) if mask is None else int(mask.sum())
            term_start += len(part.terms)
        all_terms = np.concatenate(term_index)
        order = np.argsort(all_terms, kind="stable")  # each part is sorted by term: a merge of sorted runs
        counts = np.bincount(all_terms, minlength=len(unique))
        present = counts > 0  # a term only removed passages held goes
        return cls(
            chunk_ids=np.concatenate(
                [p.chunk_ids if m is None else p.chunk_ids[m] for p, m in zip(parts, keep, strict=True)]
            ),
            lengths=np.concatenate(
                [p.lengths if m is None else p.lengths[m] for p, m in zip(parts, keep, strict=True)]
            ),
            terms=unique[present],
            bounds=np.concatenate([[0], np.cumsum(counts[present])]).astype(np.int64),
            # 32 bits in memory (a segment holds far fewer than 2**31 passages): half the int64 of the files
            docs=np.concatenate(docs)[order].astype(np.int32),
            freqs=np.concatenate(freqs)[order].astype(np.int32),
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


@dataclass
class _Segment:
    """Filings merged into one postings (their passages one after another); a removed filing's passages stay
    until the segment is merged again, masked."""

    filing_ids: list[str]
    #: int64, len(filing_ids) + 1: filing i's passages are positions starts[i]:starts[i + 1]
    starts: np.ndarray
    postings: _FilingPostings
    removed: np.ndarray  # bool per passage: its filing was removed since the merge
    gone: set[str] = field(default_factory=set)  # the filings removed since the merge

    @classmethod
    def merge(cls, segments: list[_Segment]) -> _Segment:
        """The live filings of `segments` as one segment, removed passages dropped."""
        live = [s for s in segments if s.live_filings()]
        filing_ids, lengths = [], []
        for segment in live:
            for i, filing_id in enumerate(segment.filing_ids):
                if filing_id not in segment.gone:
                    filing_ids.append(filing_id)
                    lengths.append(int(segment.starts[i + 1] - segment.starts[i]))
        postings = _FilingPostings.merge(
            [s.postings for s in live], [~s.removed if s.removed.any() else None for s in live]
        )
        return cls(
            filing_ids,
            np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
            postings,
            np.zeros(len(postings.lengths), dtype=bool),
        )

    @classmethod
    def of(cls, filing_id: str, postings: _FilingPostings) -> _Segment:
        n = len(postings.lengths)
        return cls([filing_id], np.asarray([0, n], dtype=np.int64), postings, np.zeros(n, dtype=bool))

    def span(self, filing_id: str) -> tuple[int, int]:
        i = self.filing_ids.index(filing_id)
        return int(self.starts[i]), int(self.starts[i + 1])

    def live_filings(self) -> int:
        return len(self.filing_ids) - len(self.gone)

    def document_frequencies(self, start: int, end: int) -> Counter[str]:
        """How many of the passages start:end hold each term."""
        postings = self.postings
        inside = (postings.docs >= start) & (postings.docs < end)
        term = np.repeat(np.arange(len(postings.terms)), np.diff(postings.bounds))[inside]
        counts = np.bincount(term, minlength=len(postings.terms))
        held = np.flatnonzero(counts)
        return Counter(dict(zip(postings.terms[held].tolist(), counts[held].tolist(), strict=True)))


class KeywordIndex:
    """BM25 (Lucene's always-positive idf) over tokenised chunks, one postings file per filing in `directory`.

    Only passages holding a query term are scored; a query term counts again when repeated and a term the
    library never uses adds nothing. A keyword index of the earlier single-file format (`legacy`) is split
    into per-filing files when the index is first opened; its token lists are reused, nothing is re-read.
    """

    def __init__(self, directory: Path, legacy: Path | None = None) -> None:
        self._dir = directory
        self._lock = threading.RLock()
        self._segments: list[_Segment] = []
        self._segment_of: dict[str, _Segment] = {}
        self._where: dict[str, tuple[str, int]] = {}  # chunk id -> (filing id, position in the filing)
        self._df: Counter[str] = Counter()
        self._passages = 0
        self._tokens = 0
        if legacy is not None and legacy.exists():
            self._migrate(legacy)
        paths = sorted(directory.glob(f"*{_SUFFIX}")) if directory.is_dir() else []
        for start in range(0, len(paths), SEGMENT_FILINGS):
            group = [
                _Segment.of(path.name.removesuffix(_SUFFIX), _FilingPostings.load(path))
                for path in paths[start : start + SEGMENT_FILINGS]
            ]
            self._hold(_Segment.merge(group))

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

    def _hold(self, segment: _Segment) -> None:
        """Take a segment of filings the index does not hold into the search and the running totals."""
        self._segments.append(segment)
        postings = segment.postings
        for i, filing_id in enumerate(segment.filing_ids):
            self._segment_of[filing_id] = segment
            start, end = int(segment.starts[i]), int(segment.starts[i + 1])
            self._where.update(
                (cid, (filing_id, p)) for p, cid in enumerate(postings.chunk_ids[start:end].tolist())
            )
        self._df.update(postings.document_frequencies())
        self._passages += len(postings.lengths)
        self._tokens += int(postings.lengths.sum())

    def _merge_newest(self) -> None:
        """Merge the newest segments as a binary counter carries: while the newest holds as many filings as
        the one before, and the two fit in one segment."""
        while len(self._segments) >= 2:
            last, before = self._segments[-1], self._segments[-2]
            if last.live_filings() < before.live_filings() or (
                last.live_filings() + before.live_filings() > SEGMENT_FILINGS
            ):
                return
            self._replace([before, last], _Segment.merge([before, last]))

    def _replace(self, old: list[_Segment], merged: _Segment) -> None:
        """Put `merged` (the live filings of `old`) where the first of `old` was; totals are unchanged."""
        at = min(self._segments.index(s) for s in old)
        self._segments = [s for s in self._segments if all(s is not o for o in old)]
        self._segments.insert(at, merged)
        for filing_id in merged.filing_ids:
            self._segment_of[filing_id] = merged

    def _release(self, filing_id: str) -> None:
        segment = self._segment_of.pop(filing_id, None)
        if segment is None:
            return
        start, end = segment.span(filing_id)
        for cid in segment.postings.chunk_ids[start:end].tolist():
            self._where.pop(cid, None)
        self._df.subtract(segment.document_frequencies(start, end))
        self._df += Counter()  # drop the terms no passage holds any more
        self._passages -= end - start
        self._tokens -= int(segment.postings.lengths[start:end].sum())
        segment.removed[start:end] = True
        segment.gone.add(filing_id)
        if not segment.live_filings():
            self._segments = [s for s in self._segments if s is not segment]
        elif segment.removed.mean() > 0.5:  # more removed than held: merged again without them
            self._replace([segment], _Segment.merge([segment]))

    def add_filing(self, filing_id: str, chunks: list[Chunk]) -> None:
        """Tokenise a filing's chunks and write its postings (replacing any it had)."""
        postings = _FilingPostings.build(
            [c.chunk_id for c in chunks], [tokenize(c.indexed_text) for c in chunks]
        )
        with self._lock:
            self._dir.mkdir(parents=True, exist_ok=True)
            postings.save(self._path(filing_id))
            self._release(filing_id)
            self._hold(_Segment.of(filing_id, postings))
            self._merge_newest()

    def remove_filing(self, filing_id: str) -> None:
        """Remove a filing's postings (no-op if absent)."""
        with self._lock:
            self._release(filing_id)
            self._path(filing_id).unlink(missing_ok=True)

    def ids_by_filing(self) -> dict[str, set[str]]:
        """filing_id -> its chunk ids in the index."""
        with self._lock:
            out: dict[str, set[str]] = {}
            for filing_id, segment in self._segment_of.items():
                start, end = segment.span(filing_id)
                out[filing_id] = set(segment.postings.chunk_ids[start:end].tolist())
            return out

    def has_filing(self, filing_id: str) -> bool:
        return filing_id in self._segment_of

    def __len__(self) -> int:
        return self._passages

    def _idf(self, term: str) -> float:
        n = self._df.get(term, 0)
        return math.log(1.0 + (self._passages - n + 0.5) / (n + 0.5))

    def search(
        self,
        query_tokens: list[str],
        k: int,
        allowed_ids: set[str] | None = None,
        filing_ids: list[str] | None = None,
    ) -> list[tuple[str, float]]:
        """Top-k (chunk_id, BM25 score) among allowed_ids (None = all), best first, score > 0 only; ties in
        filing-id order, then passage order. `filing_ids` (the allowed passages' filings) lets a database
        engine read less; here allowed_ids already says where to look."""
        with self._lock:
            if not self._passages or not query_tokens or k <= 0:
                return []
            scope: dict[int, np.ndarray | None]  # segment -> the positions allowed in it (None: all)
            if allowed_ids is None:
                scope = dict.fromkeys(range(len(self._segments)))
            else:
                at = {id(s): i for i, s in enumerate(self._segments)}
                positions: dict[int, list[int]] = {}
                placed: dict[str, tuple[int, int]] = {}  # filing -> (its segment, where it starts there)
                for cid in allowed_ids:
                    if (where := self._where.get(cid)) is not None:
                        if (place := placed.get(where[0])) is None:
                            segment = self._segment_of[where[0]]
                            place = placed[where[0]] = (at[id(segment)], segment.span(where[0])[0])
                        positions.setdefault(place[0], []).append(place[1] + where[1])
                scope = {i: np.unique(np.asarray(p, dtype=np.int64)) for i, p in positions.items()}
            known = [t for t in query_tokens if t in self._df]
            if not known:
                return []
            terms = np.asarray(known, dtype=str)
            idf = np.asarray([self._idf(t) for t in known])
            average = self._tokens / self._passages
            segment_of, positions_of, scores_of = [], [], []  # every passage scored above 0
            for i, allowed in scope.items():
                segment = self._segments[i]
                score = segment.postings.scores(terms, idf, average)
                if segment.gone:
                    score[segment.removed] = 0.0
                chosen = np.flatnonzero(score > 0) if allowed is None else allowed[score[allowed] > 0]
                segment_of.append(np.full(len(chosen), i))
                positions_of.append(chosen)
                scores_of.append(score[chosen])
            if not scores_of:
                return []
            where_in, positions, scores = (np.concatenate(c) for c in (segment_of, positions_of, scores_of))
            if len(scores) > k:  # only the k best and those tied with the k-th are ordered
                kth = np.partition(scores, len(scores) - k)[len(scores) - k]
                best = np.flatnonzero(scores >= kth)
                where_in, positions, scores = where_in[best], positions[best], scores[best]
            ids = np.empty(len(scores), dtype=object)
            filings = np.empty(len(scores), dtype=object)
            positions_in = np.empty(len(scores), dtype=np.int64)
            for i in np.unique(where_in).tolist():
                segment, here = self._segments[i], np.flatnonzero(where_in == i)
                filing = np.searchsorted(segment.starts, positions[here], side="right") - 1
                ids[here] = segment.postings.chunk_ids[positions[here]]
                filings[here] = np.asarray(segment.filing_ids, dtype=object)[filing]
                positions_in[here] = positions[here] - segment.starts[filing]
            order = np.lexsort((positions_in, filings.astype(str), -scores))[:k]
            return [(str(ids[j]), float(scores[j])) for j in order]
