"""A library several app servers share, in one Postgres database (`WORKBENCH_LIBRARY_URL`): the catalog, the
keyword index and the marks of writes under way. Vectors live on a Chroma server (`WORKBENCH_CHROMA_HOST`),
run checkpoints in Postgres (`WORKBENCH_CHECKPOINT_URL`, may be the same database) and the uploaded originals
on a path every app server mounts (`WORKBENCH_ORIGINALS_DIR`).

A filing one app server ingests is searchable on every other at once: every read goes to the database (only
the list of filings is kept, and read again when the catalog's change counter moves).

Keyword search is the same BM25 as the embedded index (core.index.keyword_index), computed in SQL over
postings tables: the same tokens, the same idf and length normalisation, the same order of ties, so rankings
do not change when a library moves to the servers. Postgres's own full-text ranking (ts_rank) has no idf and
ranks FinanceBench's gold pages lower (see the README's scale-out section for the measurement); postings
tables keep BM25 and need nothing beyond Postgres.

A write mark is a row plus a session advisory lock held by the writing connection: a writer killed mid-way
(kill -9, a lost machine) drops its connection, Postgres releases the lock, and the next start-up repair of
any app server knows the write was interrupted; a mark whose lock is still held belongs to a write under way
on another app server, which the repair leaves alone.
"""

from __future__ import annotations

import logging
import math
import threading
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from core.config import ServiceUnavailable, describe_postgres
from core.index.catalog import Catalog, catalog_schema
from core.index.keyword_index import K1, TOKEN_OF_EMPTY_PASSAGE, B
from core.models import Chunk
from core.text.tokens import tokenize

log = logging.getLogger(__name__)

#: Seconds to wait for a connection at start-up before saying the server cannot be reached.
CONNECT_TIMEOUT_S = 10.0

_LIBRARY_SCHEMA = [
    # Bumped by every catalog write transaction: readers re-read the list of filings only when it moved.
    "CREATE TABLE IF NOT EXISTS catalog_version (id INT PRIMARY KEY CHECK (id = 1), version BIGINT NOT NULL)",
    "INSERT INTO catalog_version VALUES (1, 0) ON CONFLICT (id) DO NOTHING",
    "CREATE TABLE IF NOT EXISTS library_settings (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS write_marks (filing_id TEXT PRIMARY KEY)",
    # One row per passage: its filing, its place in the filing (ties rank in filing order) and its length.
    "CREATE TABLE IF NOT EXISTS keyword_passages (chunk_id TEXT PRIMARY KEY, filing_id TEXT NOT NULL, "
    "position INT NOT NULL, length INT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS keyword_passages_by_filing ON keyword_passages(filing_id)",
    # Postings: how often each term occurs in each passage holding it, with what scoring and ordering the
    # passage need, all in the index: a query term's postings are one range of it, read without the table
    # (an index-only scan; read through the table, they cost six times as much at 48,000 passages).
    # A search of some filings reads only their range of each term.
    "CREATE TABLE IF NOT EXISTS keyword_postings (term TEXT NOT NULL, filing_id TEXT NOT NULL, "
    "chunk_id TEXT NOT NULL, position INT NOT NULL, length INT NOT NULL, tf INT NOT NULL, "
    "PRIMARY KEY (term, filing_id, chunk_id) INCLUDE (position, length, tf))",
    "CREATE INDEX IF NOT EXISTS keyword_postings_by_filing ON keyword_postings(filing_id)",
    # How many passages hold each term (BM25's document frequency), kept with every change.
    "CREATE TABLE IF NOT EXISTS keyword_terms (term TEXT PRIMARY KEY, passages BIGINT NOT NULL)",
    # The library's passage and token counts (BM25's N and average length), kept with every change.
    "CREATE TABLE IF NOT EXISTS keyword_totals (id INT PRIMARY KEY CHECK (id = 1), passages BIGINT NOT NULL, "
    "tokens BIGINT NOT NULL)",
    "INSERT INTO keyword_totals VALUES (1, 0, 0) ON CONFLICT (id) DO NOTHING",
]


