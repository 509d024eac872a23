"""The index as one object: catalog (truth), Chroma vectors, BM25 keywords, and the embedder."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from core.config import Settings
from core.index.catalog import Catalog
from core.index.embedding_cache import EmbeddingCache
from core.index.embeddings import Embedder, get_embedder
from core.index.keyword_index import KeywordIndex
from core.index.vector_store import VectorStore


@dataclass
class IndexStore:
    """Everything searchable under one data directory; writes go through `write_lock`."""

    settings: Settings
    catalog: Catalog
    vectors: VectorStore
    keywords: KeywordIndex
    embedder: Embedder
    embedding_cache: EmbeddingCache
    write_lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def open(cls, settings: Settings) -> IndexStore:
        """Open (creating if needed) the stores under settings.data_dir; the model loads lazily."""
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        embedder = get_embedder(settings.embedding_model)
        return cls(
            settings=settings,
            catalog=Catalog(settings.catalog_path),
            vectors=VectorStore(settings, embedder),
            keywords=KeywordIndex(settings.keyword_index_path),
            embedder=embedder,
            embedding_cache=EmbeddingCache(settings.embedding_cache_path),
        )

    def delete_filing(self, filing_id: str) -> bool:
        """Remove a filing from every store and its stored original; False if it was not there."""
        with self.write_lock:
            return self.remove_unlocked(filing_id)

    def remove_unlocked(self, filing_id: str, *, keep_original: bool = False) -> bool:
        """delete_filing for a caller that holds `write_lock` (a re-index keeps the stored original)."""
        if self.catalog.get_filing(filing_id) is None:
            return False
        self.vectors.delete_filing(filing_id)
        self.keywords.remove_filing(filing_id)
        if not keep_original:
            for path in self.settings.uploads_dir.glob(f"{filing_id}.*"):
                path.unlink(missing_ok=True)
        with self.catalog.transaction() as conn:
            self.catalog.delete_filing_rows(conn, filing_id)
        return True
