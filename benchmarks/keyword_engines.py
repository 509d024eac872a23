"""Keyword engines a shared library can use, on FinanceBench: does each keep retrieval quality, and how fast?

Candidates (each fed the same tokens, core.text.tokens, of the same passages):
- embedded: the data directory's BM25 index (core.index.keyword_index), today's default;
- postgres bm25: the same BM25 computed in SQL over postings tables (core.index.postgres_library), the
  shared library's engine;
- postgres ts_rank: Postgres's own full-text search, a tsvector per passage (the `simple` configuration,
  so no stemming or stop words beyond the tokens given) with a GIN index, ranked by ts_rank normalised by
  passage length (ts_rank has no idf);
- Chroma's BM25 (sparse vectors on its own server) is not measured: the installed chromadb's local server
  does not serve sparse-vector search (see the README's scale-out section).

For each: FinanceBench 10-K questions, gold page in the top 5 (per filing and pooled) for keyword search
alone and for the product funnel (auto: fusion, statement pages, rerank) with that engine in place, and the
keyword search's own latency (p50/p95, whole library and one filing). The FinanceBench library of
benchmarks/retrieval.py is reused (benchmarks/.cache/financebench/evaluation/); Postgres is started from the
pgserver package (requirements-dev.txt) unless --library-url names a database.

Usage:
    python benchmarks/keyword_engines.py                 # the 55 10-Ks with their questions
    python benchmarks/keyword_engines.py --filings 8     # the 8 filings with most questions

Prints a Markdown table and writes benchmarks/results/keyword_engines.json (or --out).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from retrieval import RESULTS, build_index, first_hit, load_questions, run_methods, select  # noqa: E402

from core.index.postgres_library import PostgresKeywordIndex, PostgresLibrary  # noqa: E402
from core.models import Chunk  # noqa: E402
from core.retrieval.retriever import Retriever  # noqa: E402
from core.text.tokens import tokenize  # noqa: E402

TOP = 5


class PostgresFullText:
    """Postgres full-text search over the same tokens, ranked by ts_rank (a candidate measured here, not a
    product engine)."""

    def __init__(self, library: PostgresLibrary) -> None:
        self._pool = library.pool
        with self._pool.connection() as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS fts_passages (chunk_id TEXT PRIMARY KEY, filing_id TEXT NOT NULL, "
                "position INT NOT NULL, tsv tsvector NOT NULL)"
            )
            conn.execute("CREATE INDEX IF NOT EXISTS fts_passages_tsv ON fts_passages USING GIN (tsv)")

    def add_filing(self, filing_id: str, chunks: list[Chunk]) -> None:
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("DELETE FROM fts_passages WHERE filing_id = %s", (filing_id,))
            conn.cursor().executemany(
                "INSERT INTO fts_passages VALUES (%s, %s, %s, to_tsvector('simple', %s))",
                [
                    (c.chunk_id, filing_id, i, " ".join(tokenize(c.indexed_text)))
                    for i, c in enumerate(chunks)
                ],
            )

    def search(
        self,
        tokens: list[str],
        k: int,
        allowed_ids: set[str] | None = None,
        filing_ids: list[str] | None = None,
    ) -> list[tuple[str, float]]:
        if not tokens or (allowed_ids is not None and not allowed_ids):
            return []
        query = " | ".join("'" + t.replace("'", "''") + "'" for t in dict.fromkeys(tokens))
        scope = "" if filing_ids is None else "AND filing_id = ANY(%(filings)s)"
        scope += "" if allowed_ids is None else " AND chunk_id = ANY(%(allowed)s)"
        with self._pool.connection() as conn:
            rows = conn.execute(
                f"SELECT chunk_id, ts_rank(tsv, q, 1) AS score FROM fts_passages, "
                f"to_tsquery('simple', %(query)s) q WHERE tsv @@ q {scope} "
                f"ORDER BY score DESC, filing_id, position LIMIT %(k)s",
                {
                    "query": query,
                    "allowed": None if allowed_ids is None else list(allowed_ids),
                    "filings": filing_ids,
                    "k": k,
                },
            ).fetchall()
        return [(cid, float(score)) for cid, score in rows]


def _percentiles(seconds: list[float]) -> dict[str, float]:
    ms = sorted(1000 * s for s in seconds)
    return {"p50_ms": round(statistics.median(ms), 1), "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 1)}


def measure(engine, name: str, store, questions, ids) -> dict:
    """Top-5 (keyword alone, auto) per filing and pooled, and the keyword search's latency, with `engine`
    as the library's keyword index."""
    store.keywords = engine
    retriever = Retriever(store)
    pool: list[str] | None = sorted(set(ids.values()))
    if set(pool) == {f.filing_id for f in store.catalog.list_filings()}:
        pool = None  # the library holds exactly the selection: searched unfiltered, as the product would
    out: dict = {"engine": name}
    for setting, per_filing in (("per filing", True), ("pooled", False)):
        hits: dict[str, list[bool]] = {"keyword": [], "auto": []}
        for q in questions:
            methods = run_methods(retriever, None, q, ids, pool, per_filing)
            for method in hits:
                ranked, _ = methods[method]()
                rank = first_hit(ranked, ids[q.doc], q.gold_pages)
                hits[method].append(rank is not None and rank <= TOP)
        out[setting] = {m: round(100 * sum(h) / len(h), 1) for m, h in hits.items()}
    times: dict[str, list[float]] = {"whole library": [], "one filing": []}
    for q in questions:
        tokens = tokenize(q.question)
        one = set(store.catalog.chunk_ids([ids[q.doc]]))
        for scope, allowed, filings in (("whole library", None, None), ("one filing", one, [ids[q.doc]])):
            started = time.perf_counter()
            engine.search(tokens, 30, allowed_ids=allowed, filing_ids=filings)
            times[scope].append(time.perf_counter() - started)
    out["latency"] = {scope: _percentiles(s) for scope, s in times.items()}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--filings", type=int, default=None, help="only the N filings with most questions")
    parser.add_argument("--library-url", default=None, help="postgresql://… of an empty database to use")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    questions = select(load_questions(), args.filings, None)
    store, ids = build_index(sorted({q.doc for q in questions}))
    questions = [q for q in questions if q.doc in ids]
    embedded = store.keywords
    server = None
    url = args.library_url
    if url is None:
        os.environ.setdefault("XDG_RUNTIME_DIR", tempfile.mkdtemp())
        import pgserver

        server = pgserver.get_server(Path(tempfile.mkdtemp(prefix="keyword-engines-")), cleanup_mode="delete")
        url = server.get_uri()
    library = PostgresLibrary(url)
    shared, full_text = PostgresKeywordIndex(library), PostgresFullText(library)
    load_s: dict[str, float] = {}
    # Every filing of the library (the statistics BM25 shares are the library's, as in the embedded index).
    chunks_by_filing = {
        f.filing_id: store.catalog.list_chunks(f.filing_id) for f in store.catalog.list_filings()
    }
    for name, engine in (("postgres bm25", shared), ("postgres ts_rank", full_text)):
        started = time.perf_counter()
        for fid, chunks in chunks_by_filing.items():
            engine.add_filing(fid, chunks)
        load_s[name] = round(time.perf_counter() - started, 1)
        print(f"loaded {name} in {load_s[name]} s", flush=True)

    report = {
        "questions": len(questions),
        "filings": len(ids),
        "passages": sum(len(c) for c in chunks_by_filing.values()),
        "load_seconds": load_s,
        "engines": [
            measure(embedded, "embedded bm25", store, questions, ids),
            measure(shared, "postgres bm25", store, questions, ids),
            measure(full_text, "postgres ts_rank", store, questions, ids),
        ],
    }
    store.keywords = embedded
    library.close()
    if server is not None:
        server.cleanup()
    lines = [
        f"### Keyword engines ({report['questions']} questions, {report['filings']} filings, "
        f"{report['passages']:,} passages)",
        "",
        "| engine | keyword top-5, per filing | keyword top-5, pooled | auto top-5, per filing | auto top-5, "
        "pooled | keyword p50 / p95 ms, whole library | one filing |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for e in report["engines"]:
        lat = e["latency"]
        lines.append(
            f"| {e['engine']} | {e['per filing']['keyword']} | {e['pooled']['keyword']} | "
            f"{e['per filing']['auto']} | {e['pooled']['auto']} | "
            f"{lat['whole library']['p50_ms']} / {lat['whole library']['p95_ms']} | "
            f"{lat['one filing']['p50_ms']} / {lat['one filing']['p95_ms']} |"
        )
    print("\n".join(lines))
    out = args.out or RESULTS / (
        "keyword_engines.json" if not args.filings else f"keyword_engines-{args.filings}.json"
    )
    out.write_text(json.dumps(report, indent=1))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
