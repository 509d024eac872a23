"""Embeddings kept by the exact text embedded and the model, shared by every filing of a data directory.

Re-indexing a filing, or ingesting the next year's 10-K of the same company, embeds many passages that
were embedded before (risk factors and accounting notes repeat year to year); those vectors are read
back instead of computed. The key is the sha256 of the model name and the text, so a changed passage or
another model never reuses a vector.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.index.embeddings import Embedder


@dataclass
class CacheStats:
    """How many texts of the last call were read from the cache and how many were embedded."""

    reused: int = 0
    embedded: int = 0


class EmbeddingCache:
    """A SQLite table of float32 vectors keyed by sha256(model, text)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL)")
        self._lock = threading.Lock()

    @staticmethod
    def _key(model: str, text: str) -> bytes:
        return hashlib.sha256(f"{model}\0{text}".encode()).digest()

    def _get(self, keys: list[bytes]) -> dict[bytes, np.ndarray]:
        found: dict[bytes, np.ndarray] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                batch = keys[start : start + 500]
                marks = ",".join("?" * len(batch))
                for key, blob in self._conn.execute(
                    f"SELECT key, vector FROM vectors WHERE key IN ({marks})", batch
                ):
                    found[bytes(key)] = np.frombuffer(blob, dtype=np.float32)
        return found

    def _put(self, items: list[tuple[bytes, np.ndarray]]) -> None:
        with self._lock:
            self._conn.execute("BEGIN")
            self._conn.executemany(
                "INSERT OR REPLACE INTO vectors(key, vector) VALUES (?, ?)",
                [(key, np.asarray(vec, dtype=np.float32).tobytes()) for key, vec in items],
            )
            self._conn.execute("COMMIT")

    def embed(
        self,
        embedder: Embedder,
        texts: list[str],
        on_batch: Callable[[int, int], None] | None = None,
        stats: CacheStats | None = None,
    ) -> np.ndarray:
        """Vectors of the texts: cached ones read back, the rest embedded (and kept); progress covers both."""
        keys = [self._key(embedder.model_name, t) for t in texts]
        found = self._get(list(dict.fromkeys(keys)))
        missing = [i for i, key in enumerate(keys) if key not in found]
        reused = len(texts) - len(missing)
        if stats is not None:
            stats.reused, stats.embedded = reused, len(missing)
        if missing:
            progress = (lambda done, _total: on_batch(reused + done, len(texts))) if on_batch else None
            fresh = embedder.embed_documents([texts[i] for i in missing], on_batch=progress)
            self._put([(keys[i], fresh[row]) for row, i in enumerate(missing)])
            for row, i in enumerate(missing):
                found[keys[i]] = fresh[row]
        elif on_batch:
            on_batch(len(texts), len(texts))
        if not texts:
            return np.zeros((0, embedder.dimension), dtype=np.float32)
        return np.stack([found[key] for key in keys]).astype(np.float32)

    def close(self) -> None:
        with self._lock:
            self._conn.close()


class CachedEmbedder:
    """An embedder whose passage vectors are kept in an EmbeddingCache: rescoring a search's candidates
    embeds each passage once per data directory, however many searches it comes back in."""

    def __init__(self, embedder: Embedder, cache: EmbeddingCache) -> None:
        self.embedder = embedder
        self.cache = cache
        self.model_name = embedder.model_name

    @property
    def dimension(self) -> int:
        return self.embedder.dimension

    def embed_documents(
        self, texts: list[str], on_batch: Callable[[int, int], None] | None = None
    ) -> np.ndarray:
        return self.cache.embed(self.embedder, texts, on_batch=on_batch)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embedder.embed_query(text)
