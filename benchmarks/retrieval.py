"""Retrieval quality and speed on FinanceBench: does the gold evidence page reach the top of the list?

Questions: the FinanceBench open-source questions about 10-K filings whose PDF is present under
shared/data/financebench/pdfs. Gold: the page of any evidence item (``evidence_page_num`` + 1: FinanceBench
counts from 0, our PDF pages from 1), in that question's filing. Two settings: per filing (search restricted to the question's filing) and pooled
(one index of every selected 10-K, no filing filter). Methods: a naive baseline (page text in fixed
1,000-character chunks, vector top-k, own Chroma collection), vector, keyword, hybrid, hybrid + rerank,
and auto (supervisor + rerank); the last two run the product funnel (Retriever.search with its defaults,
pooled searches routed to the filings the question names): settings.k candidates (default 30) reranked
down to the top 10 that are scored; pooled, "auto, no routing" searches every filing. Every method is
scored on its top 10.

Usage:
    python benchmarks/retrieval.py --filings 8          # a quick subset (filings with most questions first)
    python benchmarks/retrieval.py                      # all 10-K PDFs present (first build ~2 h CPU)

Indexes are built once under benchmarks/.cache/financebench/evaluation/ (shared with benchmarks/evaluation.py) and
reused. Prints a Markdown table and writes JSON to
benchmarks/results/retrieval.json (subset runs: retrieval-<N>filings.json).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.config import BUNDLED_EMBEDDING_MODEL, Settings  # noqa: E402
from core.evaluation.systems import naive_pieces  # noqa: E402
from core.index.store import IndexStore  # noqa: E402
from core.index.vector_store import VectorStore  # noqa: E402
from core.ingest.pipeline import ingest_file  # noqa: E402
from core.models import SearchResult  # noqa: E402
from core.retrieval.retriever import Retriever  # noqa: E402

FINANCEBENCH = ROOT.parent / "shared" / "data" / "financebench"
#: One FinanceBench data directory for this benchmark and benchmarks/evaluation.py: the product index and
#: the naive baseline's collection beside it are built once and shared.
CACHE = ROOT / "benchmarks" / ".cache" / "financebench" / "evaluation"
RESULTS = ROOT / "benchmarks" / "results"
K = 10
METHODS = ["naive", "vector", "keyword", "hybrid", "hybrid+rerank", "auto", "auto, no routing"]


@dataclass
class Question:
    qid: str
    doc: str
    question: str
    qtype: str
    gold_pages: set[int]


@dataclass
class MethodStats:
    ranks: list[int | None] = field(default_factory=list)  # 1-based rank of the first gold hit
    seconds: list[float] = field(default_factory=list)
    by_type: dict[str, list[int | None]] = field(default_factory=dict)
    strategies: dict[str, int] = field(default_factory=dict)

    def summary(self) -> dict[str, float]:
        n = max(1, len(self.ranks))
        hit = lambda k: sum(1 for r in self.ranks if r is not None and r <= k) / n  # noqa: E731
        ms = sorted(s * 1000 for s in self.seconds)
        return {
            "hit@1": hit(1),
            "hit@5": hit(5),
            "hit@10": hit(10),
            "mrr": sum(1 / r for r in self.ranks if r) / n,
            "p50_ms": statistics.median(ms) if ms else 0.0,
            "p95_ms": ms[min(len(ms) - 1, int(0.95 * len(ms)))] if ms else 0.0,
        }


def load_questions() -> list[Question]:
    """FinanceBench questions about 10-Ks whose PDF is present."""
    docs = {
        d["doc_name"]: d
        for d in map(json.loads, (FINANCEBENCH / "financebench_document_information.jsonl").open())
    }
    out: list[Question] = []
    for row in map(json.loads, (FINANCEBENCH / "financebench_open_source.jsonl").open()):
        doc = row["doc_name"]
        if docs.get(doc, {}).get("doc_type", "").lower() != "10k" or not _pdf(doc).exists():
            continue
        # evidence_page_num counts from 0; our PDF pages are numbered from 1, as a viewer shows them.
        pages = {int(e["evidence_page_num"]) + 1 for e in row["evidence"] if e.get("doc_name", doc) == doc}
        out.append(Question(row["financebench_id"], doc, row["question"], row["question_type"], pages))
    return out


def _pdf(doc: str) -> Path:
    return FINANCEBENCH / "pdfs" / f"{doc}.pdf"


def select(questions: list[Question], n_filings: int | None, limit: int | None) -> list[Question]:
    """The filings with the most questions first (name breaks ties), then their questions."""
    counts: dict[str, int] = {}
    for q in questions:
        counts[q.doc] = counts.get(q.doc, 0) + 1
    docs = sorted(counts, key=lambda d: (-counts[d], d))[: n_filings or None]
    chosen = [q for q in questions if q.doc in set(docs)]
    return chosen[:limit] if limit else chosen


# --- indexes --------------------------------------------------------------------------------


def cache_dir(embedding_model: str) -> Path:
    """The data directory of the FinanceBench index with this embedding model (the default's is shared)."""
    if embedding_model == BUNDLED_EMBEDDING_MODEL:
        return CACHE
    return CACHE.parent / f"evaluation-{embedding_model}"


def build_index(docs: list[str], embedding_model: str | None = None) -> tuple[IndexStore, dict[str, str]]:
    """The product index of the given filings (cached); returns the store and doc name -> filing id."""
    model = embedding_model or BUNDLED_EMBEDDING_MODEL
    store = IndexStore.open(Settings(data_dir=cache_dir(model), embedding_model=model))
    by_name = {f.filename: f.filing_id for f in store.catalog.list_filings()}
    for i, doc in enumerate(docs, start=1):
        name = f"{doc}.pdf"
        if name in by_name:
            continue
        started = time.perf_counter()
        result = ingest_file(store, _pdf(doc).read_bytes(), name)
        if not result.ok or result.filing is None:
            print(f"  [{i}/{len(docs)}] {name}: FAILED {result.error}", flush=True)
            continue
        by_name[name] = result.filing.filing_id
        took = time.perf_counter() - started
        print(
            f"  [{i}/{len(docs)}] indexed {name}: {result.filing.chunks} chunks in {took:.0f} s", flush=True
        )
    return store, {doc: by_name[f"{doc}.pdf"] for doc in docs if f"{doc}.pdf" in by_name}


def build_naive(store: IndexStore, ids: dict[str, str]) -> VectorStore:
    """The naive baseline: page text in fixed 1,000-character chunks, its own collection (cached)."""
    vectors = VectorStore(store.settings, store.embedder, kind="naive")
    for i, (doc, filing_id) in enumerate(sorted(ids.items()), start=1):
        if vectors.count([filing_id]):
            continue
        started = time.perf_counter()
        chunks = naive_pieces(_pdf(doc).read_bytes(), f"{doc}.pdf", filing_id, f"naive-{filing_id[:16]}")
        if chunks:
            vectors.add(chunks, store.embedder.embed_documents([c.text for c in chunks]), with_text=True)
        took = time.perf_counter() - started
        print(f"  [{i}/{len(ids)}] naive {doc}: {len(chunks)} chunks in {took:.0f} s", flush=True)
    return vectors


# --- evaluation -----------------------------------------------------------------------------

Hits = list[tuple[str, int]]  # (filing id, page) of each ranked result


def first_hit(hits: Hits, filing: str, gold: set[int]) -> int | None:
    for rank, (fid, page) in enumerate(hits[:K], start=1):
        if fid == filing and page in gold:
            return rank
    return None


def run_methods(
    retriever: Retriever,
    naive: VectorStore | None,
    q: Question,
    ids: dict[str, str],
    pool: list[str],
    per_filing: bool,
) -> dict[str, Callable[[], tuple[Hits, str | None]]]:
    """Ranked (filing, page) lists of every method for one question, with the strategy chosen."""
    # Pooled: the whole selected library (None = no filter, when the index holds exactly that).
    filings = [ids[q.doc]] if per_filing else pool
    naive_filter = [ids[q.doc]] if per_filing else sorted(ids.values())
    pool_k = max(K, retriever.settings.k)
    methods: dict[str, Callable[[], tuple[Hits, str | None]]] = {
        "naive": lambda: (_naive(retriever, naive, q, naive_filter), None),
        "vector": lambda: _pages(retriever.strategy_search("vector", q.question, k=K, filings=filings)),
        "keyword": lambda: _pages(retriever.strategy_search("keyword", q.question, k=K, filings=filings)),
        "hybrid": lambda: _pages(retriever.strategy_search("hybrid", q.question, k=K, filings=filings)),
        # The funnel as the product runs it: settings.k candidates reranked down to the K we score.
        "hybrid+rerank": lambda: _pages(
            retriever.search(q.question, strategy="hybrid", k=pool_k, top_n=K, filings=filings)
        ),
        "auto": lambda: _pages(
            retriever.search(q.question, strategy="auto", k=pool_k, top_n=K, filings=filings)
        ),
        # Pooled only: the same funnel searching every filing even when the question names some.
        "auto, no routing": lambda: _pages(
            retriever.search(q.question, strategy="auto", k=pool_k, top_n=K, filings=filings, route=False)
        ),
    }
    if per_filing:
        del methods["auto, no routing"]
    if naive is None:
        del methods["naive"]
    return methods


def _pages(result: SearchResult) -> tuple[Hits, str | None]:
    return [(c.chunk.filing_id, c.chunk.page) for c in result.chunks], result.strategy


def _naive(retriever: Retriever, naive: VectorStore, q: Question, filing_ids: list[str]) -> Hits:
    vec = retriever.store.embedder.embed_query(q.question)
    hits = naive.query(vec, K, filing_ids=filing_ids)
    meta = naive.texts([cid for cid, _ in hits])
    return [(str(meta[cid][1]["filing_id"]), int(meta[cid][1]["page"])) for cid, _ in hits if cid in meta]


def evaluate(
    questions: list[Question],
    retriever: Retriever,
    naive: VectorStore | None,
    ids: dict[str, str],
    per_filing: bool,
) -> tuple[dict[str, MethodStats], list[dict]]:
    pool: list[str] | None = sorted(set(ids.values()))
    if set(pool) == {f.filing_id for f in retriever.store.catalog.list_filings()}:
        pool = None  # the index holds exactly the selection: search it unfiltered, as the product would
    stats = {
        m: MethodStats()
        for m in METHODS
        if (naive is not None or m != "naive") and (not per_filing or m != "auto, no routing")
    }
    rows: list[dict] = []
    # Warm-up: load models and caches so latencies are warm.
    warm = questions[0]
    for fn in run_methods(retriever, naive, warm, ids, pool, per_filing).values():
        fn()
    for q in questions:
        fid = ids[q.doc]
        row = {"id": q.qid, "doc": q.doc, "type": q.qtype}
        for method, fn in run_methods(retriever, naive, q, ids, pool, per_filing).items():
            retriever.clear_query_cache()  # every method pays for its own query embedding
            started = time.perf_counter()
            hits, strategy = fn()
            took = time.perf_counter() - started
            rank = first_hit(hits, fid, q.gold_pages)
            s = stats[method]
            s.ranks.append(rank)
            s.seconds.append(took)
            s.by_type.setdefault(q.qtype, []).append(rank)
            if method == "auto" and strategy:
                s.strategies[strategy] = s.strategies.get(strategy, 0) + 1
            row[method] = rank
        rows.append(row)
    return stats, rows


def table(title: str, stats: dict[str, MethodStats]) -> str:
    lines = [
        f"### {title}",
        "",
        "| method | hit@1 | hit@5 | hit@10 | MRR | p50 ms | p95 ms |",
        "|---|---|---|---|---|---|---|",
    ]
    for method, s in stats.items():
        m = s.summary()
        lines.append(
            f"| {method} | {m['hit@1']:.1%} | {m['hit@5']:.1%} | {m['hit@10']:.1%} | {m['mrr']:.3f} "
            f"| {m['p50_ms']:.0f} | {m['p95_ms']:.0f} |"
        )
    types = sorted({t for s in stats.values() for t in s.by_type})
    lines += [
        "",
        "hit@5 by question type:",
        "",
        "| method | " + " | ".join(types) + " |",
        "|---|" + "---|" * len(types),
    ]
    for method, s in stats.items():
        cells = []
        for t in types:
            ranks = s.by_type.get(t, [])
            cells.append(f"{sum(1 for r in ranks if r and r <= 5) / max(1, len(ranks)):.1%} (n={len(ranks)})")
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    if stats["auto"].strategies:
        lines += [
            "",
            "auto chose: " + ", ".join(f"{k} {v}" for k, v in sorted(stats["auto"].strategies.items())),
        ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--filings", type=int, default=None, help="only the N filings with most questions")
    parser.add_argument("--limit", type=int, default=None, help="at most this many questions")
    parser.add_argument(
        "--skip-naive", action="store_true", help="no naive baseline (halves the first build)"
    )
    parser.add_argument(
        "--query-threads", type=int, default=None, help="torch threads while querying (default: torch's own)"
    )
    parser.add_argument(
        "--embedding-model",
        default=None,
        help="index with this model (e.g. static-all-MiniLM-L6-v2), in a data directory of its own",
    )
    parser.add_argument("--out", type=Path, default=None, help="JSON output path")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    questions = select(load_questions(), args.filings, args.limit)
    docs = sorted({q.doc for q in questions})
    print(f"{len(questions)} questions on {len(docs)} filings", flush=True)
    started = time.perf_counter()
    store, ids = build_index(docs, args.embedding_model)
    naive = None if args.skip_naive else build_naive(store, ids)
    build_s = time.perf_counter() - started
    questions = [q for q in questions if q.doc in ids]
    if args.query_threads:
        import torch

        # One short query gains nothing from intra-op threads, and on a busy 2-core machine they wait on
        # each other (measured: ~500 ms per query embedding with 2 threads vs ~15 ms with 1).
        torch.set_num_threads(args.query_threads)
    retriever = Retriever(store)
    report: dict = {
        "questions": len(questions),
        "filings": len(docs),
        "k": K,
        "index_chunks": store.catalog.count_chunks(),
        "embedding_model": store.settings.embedding_model,
        "build_seconds_this_run": round(build_s, 1),
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load_avg_1m_at_start": round(os.getloadavg()[0], 2),
        },
        "query_threads": args.query_threads,
        "settings": {},
    }
    markdown = []
    for name, per_filing in [("per filing", True), ("all filings pooled", False)]:
        stats, rows = evaluate(questions, retriever, naive, ids, per_filing)
        markdown.append(table(f"{name} ({len(questions)} questions, {len(docs)} filings)", stats))
        report["settings"][name] = {
            "methods": {m: s.summary() for m, s in stats.items()},
            "hit@5_by_type": {
                m: {t: sum(1 for r in rk if r and r <= 5) / len(rk) for t, rk in s.by_type.items()}
                for m, s in stats.items()
            },
            "auto_strategies": stats["auto"].strategies,
            "first_hit_rank": rows,
        }
    report["candidate_pool"] = max(K, retriever.settings.k)
    report["notes"] = (
        "hybrid+rerank and auto run Retriever.search with its defaults (pooled: routed to the filings "
        "whose company and fiscal year the question names): candidate_pool candidates reranked to the top "
        "k scored; 'auto, no routing' searches every filing."
    )
    report["reranker"] = retriever.reranker.name
    report["reranker_fallback"] = retriever.fallback.reason if retriever.fallback else None
    print("\n\n".join(markdown))
    print(f"\nreranker: {report['reranker']}")
    out = args.out or RESULTS / (
        f"retrieval-{len(docs)}filings.json" if args.filings or args.limit else "retrieval.json"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1))
    print(f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")


if __name__ == "__main__":
    main()
