"""Chroma vector store of chunk embeddings (embedded PersistentClient, or a Chroma server)."""

from __future__ import annotations

import re
import uuid
from typing import Any

import numpy as np

from core.config import ServiceUnavailable, Settings
from core.index.embeddings import Embedder, get_embedder
from core.models import Chunk


def _chroma_embedding_function(embedder: Embedder) -> Any:
    """Our sentence-transformers model as a Chroma embedding function (Chroma's default would download)."""
    from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
    from chromadb.utils.embedding_functions import register_embedding_function

    @register_embedding_function
    class WorkbenchEmbeddingFunction(EmbeddingFunction[Documents]):
        def __init__(self, model_name: str) -> None:
            self.model_name = model_name

        def __call__(self, input: Documents) -> Embeddings:  # noqa: A002 - Chroma's parameter name
            return list(get_embedder(self.model_name).embed_documents(list(input)))

        @staticmethod
        def name() -> str:
            return "workbench-sentence-transformers"

        def get_config(self) -> dict[str, Any]:
            return {"model_name": self.model_name}

        @staticmethod
        def build_from_config(config: dict[str, Any]) -> WorkbenchEmbeddingFunction:
            return WorkbenchEmbeddingFunction(config["model_name"])

        def default_space(self) -> str:
            return "cosine"

    return WorkbenchEmbeddingFunction(embedder.model_name)


class VectorStoreUnavailable(ServiceUnavailable):
    """The configured Chroma server cannot be reached; the message says so in a sentence."""


#: The file in the data directory that names this library on a shared Chroma server.
LIBRARY_ID_FILE = "library-id"


def _collection_name(model_name: str, kind: str = "chunks") -> str:
    # One collection per embedding model, so switching models never mixes vector spaces.
    slug = re.sub(r"[^a-zA-Z0-9]+", "-", model_name).strip("-").lower()
    return f"{kind}-{slug}"[:60]


def library_id(settings: Settings) -> str:
    """The name this data directory's collections carry on a Chroma server: `chroma_namespace` when set,
    else an id made once and kept in the data directory. Libraries sharing one server never see (or, when
    repairing after a crash, delete) each other's vectors."""
    if settings.chroma_namespace:
        return settings.chroma_namespace
    path = settings.data_dir / LIBRARY_ID_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with path.open("x", encoding="utf-8") as new_file:  # exclusive: two processes agree on one id
            new_file.write(uuid.uuid4().hex[:16])
    except FileExistsError:
        pass
    return path.read_text(encoding="utf-8").strip()


def _where(filing_ids: list[str] | None, section: str | None) -> dict[str, Any] | None:
    clauses: list[dict[str, Any]] = []
    if filing_ids:
        clauses.append({"filing_id": {"$in": list(filing_ids)}})
    if section:
        clauses.append({"section": section})
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


class VectorStore:
    """Chunk vectors in Chroma, cosine space, with filing and section metadata for filters."""

    def __init__(self, settings: Settings, embedder: Embedder, *, kind: str = "chunks") -> None:
        """`kind` names a separate collection in the same store (the evaluation's naive baseline uses one)."""
        import chromadb

        chroma_settings = chromadb.Settings(anonymized_telemetry=False)
        name = _collection_name(embedder.model_name, kind)
        if settings.chroma_host:
            where = f"{settings.chroma_host}:{settings.chroma_port}"
            try:
                self._client = chromadb.HttpClient(
                    host=settings.chroma_host, port=settings.chroma_port, settings=chroma_settings
                )
            except Exception as exc:  # chromadb raises ValueError (or an HTTP error) when nothing answers
                raise VectorStoreUnavailable(
                    f"The Chroma server at {where} (WORKBENCH_CHROMA_HOST) cannot be reached: start it, or "
                    "unset WORKBENCH_CHROMA_HOST to keep the vectors in the data directory."
                ) from exc
            name = f"{library_id(settings)}-{name}"
        else:
            settings.chroma_dir.mkdir(parents=True, exist_ok=True)
            self._client = chromadb.PersistentClient(path=str(settings.chroma_dir), settings=chroma_settings)
        self.collection_name = name
        self._collection = self._client.get_or_create_collection(
            name=name,
            embedding_function=_chroma_embedding_function(embedder),
            configuration={"hnsw": {"space": "cosine"}},
        )

    def add(self, chunks: list[Chunk], embeddings: np.ndarray, *, with_text: bool = False) -> None:
        """Add chunk vectors with their filter metadata (and their text, for stores that have no catalog)."""
        batch = max(1, min(self._client.get_max_batch_size(), 2000))
        for start in range(0, len(chunks), batch):
            part = chunks[start : start + batch]
            self._collection.add(
                ids=[c.chunk_id for c in part],
                embeddings=embeddings[start : start + batch],
                documents=[c.text for c in part] if with_text else None,
                metadatas=[
                    {
                        "filing_id": c.filing_id,
                        "section": c.section,
                        "page": c.page,
                        "chunk_index": c.chunk_index,
                    }
                    for c in part
                ],
            )

    def delete_filing(self, filing_id: str) -> None:
        self._collection.delete(where={"filing_id": filing_id})

    def ids_by_filing(self) -> dict[str, set[str]]:
        """filing_id -> its chunk ids, read from the stored metadata (a consistency check's view)."""
        out: dict[str, set[str]] = {}
        # Read in pages: one get() of a large collection exceeds SQLite's limit on query variables.
        page = 5000
        for offset in range(0, self._collection.count(), page):
            got = self._collection.get(include=["metadatas"], limit=page, offset=offset)
            for chunk_id, meta in zip(got["ids"], got["metadatas"], strict=True):
                out.setdefault(str((meta or {}).get("filing_id", "")), set()).add(chunk_id)
        return out

    def count(self, filing_ids: list[str] | None = None, section: str | None = None) -> int:
        where = _where(filing_ids, section)
        if where is None:
            return self._collection.count()
        return len(self._collection.get(where=where, include=[])["ids"])

    def query(
        self,
        embedding: np.ndarray,
        k: int,
        filing_ids: list[str] | None = None,
        section: str | None = None,
    ) -> list[tuple[str, float]]:
        """The k nearest chunks as (chunk_id, cosine similarity), best first."""
        if k <= 0:
            return []
        result = self._collection.query(
            query_embeddings=[np.asarray(embedding, dtype=np.float32)],
            n_results=k,
            where=_where(filing_ids, section),
            include=["distances"],
        )
        ids, distances = result["ids"][0], result["distances"][0]
        return [(cid, 1.0 - float(d)) for cid, d in zip(ids, distances, strict=True)]

    def texts(self, chunk_ids: list[str]) -> dict[str, tuple[str, dict[str, Any]]]:
        """chunk_id -> (text, metadata) for chunks added with their text."""
        if not chunk_ids:
            return {}
        got = self._collection.get(ids=list(dict.fromkeys(chunk_ids)), include=["documents", "metadatas"])
        return {
            cid: (doc or "", dict(meta or {}))
            for cid, doc, meta in zip(got["ids"], got["documents"], got["metadatas"], strict=True)
        }

    def get_embeddings(self, chunk_ids: list[str]) -> dict[str, np.ndarray]:
        """Stored vectors of the given chunks (for rerankers that reuse them)."""
        if not chunk_ids:
            return {}
        got = self._collection.get(ids=list(chunk_ids), include=["embeddings"])
        return {
            cid: np.asarray(vec, dtype=np.float32)
            for cid, vec in zip(got["ids"], got["embeddings"], strict=True)
        }
