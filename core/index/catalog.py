"""The catalog: the source of truth for filings, their chunks (text and metadata) and their facts (table
rows with their periods, each with the embedding of its name for finding it by meaning). SQLite in the data
directory here; the same tables in a Postgres database several app servers share in
core.index.postgres_library, which reuses every query below (they are written in the SQL both speak)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from core.models import Chunk, Fact, Filing, SectionSummary, section_rank

_SCHEMA = """
CREATE TABLE IF NOT EXISTS filings (
    filing_id TEXT PRIMARY KEY,
    record TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS chunks (
    chunk_id TEXT PRIMARY KEY,
    filing_id TEXT NOT NULL,
    section TEXT NOT NULL,
    chunk_index INTEGER NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_by_filing ON chunks(filing_id, section, chunk_index);
CREATE TABLE IF NOT EXISTS facts (
    fact_id TEXT PRIMARY KEY,
    filing_id TEXT NOT NULL,
    record TEXT NOT NULL,
    vector {blob}
);
CREATE INDEX IF NOT EXISTS facts_by_filing ON facts(filing_id);
CREATE TABLE IF NOT EXISTS derived (
    filing_id TEXT NOT NULL,
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (filing_id, name)
);
"""


def catalog_schema(blob_type: str) -> list[str]:
    """The catalog's tables and indexes, one statement each (`blob_type`: the database's bytes type)."""
    return [s.strip() for s in _SCHEMA.format(blob=blob_type).split(";") if s.strip()]


class Catalog:
    """Filings and chunks in one SQLite file; writes happen in explicit transactions."""

    #: The page of a chunk, read from its JSON record in SQL.
    PAGE_OF_RECORD = "json_extract(record, '$.page')"

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        for statement in catalog_schema("BLOB"):
            self._conn.execute(statement)
        self._lock = threading.RLock()
        self._writes = 0  # this connection's commits (SQLite's data_version counts only the others')
        self._filings: tuple[object, list[Filing]] | None = None  # list_filings, and as of which version

    def _sql(self, sql: str) -> str:
        """A statement in this database's parameter style (written with `?`)."""
        return sql

    def _version(self) -> object:
        """Changes whenever the catalog may have changed, by this process or another."""
        return (self._conn.execute("PRAGMA data_version").fetchone()[0], self._writes)

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """Run writes atomically: everything inside commits together or not at all."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")
            self._writes += 1

    def insert_filing(
        self,
        conn: Any,
        filing: Filing,
        chunks: list[Chunk],
        facts: list[Fact] | None = None,
        fact_vectors: np.ndarray | None = None,
    ) -> None:
        """Insert a filing, its chunks and its facts (with their name embeddings) inside an open transaction."""
        conn.execute(
            self._sql("INSERT INTO filings(filing_id, record) VALUES (?, ?)"),
            (filing.filing_id, filing.model_dump_json()),
        )
        cursor = conn.cursor()
        cursor.executemany(
            self._sql(
                "INSERT INTO chunks(chunk_id, filing_id, section, chunk_index, record) VALUES (?, ?, ?, ?, ?)"
            ),
            [(c.chunk_id, c.filing_id, c.section, c.chunk_index, c.model_dump_json()) for c in chunks],
        )
        facts = facts or []
        vectors = fact_vectors if fact_vectors is not None and len(fact_vectors) == len(facts) else None
        cursor.executemany(
            self._sql("INSERT INTO facts(fact_id, filing_id, record, vector) VALUES (?, ?, ?, ?)"),
            [
                (
                    f.fact_id,
                    f.filing_id,
                    f.model_dump_json(exclude_defaults=True),
                    None if vectors is None else np.asarray(vectors[i], dtype=np.float32).tobytes(),
                )
                for i, f in enumerate(facts)
            ],
        )

    def update_filing(self, filing: Filing) -> None:
        """Rewrite a filing's record (e.g. with its final ingestion time)."""
        with self.transaction() as conn:
            conn.execute(
                self._sql("UPDATE filings SET record = ? WHERE filing_id = ?"),
                (filing.model_dump_json(), filing.filing_id),
            )

    def delete_filing_rows(self, conn: Any, filing_id: str) -> None:
        """Delete a filing and its chunks inside an open transaction."""
        for table in ("chunks", "facts", "derived", "filings"):
            conn.execute(self._sql(f"DELETE FROM {table} WHERE filing_id = ?"), (filing_id,))

    def _query(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def list_filings(self) -> list[Filing]:
        """All filings, most recently ingested first. Read again only after a commit, by this connection or
        another process's (every search routes over this list; a thousand records take ~50 ms to parse)."""
        with self._lock:
            version = self._version()
            if self._filings is None or self._filings[0] != version:
                rows = self._query("SELECT record FROM filings")
                filings = [Filing.model_validate_json(r[0]) for r in rows]
                self._filings = (version, sorted(filings, key=lambda f: f.ingested_at, reverse=True))
            return list(self._filings[1])

    def get_filing(self, filing_id: str) -> Filing | None:
        rows = self._query("SELECT record FROM filings WHERE filing_id = ?", (filing_id,))
        return Filing.model_validate_json(rows[0][0]) if rows else None

    def get_chunks(self, chunk_ids: list[str]) -> list[Chunk]:
        """Chunks in the order asked for; unknown ids are skipped."""
        found: dict[str, Chunk] = {}
        for start in range(0, len(chunk_ids), 500):
            batch = chunk_ids[start : start + 500]
            marks = ",".join("?" * len(batch))
            for (record,) in self._query(
                f"SELECT record FROM chunks WHERE chunk_id IN ({marks})", tuple(batch)
            ):
                chunk = Chunk.model_validate_json(record)
                found[chunk.chunk_id] = chunk
        return [found[c] for c in chunk_ids if c in found]

    def list_chunks(self, filing_id: str | None = None) -> list[Chunk]:
        """All chunks (of one filing, or of all), in filing order."""
        if filing_id:
            rows = self._query(
                "SELECT record FROM chunks WHERE filing_id = ? ORDER BY chunk_index", (filing_id,)
            )
        else:
            rows = self._query("SELECT record FROM chunks ORDER BY filing_id, chunk_index")
        return [Chunk.model_validate_json(r[0]) for r in rows]

    def section_summaries(self, filing_id: str, preview: Callable[[str], str]) -> list[SectionSummary]:
        """A filing's sections in filing order, with chunk counts, page range and a preview (`preview` of the
        section's first passage)."""
        filing = self.get_filing(filing_id)
        by_section: dict[str, list[Chunk]] = {}
        for chunk in self.list_chunks(filing_id):
            by_section.setdefault(chunk.section, []).append(chunk)
        summaries = []
        for name, chunks in by_section.items():
            title = chunks[0].section_title or (filing.section_titles.get(name, "") if filing else "")
            summaries.append(
                SectionSummary(
                    section=name,
                    title=title,
                    chunks=len(chunks),
                    first_page=min(c.page for c in chunks),
                    last_page=max(c.page for c in chunks),
                    preview=preview(chunks[0].text),
                )
            )
        return sorted(summaries, key=lambda s: (section_rank(s.section), s.first_page))

    def page_chunks(self, filing_id: str, page: int) -> list[Chunk]:
        """The chunks of one page of a filing, in filing order."""
        rows = self._query(
            f"SELECT record FROM chunks WHERE filing_id = ? AND {self.PAGE_OF_RECORD} = ? ORDER BY chunk_index",
            (filing_id, page),
        )
        return [Chunk.model_validate_json(r[0]) for r in rows]

    def following_chunks(self, chunk: Chunk, count: int) -> list[Chunk]:
        """Up to `count` chunks that follow `chunk` in its filing, in order, while they stay in its section."""
        rows = self._query(
            "SELECT record FROM chunks WHERE filing_id = ? AND section = ? AND chunk_index > ? "
            "ORDER BY chunk_index LIMIT ?",
            (chunk.filing_id, chunk.section, chunk.chunk_index, count),
        )
        following = [Chunk.model_validate_json(r[0]) for r in rows]
        # Stop at a gap: a later chunk of the same section after another section's is not a continuation.
        return [c for i, c in enumerate(following) if c.chunk_index == chunk.chunk_index + 1 + i]

    def section_chunks(self, chunk: Chunk, limit: int) -> list[Chunk]:
        """The chunks of `chunk`'s section in its filing, in reading order, when there are at most `limit`
        of them (a short Item, such as Legal Proceedings); [] for a longer one."""
        rows = self._query(
            "SELECT record FROM chunks WHERE filing_id = ? AND section = ? ORDER BY chunk_index LIMIT ?",
            (chunk.filing_id, chunk.section, limit + 1),
        )
        return [Chunk.model_validate_json(r[0]) for r in rows] if len(rows) <= limit else []

    def chunk_ids(self, filing_ids: list[str] | None = None, section: str | None = None) -> list[str]:
        """Ids of the chunks matching the filters (None = no filter)."""
        sql, params = "SELECT chunk_id FROM chunks WHERE 1=1", []
        if filing_ids:
            sql += f" AND filing_id IN ({','.join('?' * len(filing_ids))})"
            params += list(filing_ids)
        if section:
            sql += " AND section = ?"
            params.append(section)
        return [r[0] for r in self._query(sql, tuple(params))]

    def list_facts(self, filing_id: str) -> list[Fact]:
        """A filing's facts in filing order."""
        rows = self._query("SELECT record FROM facts WHERE filing_id = ? ORDER BY fact_id", (filing_id,))
        return [Fact.model_validate_json(r[0]) for r in rows]

    def fact_vectors(self, filing_id: str) -> tuple[list[str], np.ndarray | None]:
        """(fact ids, their name embeddings as rows) of a filing, in filing order; None when not embedded."""
        rows = self._query(
            "SELECT fact_id, vector FROM facts WHERE filing_id = ? AND vector IS NOT NULL ORDER BY fact_id",
            (filing_id,),
        )
        if not rows:
            return [], None
        return [r[0] for r in rows], np.stack([np.frombuffer(r[1], dtype=np.float32) for r in rows])

    def count_facts(self, filing_id: str | None = None) -> int:
        if filing_id:
            return int(self._query("SELECT COUNT(*) FROM facts WHERE filing_id = ?", (filing_id,))[0][0])
        return int(self._query("SELECT COUNT(*) FROM facts")[0][0])

    def derived(self, filing_id: str, name: str) -> str | None:
        """A value computed once from a filing's chunks and kept with it (e.g. its statement pages)."""
        rows = self._query("SELECT value FROM derived WHERE filing_id = ? AND name = ?", (filing_id, name))
        return rows[0][0] if rows else None

    def set_derived(self, filing_id: str, name: str, value: str) -> None:
        """Keep a derived value of a filing still in the catalog (removed with the filing)."""
        with self.transaction() as conn:
            conn.execute(
                self._sql(
                    "INSERT INTO derived(filing_id, name, value) "
                    "SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM filings WHERE filing_id = ?) "
                    "ON CONFLICT (filing_id, name) DO UPDATE SET value = excluded.value"
                ),
                (filing_id, name, value, filing_id),
            )

    def count_chunks(self) -> int:
        return int(self._query("SELECT COUNT(*) FROM chunks")[0][0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()