class LibraryDatabaseUnavailable(ServiceUnavailable):
    """The configured library database cannot be used; the message says why in a sentence."""


class PostgresLibrary:
    """The connection pool of the library database, and the stores that use it."""

    def __init__(self, url: str, connections: int = 8) -> None:
        try:
            from psycopg import Error as PostgresError
            from psycopg_pool import ConnectionPool, PoolTimeout
        except ImportError as exc:
            raise LibraryDatabaseUnavailable(
                "A library in Postgres needs the packages in requirements-scale.txt "
                "(pip install -r requirements-scale.txt)."
            ) from exc
        self.where = describe_postgres(url, "WORKBENCH_LIBRARY_URL")
        self.pool = ConnectionPool(
            url, min_size=1, max_size=connections, kwargs={"autocommit": True}, open=False
        )
        logging.getLogger("psycopg.pool").setLevel(logging.ERROR)
        try:
            self.pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
            with self.pool.connection() as conn, conn.transaction():
                # Two app servers starting at once must not both create the tables.
                conn.execute("SELECT pg_advisory_xact_lock(hashtextextended('workbench-library-schema', 0))")
                for statement in [*catalog_schema("BYTEA"), *_LIBRARY_SCHEMA]:
                    conn.execute(statement)
        except (PoolTimeout, PostgresError, OSError) as exc:
            self.pool.close()
            log.info("library database %s unavailable: %s: %s", self.where, type(exc).__name__, exc)
            raise LibraryDatabaseUnavailable(
                f"The library database ({self.where}, WORKBENCH_LIBRARY_URL) cannot be reached: start it, or "
                "unset WORKBENCH_LIBRARY_URL to keep the library in the data directory."
            ) from exc

    def library_id(self) -> str:
        """The name this library's collections carry on a Chroma server, made once and kept in the database
        (every app server of the library agrees on it)."""
        with self.pool.connection() as conn:
            conn.execute(
                "INSERT INTO library_settings VALUES ('library_id', %s) ON CONFLICT (name) DO NOTHING",
                (uuid.uuid4().hex[:16],),
            )
            return conn.execute("SELECT value FROM library_settings WHERE name = 'library_id'").fetchone()[0]

    def close(self) -> None:
        self.pool.close()


