"""The index as one object: catalog (truth), Chroma vectors, BM25 keywords, and the embedder."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from core.config import Settings
from core.index.catalog import Catalog
from core.index.embedding_cache import CacheStats, EmbeddingCache
from core.index.embeddings import Embedder, get_embedder
from core.index.keyword_index import KeywordIndex
from core.index.postgres_library import (
    PostgresCatalog,
    PostgresKeywordIndex,
    PostgresLibrary,
    PostgresWriteMarks,
)
from core.index.vector_store import VectorStore
from core.models import Chunk, Fact, Filing

log = logging.getLogger(__name__)

#: A stored original with no catalog entry is an orphan only once it is this old (seconds).
ORPHAN_UPLOAD_AGE_S = 600.0
#: Folder (in the data directory) of the marks of filings being written (see IndexStore.writing).
PENDING_WRITES_DIR = "pending-writes"


class FilingAlreadyIngested(RuntimeError):
    """Another ingestion of the same file committed first (same content, same filing id)."""


class FileWriteMarks:
    """Marks of filings being written, as empty files in the data directory (the embedded library's): a
    mark left behind is a write a killed process did not finish."""

    def __init__(self, directory: Path) -> None:
        self._dir = directory

    @contextmanager
    def hold(self, filing_id: str) -> Iterator[None]:
        marker = self._dir / filing_id
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
        try:
            yield
        finally:
            marker.unlink(missing_ok=True)

    def interrupted(self) -> set[str]:
        return {p.name for p in self._dir.iterdir()} if self._dir.is_dir() else set()

    def elsewhere(self) -> set[str]:
        """Files cannot tell a live writer from a dead one: every mark counts as interrupted."""
        return set()

    def clear(self, filing_ids: set[str]) -> None:
        for name in filing_ids:
            (self._dir / name).unlink(missing_ok=True)


@dataclass
class IndexStore:
    """Everything searchable in one library (under one data directory, or in the library database several
    app servers share); this process's writes go through `write_lock`, every process's through `marks`."""

    settings: Settings
    catalog: Catalog
    vectors: VectorStore
    keywords: KeywordIndex | PostgresKeywordIndex
    embedder: Embedder
    embedding_cache: EmbeddingCache
    marks: FileWriteMarks | PostgresWriteMarks
    write_lock: threading.Lock = field(default_factory=threading.Lock)
    library: PostgresLibrary | None = None

    @classmethod
    def open(cls, settings: Settings) -> IndexStore:
        """Open (creating if needed) the stores settings name: under settings.data_dir, or the catalog and
        keywords in the library database (WORKBENCH_LIBRARY_URL); the model loads lazily."""
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        embedder = get_embedder(settings.embedding_model)
        cache = EmbeddingCache(settings.embedding_cache_path)  # per app server: a cache, not the library
        if settings.library_url is None:
            return cls(
                settings=settings,
                catalog=Catalog(settings.catalog_path),
                vectors=VectorStore(settings, embedder),
                keywords=KeywordIndex(settings.keyword_index_dir, legacy=settings.legacy_keyword_index_path),
                embedder=embedder,
                embedding_cache=cache,
                marks=FileWriteMarks(settings.data_dir / PENDING_WRITES_DIR),
            )
        library = PostgresLibrary(settings.library_url.get_secret_value())
        if settings.chroma_namespace is None:  # every app server of the library names its collections alike
            settings = settings.model_copy(update={"chroma_namespace": library.library_id()})
        return cls(
            settings=settings,
            catalog=PostgresCatalog(library),
            vectors=VectorStore(settings, embedder),
            keywords=PostgresKeywordIndex(library),
            embedder=embedder,
            embedding_cache=cache,
            marks=PostgresWriteMarks(library),
            library=library,
        )

    @property
    def reader(self) -> Embedder:
        """The model that reads text at query time: the index's own model, or, for a static index model,
        the transformer it was distilled from (rescoring candidates, choosing sentences, judging)."""
        source = getattr(self.embedder, "source_model", None)
        return self.embedder if source is None else get_embedder(source)

    @property
    def rescores(self) -> bool:
        """Whether search candidates are rescored by a model other than the one the vector index holds."""
        return self.reader is not self.embedder

    def warm_reader(self, filing_id: str) -> int:
        """Embed a filing's passages with the reader model into the embedding cache, so the searches that
        rescore them find their vectors there; the number embedded (0 when the index model is the reader)."""
        if not self.rescores:
            return 0
        texts = [c.indexed_text for c in self.catalog.list_chunks(filing_id)]
        stats = CacheStats()
        self.embedding_cache.embed(self.reader, texts, stats=stats)
        return stats.embedded

    def close(self) -> None:
        """Close the catalog (and the library database's connections)."""
        self.catalog.close()
        if self.library is not None:
            self.library.close()

    def original_path(self, filing: Filing) -> Path:
        """Where the filing's original file is kept (named by its content hash, never by the upload name)."""
        return self.settings.uploads_dir / f"{filing.filing_id}.{filing.source_type}"

    def add_filing(
        self,
        filing: Filing,
        chunks: list[Chunk],
        vectors: np.ndarray,
        original: bytes,
        *,
        replacing: bool = False,
        facts: list[Fact] | None = None,
        fact_vectors: np.ndarray | None = None,
    ) -> None:
        """Write a filing's catalog rows (passages and facts), vectors, BM25 postings and stored original;
        undo every store on any failure (the counterpart of delete_filing).

        `replacing` (a re-index): the filing's old rows are deleted in the same catalog transaction that
        inserts the new ones, so until it commits the catalog holds the old passages; on a failure the old
        vectors and postings are rebuilt from them and the stored original stays. A process killed mid-way
        leaves stores that `repair` makes agree with the catalog again at the next start.
        """
        with self.write_lock, self.writing(filing.filing_id):
            # Two uploads of one file may both pass the early duplicate check; the second must neither
            # insert it twice nor, rolling back, remove the vectors and postings the first one wrote. (On a
            # shared library the write mark makes a second app server's write of it wait for the first.)
            if not replacing and self.catalog.get_filing(filing.filing_id) is not None:
                raise FilingAlreadyIngested(filing.filing_id)
            self._write_filing(
                filing, chunks, vectors, original, replacing=replacing, facts=facts, fact_vectors=fact_vectors
            )

    def _write_filing(
        self,
        filing: Filing,
        chunks: list[Chunk],
        vectors: np.ndarray,
        original: bytes,
        *,
        replacing: bool,
        facts: list[Fact] | None,
        fact_vectors: np.ndarray | None,
    ) -> None:
        """add_filing's writes and their undo; the caller holds write_lock and the write mark."""
        upload = self.original_path(filing)
        try:
            with self.catalog.transaction() as conn:
                if replacing:
                    self.catalog.delete_filing_rows(conn, filing.filing_id)
                    self.vectors.delete_filing(filing.filing_id)
                    self.keywords.remove_filing(filing.filing_id)
                self.catalog.insert_filing(conn, filing, chunks, facts, fact_vectors)
                self.vectors.add(chunks, vectors)
                self.keywords.add_filing(filing.filing_id, chunks)
                upload.parent.mkdir(parents=True, exist_ok=True)
                upload.write_bytes(original)
        except BaseException:
            # The catalog transaction rolled back by itself; undo the stores that have no transactions.
            undo_steps = [
                lambda: self.vectors.delete_filing(filing.filing_id),
                lambda: self.keywords.remove_filing(filing.filing_id),
            ]
            if replacing:
                undo_steps.append(lambda: self.rebuild_search_index(filing.filing_id))
            else:
                undo_steps.append(lambda: upload.unlink(missing_ok=True))
            for undo in undo_steps:
                try:
                    undo()
                except Exception:
                    log.exception("rollback step failed for %s", filing.filing_id)
            raise

    def delete_filing(self, filing_id: str) -> bool:
        """Remove a filing from every store and its stored original; False if it was not there."""
        with self.write_lock, self.writing(filing_id):
            if self.catalog.get_filing(filing_id) is None:
                return False
            self.vectors.delete_filing(filing_id)
            self.keywords.remove_filing(filing_id)
            for path in self.settings.uploads_dir.glob(f"{filing_id}.*"):
                path.unlink(missing_ok=True)
            with self.catalog.transaction() as conn:
                self.catalog.delete_filing_rows(conn, filing_id)
            return True

    def rebuild_search_index(self, filing_id: str) -> int:
        """Write a catalogued filing's vectors and BM25 postings again from its catalog passages (vectors
        from the embedding cache where it has them); returns the passage count. Caller holds write_lock."""
        chunks = self.catalog.list_chunks(filing_id)
        vectors = self.embedding_cache.embed(self.embedder, [c.indexed_text for c in chunks])
        self.vectors.delete_filing(filing_id)
        if chunks:
            self.vectors.add(chunks, vectors)
            self.keywords.add_filing(filing_id, chunks)
        else:
            self.keywords.remove_filing(filing_id)
        return len(chunks)

    @contextmanager
    def writing(self, filing_id: str) -> Iterator[None]:
        """Mark a filing as being written while the block runs: the vector store and the BM25 index have
        no transactions with the catalog, so a process killed mid-write leaves the mark, and `repair` knows
        which filing's vectors and postings to distrust. Caller holds write_lock."""
        with self.marks.hold(filing_id):
            yield

    def repair(self, *, settle_s: float = ORPHAN_UPLOAD_AGE_S) -> list[str]:
        """Make the vectors, the BM25 index and the stored originals agree with the catalog, the truth,
        after a process was killed mid-write; returns what was done, in sentences (empty: all agreed).

        Only when a write was interrupted (its mark is left, see `writing`) are the stores compared:
        passages of an ingestion that never reached the catalog are removed; a catalogued filing whose
        write was interrupted (a re-index, a delete) or whose vectors or postings do not match its
        passages gets them rebuilt from the catalog. Always: an original with no catalog entry is removed
        once it is older than `settle_s` (a younger one may belong to an ingestion under way in another
        process), or at once when its write was interrupted.
        """
        notes: list[str] = []
        with self.write_lock:
            pending = self.marks.interrupted()
            catalogued = {f.filing_id: f for f in self.catalog.list_filings()}
            if not pending:
                # Every write of a filing leaves a mark until it is done: without one, the stores agree,
                # and the costly comparison (every vector's metadata) is skipped.
                return self._remove_orphan_uploads(set(catalogued), settle_s)
            in_vectors = self.vectors.ids_by_filing()
            in_keywords = self.keywords.ids_by_filing()
            being_written = self.marks.elsewhere()  # by another app server of a shared library, right now
            for filing_id in sorted(
                (set(in_vectors) | set(in_keywords) | pending) - set(catalogued) - being_written
            ):
                count = max(len(in_vectors.get(filing_id, ())), len(in_keywords.get(filing_id, ())))
                self.vectors.delete_filing(filing_id)
                self.keywords.remove_filing(filing_id)
                for path in self.settings.uploads_dir.glob(f"{filing_id}.*"):
                    path.unlink(missing_ok=True)
                notes.append(
                    f"Removed {count} passages of an ingestion that did not finish."
                    if count
                    else "Cleaned up after an ingestion that did not finish."
                )
            for filing_id, filing in catalogued.items():
                if filing_id in being_written:
                    continue
                want = set(self.catalog.chunk_ids([filing_id]))
                mismatch = (
                    in_vectors.get(filing_id, set()) != want or in_keywords.get(filing_id, set()) != want
                )
                if mismatch or filing_id in pending:
                    self.rebuild_search_index(filing_id)
                    notes.append(
                        f"Rebuilt the search index of {filing.label}: an earlier write did not finish."
                    )
            notes += self._remove_orphan_uploads(set(catalogued), settle_s)
            self.marks.clear(pending)
        return notes

    def _remove_orphan_uploads(self, catalogued: set[str], settle_s: float) -> list[str]:
        notes: list[str] = []
        now = time.time()
        uploads = self.settings.uploads_dir
        for path in sorted(uploads.glob("*")) if uploads.is_dir() else []:
            if path.is_file() and path.stem not in catalogued and now - path.stat().st_mtime > settle_s:
                path.unlink(missing_ok=True)
                notes.append("Removed the stored copy of a file whose ingestion did not finish.")
        return notes