class PostgresCatalog(Catalog):
    """The catalog's tables and queries (core.index.catalog) in the library database."""

    PAGE_OF_RECORD = "(record::json->>'page')::int"

    def __init__(self, library: PostgresLibrary) -> None:
        self._pool = library.pool
        self._lock = threading.RLock()
        self._filings = None

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s")

    def _version(self) -> object:
        return self._query("SELECT version FROM catalog_version")[0][0]

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        with self._pool.connection() as conn, conn.transaction():
            yield conn
            conn.execute("UPDATE catalog_version SET version = version + 1")

    def _query(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self._pool.connection() as conn:
            return conn.execute(self._sql(sql), params).fetchall()

    def close(self) -> None:
        """The pool is the library's; closing it closes every store."""


class PostgresKeywordIndex:
    """BM25 over the library database's postings tables; the interface and the rankings of KeywordIndex."""

    def __init__(self, library: PostgresLibrary) -> None:
        self._pool = library.pool

    def add_filing(self, filing_id: str, chunks: list[Chunk]) -> None:
        """Write a filing's passages and postings (replacing any it had), in one transaction."""
        passages, postings = [], []
        for position, chunk in enumerate(chunks):
            tokens = tokenize(chunk.indexed_text) or [TOKEN_OF_EMPTY_PASSAGE]
            passages.append((chunk.chunk_id, filing_id, position, len(tokens)))
            postings += [
                (term, filing_id, chunk.chunk_id, position, len(tokens), tf)
                for term, tf in Counter(tokens).items()
            ]
        with self._pool.connection() as conn, conn.transaction():
            self._remove(conn, filing_id)
            with conn.cursor() as cursor:
                with cursor.copy(
                    "COPY keyword_passages (chunk_id, filing_id, position, length) FROM STDIN"
                ) as copy:
                    for row in passages:
                        copy.write_row(row)
                with cursor.copy(
                    "COPY keyword_postings (term, filing_id, chunk_id, position, length, tf) FROM STDIN"
                ) as copy:
                    for row in postings:
                        copy.write_row(row)
            conn.execute(
                "UPDATE keyword_totals SET passages = passages + %s, tokens = tokens + %s",
                (len(passages), sum(p[3] for p in passages)),
            )
            self._count_terms(conn, Counter(p[0] for p in postings), +1)
        with self._pool.connection() as conn:
            # Searches read postings from the index alone only where the table's pages are marked all-visible;
            # until a vacuum marks the new filing's pages, each of its postings is a heap read too (a freshly
            # written library searched 4x slower). Vacuum visits only pages not yet marked, so this costs the
            # filing; another app server's vacuum under way is not waited for.
            conn.execute("VACUUM (SKIP_LOCKED) keyword_postings")

    @staticmethod
    def _remove(conn: Any, filing_id: str) -> None:
        removed = conn.execute(
            "DELETE FROM keyword_passages WHERE filing_id = %s RETURNING length", (filing_id,)
        ).fetchall()
        if removed:
            gone = conn.execute(
                "SELECT term, count(*) FROM keyword_postings WHERE filing_id = %s GROUP BY term", (filing_id,)
            ).fetchall()
            PostgresKeywordIndex._count_terms(conn, dict(gone), -1)
            conn.execute("DELETE FROM keyword_postings WHERE filing_id = %s", (filing_id,))
            conn.execute(
                "UPDATE keyword_totals SET passages = passages - %s, tokens = tokens - %s",
                (len(removed), sum(r[0] for r in removed)),
            )

    @staticmethod
    def _count_terms(conn: Any, counts: dict[str, int], sign: int) -> None:
        """Add (sign +1) or take away (-1) passages holding each term; a term no passage holds goes. Terms are
        written in sorted order, so two app servers writing at once wait for each other, never deadlock."""
        terms = sorted(counts)
        conn.execute(
            "INSERT INTO keyword_terms (term, passages) SELECT * FROM unnest(%s::text[], %s::bigint[]) "
            "ON CONFLICT (term) DO UPDATE SET passages = keyword_terms.passages + excluded.passages",
            (terms, [sign * counts[t] for t in terms]),
        )
        if sign < 0:
            conn.execute("DELETE FROM keyword_terms WHERE term = ANY(%s) AND passages <= 0", (terms,))

    def remove_filing(self, filing_id: str) -> None:
        """Remove a filing's passages and postings (no-op if absent)."""
        with self._pool.connection() as conn, conn.transaction():
            self._remove(conn, filing_id)

    def ids_by_filing(self) -> dict[str, set[str]]:
        """filing_id -> its chunk ids in the index."""
        out: dict[str, set[str]] = {}
        with self._pool.connection() as conn:
            for filing_id, chunk_id in conn.execute("SELECT filing_id, chunk_id FROM keyword_passages"):
                out.setdefault(filing_id, set()).add(chunk_id)
        return out

    def has_filing(self, filing_id: str) -> bool:
        with self._pool.connection() as conn:
            return (
                conn.execute(
                    "SELECT 1 FROM keyword_passages WHERE filing_id = %s LIMIT 1", (filing_id,)
                ).fetchone()
                is not None
            )

    def __len__(self) -> int:
        with self._pool.connection() as conn:
            return int(conn.execute("SELECT passages FROM keyword_totals").fetchone()[0])

    def search(
        self,
        query_tokens: list[str],
        k: int,
        allowed_ids: set[str] | None = None,
        filing_ids: list[str] | None = None,
    ) -> list[tuple[str, float]]:
        """Top-k (chunk_id, BM25 score) among allowed_ids (None = all), best first, score > 0 only; ties in
        filing-id order, then passage order (as KeywordIndex). `filing_ids`, when given, holds every allowed
        passage's filing: only those filings' postings are read."""
        if not query_tokens or k <= 0 or (allowed_ids is not None and not allowed_ids):
            return []
        repeats = Counter(query_tokens)
        with self._pool.connection() as conn, conn.transaction():
            # One snapshot for the statistics and the scores, whatever other app servers write meanwhile.
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            passages, tokens = conn.execute("SELECT passages, tokens FROM keyword_totals").fetchone()
            if not passages:
                return []
            frequencies = dict(
                conn.execute(
                    "SELECT term, passages FROM keyword_terms WHERE term = ANY(%s)", (list(repeats),)
                ).fetchall()
            )
            terms = [t for t in repeats if t in frequencies]
            if not terms:
                return []
            # Lucene's always-positive idf, counted again for a repeated query term.
            weights = [
                repeats[t] * math.log(1.0 + (passages - frequencies[t] + 0.5) / (frequencies[t] + 0.5))
                for t in terms
            ]
            scope = "" if filing_ids is None else "AND p.filing_id = ANY(%(filings)s)"
            scope += "" if allowed_ids is None else " AND p.chunk_id = ANY(%(allowed)s)"
            rows = conn.execute(
                f"""
                SELECT p.chunk_id, SUM(q.weight * p.tf * {K1 + 1}::float8
                    / (p.tf + {K1}::float8 * ({1 - B}::float8 + {B}::float8 * p.length / %(average)s::float8)))
                    AS score
                FROM unnest(%(terms)s::text[], %(weights)s::float8[]) AS q(term, weight)
                JOIN keyword_postings p ON p.term = q.term
                WHERE TRUE {scope}
                GROUP BY p.chunk_id, p.filing_id, p.position
                ORDER BY score DESC, p.filing_id, p.position
                LIMIT %(k)s
                """,
                {
                    "terms": terms,
                    "weights": weights,
                    "average": tokens / passages,
                    "allowed": None if allowed_ids is None else list(allowed_ids),
                    "filings": filing_ids,
                    "k": k,
                },
            ).fetchall()
        return [(chunk_id, float(score)) for chunk_id, score in rows if score > 0]


class PostgresWriteMarks:
    """Marks of filings being written, in the library database: a row and an advisory lock the writer holds
    (see the module's docstring)."""

    def __init__(self, library: PostgresLibrary) -> None:
        self._pool = library.pool

    @contextmanager
    def hold(self, filing_id: str) -> Iterator[None]:
        """Mark `filing_id` as being written while the block runs; a second writer of the same filing, on any
        app server, waits for the first."""
        with self._pool.connection() as conn:
            conn.execute("SELECT pg_advisory_lock(hashtextextended(%s, 0))", (filing_id,))
            try:
                conn.execute("INSERT INTO write_marks VALUES (%s) ON CONFLICT DO NOTHING", (filing_id,))
                yield
                conn.execute("DELETE FROM write_marks WHERE filing_id = %s", (filing_id,))
            finally:
                conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (filing_id,))

    def _marked(self) -> tuple[set[str], set[str]]:
        """(marks whose writer is gone, marks whose writer is still writing)."""
        interrupted, live = set(), set()
        with self._pool.connection() as conn:
            for (filing_id,) in conn.execute("SELECT filing_id FROM write_marks").fetchall():
                taken = conn.execute(
                    "SELECT pg_try_advisory_lock(hashtextextended(%s, 0))", (filing_id,)
                ).fetchone()[0]
                if taken:
                    conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (filing_id,))
                    interrupted.add(filing_id)
                else:
                    live.add(filing_id)
        return interrupted, live

    def interrupted(self) -> set[str]:
        """Filings whose write stopped before it finished (its writer's connection is gone)."""
        return self._marked()[0]

    def elsewhere(self) -> set[str]:
        """Filings another process is writing right now (the repair leaves their stores alone)."""
        return self._marked()[1]

    def clear(self, filing_ids: set[str]) -> None:
        with self._pool.connection() as conn:
            conn.execute("DELETE FROM write_marks WHERE filing_id = ANY(%s)", (list(filing_ids),))
