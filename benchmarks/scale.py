"""Scale: a library of many filings built from real filings' passages; search latency, FinanceBench questions
hidden among the filings, adding and deleting a real filing, and the app server's memory.

Usage:
    python benchmarks/scale.py                              # 1,000 filings around FinanceBench's 55 10-Ks
    python benchmarks/scale.py --source-filings 16          # the same around the 16 with most questions
    python benchmarks/scale.py --source sample --filings 50   # the small run the tests make (sample filing)

Two libraries are built: the source filings alone (the "source library"), and the same filings (same ids,
so FinanceBench's gold pages keep their filing) with synthetic copies of them up to --filings (the "large
library"). Each copy's company is renamed to a made-up name (every form a question may use, see
core.retrieval.routing.company_forms) and its years are shifted back 1-9 years, in its passages, facts and
catalog record. A copy reuses its source passages' vectors, so the library builds in minutes (the vectors
of a renamed passage would differ a little; keyword search and routing, which read the names and years,
see the rewritten text). FinanceBench's filings are indexed once by benchmarks/retrieval.py's builder
(benchmarks/.cache/financebench/evaluation/); the libraries are kept in benchmarks/.cache/scale/ and reused.

Measured in a process per library that only opens it (the large one's memory is the app server's):
- the search funnel (Retriever.search, auto, the product's defaults) over one filing and over the whole
  library, p50/p95 of the source's questions, cold query vectors; the keyword and vector searches alone;
- FinanceBench: gold page in the top 5, pooled, on the source library and on the large one, same run,
  routed to the filings the question names and not (`auto, no routing` searches every filing);
- adding a real filing that is not in the library (`core.ingest.pipeline.ingest_file`, a fresh embedding
  cache) against the time MiniLM takes to embed its passages, and deleting it;
- the process's resident memory after all of that.
Prints a Markdown table and writes benchmarks/results/scale.json (or --out). Targets (a library of 1,000):
pooled p50 <= 150 ms, FinanceBench pooled top-5 within 3 points of the source library, adding a filing
<= 1.2x its embedding time, memory <= 4 GiB. The library lives in the data directory (embedded mode).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from core.config import Settings  # noqa: E402
from core.index.embedding_cache import EmbeddingCache  # noqa: E402
from core.index.store import IndexStore  # noqa: E402
from core.ingest.pipeline import ingest_file  # noqa: E402
from core.models import Chunk, Fact, Filing  # noqa: E402
from core.retrieval.retriever import Retriever  # noqa: E402
from core.retrieval.routing import company_forms  # noqa: E402

SAMPLE = ROOT / "sample_docs" / "northwind_10k_fy2025.html"
SHARED = ROOT.parent / "shared" / "data"
CACHE = ROOT / "benchmarks" / ".cache" / "scale"
RESULTS = ROOT / "benchmarks" / "results"
#: A 10-K no FinanceBench question is about: the real filing added to (and deleted from) the large library.
ADDED_FILING = SHARED / "filings" / "UBER_10K_FY2021.pdf"
#: The servers a --servers run starts (JSON, handed to its measuring processes): Postgres's URL and Chroma's port.
Servers = dict


def _database(path: Path) -> str:
    """The database (and the Chroma namespace) of the library kept at `path`, on the servers."""
    return "library_" + re.sub(r"[^a-z0-9]+", "_", path.name.lower())


def library_settings(path: Path, servers: Servers | None) -> Settings:
    """The settings of the library kept at `path`: its data directory (embedded mode), or, with `servers`, a
    database of its own on the Postgres server (catalog and keywords), its own collections on the Chroma
    server and its originals under `path` (the shared-library mode of README, Scale-out)."""
    if servers is None:
        return Settings(data_dir=path)
    from psycopg.conninfo import make_conninfo

    return Settings(
        data_dir=path,
        library_url=make_conninfo(servers["postgres"], dbname=_database(path)),
        chroma_host="localhost",
        chroma_port=servers["chroma_port"],
        chroma_namespace=_database(path).replace("_", "-"),
        originals_dir=path / "originals",
    )


def start_servers(workdir: Path, libraries: list[Path]) -> tuple[Servers, Callable[[], None]]:
    """A Postgres server (the pgserver wheel) with a database per library, and a Chroma server (`chroma run`);
    returns them and how to stop them."""
    import socket
    import urllib.request

    import pgserver
    import psycopg

    os.environ.setdefault("XDG_RUNTIME_DIR", str(workdir))
    postgres = pgserver.get_server(workdir / "postgres", cleanup_mode="delete")
    with socket.socket() as probe:
        probe.bind(("localhost", 0))
        port = probe.getsockname()[1]
    chroma = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("chroma")),
            "run",
            "--path",
            str(workdir / "chroma"),
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(300):
        try:
            urllib.request.urlopen(f"http://localhost:{port}/api/v2/heartbeat", timeout=2).close()
            break
        except OSError:
            time.sleep(0.2)
    servers = {"postgres": postgres.get_uri(), "chroma_port": port}
    with psycopg.connect(servers["postgres"], autocommit=True) as conn:
        for path in libraries:
            conn.execute(f"CREATE DATABASE {_database(path)}")

    def stop() -> None:
        chroma.terminate()
        chroma.wait(timeout=30)
        postgres.cleanup()

    return servers, stop


TARGETS = {"pooled_p50_ms": 150.0, "financebench_drop_points": 3.0, "add_vs_embedding": 1.2, "rss_gib": 4.0}
TOP = 5

# --- the synthetic library -------------------------------------------------------------------------

_SYLLABLES = [
    "Vel",
    "Mor",
    "Tan",
    "Quil",
    "Bren",
    "Dax",
    "Oro",
    "Lum",
    "Fen",
    "Garn",
    "Hal",
    "Isk",
    "Jor",
    "Kev",
    "Lir",
    "Mab",
    "Nox",
    "Ost",
    "Pry",
    "Rul",
    "Sev",
    "Tor",
    "Ulm",
    "Vask",
    "Wex",
    "Yar",
    "Zel",
    "Brix",
    "Cal",
    "Drom",
    "Elv",
    "Fyr",
]


def synthetic_name(n: int) -> str:
    """A made-up company name for copy n (1,024 distinct): 'Velmor Holdings, Inc.'."""
    first, second = divmod(n % (len(_SYLLABLES) ** 2), len(_SYLLABLES))
    return f"{_SYLLABLES[first]}{_SYLLABLES[second].lower()} Holdings, Inc."


def synthetic_id(source_id: str, n: int) -> str:
    return hashlib.sha256(f"synthetic-{n}-{source_id}".encode()).hexdigest()


_YEAR_RE = re.compile(r"\b(19[5-9]\d|20[0-4]\d)\b(?!\.\d)")


def rewriter(source: Filing, new_id: str, company: str, shift: int) -> Callable[[str], str]:
    """Rewrite a JSON record of the source filing as the copy's: the filing id (and the 16-character prefix
    passage and fact ids carry), every form of the company's name, and each year `shift` years back."""
    forms = [source.company, *company_forms(source.company)]
    new_forms = [company, *company_forms(company)]
    replacement = {old: new_forms[min(i, len(new_forms) - 1)] for i, old in enumerate(forms)}
    names = re.compile(
        r"\b(?:" + "|".join(re.escape(f) for f in sorted(replacement, key=len, reverse=True)) + r")\b"
    )

    def rewrite(text: str) -> str:
        text = text.replace(source.filing_id, new_id).replace(source.filing_id[:16], new_id[:16])
        text = names.sub(lambda m: replacement[m.group(0)], text)
        return _YEAR_RE.sub(lambda m: str(int(m.group(0)) - shift), text)

    return rewrite


class SourceFiling:
    """One source filing as stored: its record, passages with their vectors, facts with theirs."""

    def __init__(self, store: IndexStore, filing: Filing) -> None:
        self.filing = filing
        self.chunks = store.catalog.list_chunks(filing.filing_id)
        ids = [c.chunk_id for c in self.chunks]
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(ids), 2000):
            found.update(store.vectors.get_embeddings(ids[start : start + 2000]))
        self.vectors = np.stack([found[i] for i in ids]) if ids else np.zeros((0, 384), dtype=np.float32)
        self.facts = store.catalog.list_facts(filing.filing_id)
        fact_ids, fact_vectors = store.catalog.fact_vectors(filing.filing_id)
        self.fact_vectors = fact_vectors if fact_ids == [f.fact_id for f in self.facts] else None

    def copy(self, n: int) -> tuple[Filing, list[Chunk], list[Fact]]:
        new_id = synthetic_id(self.filing.filing_id, n)
        rewrite = rewriter(self.filing, new_id, synthetic_name(n), shift=1 + n % 9)
        filing = Filing.model_validate_json(rewrite(self.filing.model_dump_json()))
        filing = filing.model_copy(update={"filename": f"synthetic-{n:04d}-{self.filing.filename}"})
        chunks = [Chunk.model_validate_json(rewrite(c.model_dump_json())) for c in self.chunks]
        facts = [Fact.model_validate_json(rewrite(f.model_dump_json())) for f in self.facts]
        return filing, chunks, facts


def build_library(
    target: Path, source: IndexStore, chosen: list[str], size: int, servers: Servers | None = None
) -> dict:
    """Fill `target` with the `chosen` filings of `source` and synthetic copies of them up to `size` filings
    (kept: a library already built of the same filings is reused)."""
    done = target / "built.json"
    if done.exists() and json.loads(done.read_text()).get("of") == sorted(chosen):
        return json.loads(done.read_text())
    shutil.rmtree(target, ignore_errors=True)
    started = time.perf_counter()
    store = IndexStore.open(library_settings(target, servers))
    sources = [SourceFiling(source, source.catalog.get_filing(filing_id)) for filing_id in sorted(chosen)]
    for item in sources:
        store.add_filing(
            item.filing, item.chunks, item.vectors, b"", facts=item.facts, fact_vectors=item.fact_vectors
        )
    for n in range(size - len(sources)):
        item = sources[n % len(sources)]
        filing, chunks, facts = item.copy(n)
        store.add_filing(filing, chunks, item.vectors, b"", facts=facts, fact_vectors=item.fact_vectors)
        if (n + 1) % 50 == 0:
            print(
                f"  {len(sources) + n + 1}/{size} filings in {time.perf_counter() - started:.0f} s",
                flush=True,
            )
    built = {
        "of": sorted(chosen),
        "filings": size,
        "passages": store.catalog.count_chunks(),
        "build_seconds": round(time.perf_counter() - started, 1),
    }
    store.close()
    done.write_text(json.dumps(built))
    return built


# --- questions -------------------------------------------------------------------------------------


def source_questions(kind: str, store: IndexStore) -> list[dict]:
    """The questions timed and scored, on the source filings: {question, filing_id, gold_pages (None: latency
    only)}."""
    if kind == "sample":
        filing_id = store.catalog.list_filings()[0].filing_id
        rows = json.loads((ROOT / "sample_docs" / "questions.json").read_text())
        return [{"question": r["question"], "filing_id": filing_id, "gold_pages": None} for r in rows]
    import retrieval  # benchmarks/retrieval.py: FinanceBench's 10-K questions and their gold pages

    ids = {f.filename: f.filing_id for f in store.catalog.list_filings()}
    return [
        {"question": q.question, "filing_id": ids[f"{q.doc}.pdf"], "gold_pages": sorted(q.gold_pages)}
        for q in retrieval.load_questions()
        if f"{q.doc}.pdf" in ids
    ]


def financebench_docs(count: int | None) -> list[str]:
    """FinanceBench's 10-K filings, those with the most questions first (benchmarks/retrieval.py's order)."""
    import retrieval

    return sorted({q.doc for q in retrieval.select(retrieval.load_questions(), count, None)})


def open_source(kind: str, workdir: Path, count: int | None = None) -> tuple[IndexStore, list[str]]:
    """Where the real filings are indexed, and the ids of those chosen: the sample filing (ingested in
    `workdir`), or the `count` FinanceBench filings with most questions (None: all)."""
    if kind == "sample":
        store = IndexStore.open(Settings(data_dir=workdir / "origin"))
        result = ingest_file(store, SAMPLE.read_bytes(), SAMPLE.name)
        if not result.ok or result.filing is None:
            raise SystemExit(f"{SAMPLE.name}: {result.error}")
        return store, [result.filing.filing_id]
    import retrieval

    store, ids = retrieval.build_index(financebench_docs(count))
    return store, sorted(ids.values())


# --- measuring -------------------------------------------------------------------------------------


def _percentiles(seconds: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in seconds)
    if not ms:
        return {"p50_ms": 0.0, "p95_ms": 0.0}
    return {
        "p50_ms": round(statistics.median(ms), 1),
        "p95_ms": round(ms[min(len(ms) - 1, int(0.95 * len(ms)))], 1),
    }


def _timed(fn: Callable[[], object]) -> tuple[float, object]:
    started = time.perf_counter()
    out = fn()
    return time.perf_counter() - started, out


def search_library(store: IndexStore, questions: list[dict]) -> dict:
    """Latency of the funnel and of its first-stage searches, and FinanceBench's pooled top-5."""
    retriever = Retriever(store)
    retriever.search(questions[0]["question"], filings=[questions[0]["filing_id"]])  # load the models
    times: dict[str, list[float]] = {}
    hits: dict[str, list[bool]] = {"auto": [], "auto, no routing": []}
    runs = {
        "funnel, one filing": lambda q: retriever.search(q["question"], filings=[q["filing_id"]]),
        "funnel, whole library": lambda q: retriever.search(q["question"], route=False),
        "funnel, routed to the filings named": lambda q: retriever.search(q["question"]),
        "keyword, whole library": lambda q: retriever.strategy_search("keyword", q["question"]),
        "vector, whole library": lambda q: retriever.strategy_search("vector", q["question"]),
    }
    scored = {"funnel, routed to the filings named": "auto", "funnel, whole library": "auto, no routing"}
    for q in questions:
        for name, run in runs.items():
            retriever.clear_query_cache()  # every search pays for its own query vector
            took, result = _timed(lambda run=run, q=q: run(q))
            times.setdefault(name, []).append(took)
            if name in scored and q["gold_pages"] is not None:
                top = [(c.chunk.filing_id, c.chunk.page) for c in result.chunks[:TOP]]
                hits[scored[name]].append(any(f == q["filing_id"] and p in q["gold_pages"] for f, p in top))
    out = {"latency": {name: _percentiles(s) for name, s in times.items()}}
    out["top5_pooled"] = {m: (round(100 * sum(h) / len(h), 1) if h else None) for m, h in hits.items()}
    return out


def add_and_delete(store: IndexStore, path: Path, workdir: Path) -> dict:
    """Ingest a real filing not in the library (with an empty embedding cache, so every passage is
    embedded), time MiniLM embedding its passages alone, then delete it."""
    store.embedding_cache = EmbeddingCache(workdir / f"empty-embedding-cache-{os.getpid()}.sqlite")
    add_s, result = _timed(lambda: ingest_file(store, path.read_bytes(), path.name))
    if not result.ok or result.filing is None:
        raise SystemExit(f"{path.name}: {result.error}")
    filing = result.filing
    texts = [c.indexed_text for c in store.catalog.list_chunks(filing.filing_id)]
    embed_s, _ = _timed(lambda: store.embedder.embed_documents(texts))
    delete_s, deleted = _timed(lambda: store.delete_filing(filing.filing_id))
    return {
        "filing": path.name,
        "pages": filing.pages,
        "passages": filing.chunks,
        "add_s": round(add_s, 2),
        "embedding_s": round(embed_s, 2),
        "add_vs_embedding": round(add_s / embed_s, 2),
        "reused_embeddings": result.reused_embeddings,
        "stages_s": {stage: round(seconds, 2) for stage, seconds in result.stage_seconds.items()},
        "delete_s": round(delete_s, 2),
        "deleted": bool(deleted) and store.catalog.get_filing(filing.filing_id) is None,
    }


def memory() -> dict[str, float]:
    """The process's resident memory now and at its peak, GiB (Linux)."""
    status = Path("/proc/self/status").read_text() if Path("/proc/self/status").exists() else ""

    def read(key: str) -> float:
        found = re.search(rf"{key}:\s+(\d+) kB", status)
        return int(found.group(1)) / 2**20 if found else 0.0

    return {"rss_gib": round(read("VmRSS"), 2), "peak_rss_gib": round(read("VmHWM"), 2)}


def measure(args: argparse.Namespace) -> dict:
    """A measuring process: opens one built library and searches it; in the large one, adds and deletes a
    real filing, then reads the process's memory (the app server's, holding that library)."""
    workdir = Path(args.workdir)
    servers = json.loads(args.servers_json) if args.servers_json else None
    opened_s, store = _timed(lambda: IndexStore.open(library_settings(Path(args.library), servers)))
    small = IndexStore.open(library_settings(Path(args.small), servers))
    questions = source_questions(args.source, small)
    small.close()
    report = {
        "filings": len(store.catalog.list_filings()),
        "passages": store.catalog.count_chunks(),
        "open_s": round(opened_s, 2),
        **search_library(store, questions[: args.limit or None]),
    }
    added = Path(args.add) if args.add else None
    if added is None:  # the sample filing again, as another file (a comment appended: another content hash)
        added = workdir / "added-northwind.html"
        added.write_bytes(SAMPLE.read_bytes() + b"\n<!-- another copy -->\n")
    report["add and delete"] = add_and_delete(store, added, workdir)
    report["memory"] = memory()
    return report


# --- report ----------------------------------------------------------------------------------------


def table(report: dict) -> str:
    source, large = report["source library"], report["large library"]
    lines = [
        f"| | source library ({source['filings']} filings, {source['passages']:,} passages) "
        f"| large library ({large['filings']:,} filings, {large['passages']:,} passages) |",
        "|---|---:|---:|",
    ]
    for name in large["latency"]:
        a, b = source["latency"][name], large["latency"][name]
        lines.append(
            f"| {name}, p50 / p95 (ms) | {a['p50_ms']:.0f} / {a['p95_ms']:.0f} | {b['p50_ms']:.0f} / {b['p95_ms']:.0f} |"
        )
    for method, value in large["top5_pooled"].items():
        if value is not None:
            lines.append(
                f"| FinanceBench top-5, pooled, {method} (%) | {source['top5_pooled'][method]:.1f} | {value:.1f} |"
            )
    small_add, added = report["source library, add and delete"], report["add and delete"]
    small_memory, memory_now = report["source library, memory"], report["memory"]

    def adding(a: dict) -> str:
        return f"{a['add_s']:.1f} ({a['add_vs_embedding']:.2f}x its {a['embedding_s']:.1f} s of embedding)"

    lines += [
        f"| open the library (s) | {source['open_s']:.2f} | {large['open_s']:.2f} |",
        f"| add {added['filing']} ({added['pages']} pages, {added['passages']:,} passages) (s) "
        f"| {adding(small_add)} | {adding(added)} |",
        f"| of which writing the stores (s) | {small_add['stages_s'].get('index', 0):.2f} "
        f"| {added['stages_s'].get('index', 0):.2f} |",
        f"| delete it (s) | {small_add['delete_s']:.2f} | {added['delete_s']:.2f} |",
        f"| memory of the measuring process, now / peak (GiB) | {small_memory['rss_gib']:.2f} / "
        f"{small_memory['peak_rss_gib']:.2f} | {memory_now['rss_gib']:.2f} / {memory_now['peak_rss_gib']:.2f} |",
    ]
    return "\n".join(lines)


def verdicts(report: dict) -> dict[str, bool | None]:
    source, large = report["source library"], report["large library"]
    drop = None
    if large["top5_pooled"]["auto"] is not None:
        drop = source["top5_pooled"]["auto"] - large["top5_pooled"]["auto"]
    return {
        "pooled_p50_ms": large["latency"]["funnel, whole library"]["p50_ms"] <= TARGETS["pooled_p50_ms"],
        "financebench_drop_points": None if drop is None else drop <= TARGETS["financebench_drop_points"],
        "add_vs_embedding": report["add and delete"]["add_vs_embedding"] <= TARGETS["add_vs_embedding"],
        "rss_gib": report["memory"]["peak_rss_gib"] <= TARGETS["rss_gib"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", choices=["financebench", "sample"], default="financebench")
    parser.add_argument("--filings", type=int, default=1000, help="filings in the large library")
    parser.add_argument(
        "--source-filings",
        type=int,
        default=None,
        help="FinanceBench: only the N filings with most questions",
    )
    parser.add_argument("--limit", type=int, default=None, help="time and score at most this many questions")
    parser.add_argument("--add", type=Path, default=None, help="the real filing to add and delete")
    parser.add_argument("--out", type=Path, default=None, help="JSON output path")
    parser.add_argument(
        "--servers",
        action="store_true",
        help="the libraries on a Postgres and a Chroma server started for the run (the shared-library mode)",
    )
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)  # the measuring process
    parser.add_argument("--workdir", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--library", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--small", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--servers-json", dest="servers_json", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args)))
        return
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        workdir = Path(tmp)
        # The sample's libraries are small and temporary; the FinanceBench ones are kept and reused.
        # The servers' libraries live as long as the servers: built for each run.
        home = workdir if args.source == "sample" or args.servers else CACHE
        origin, chosen = open_source(args.source, workdir, args.source_filings)
        small, target = (
            home / f"{args.source}-{len(chosen)}",
            home / f"{args.source}-{args.filings}-of-{len(chosen)}",
        )
        servers, stop_servers = start_servers(workdir, [small, target]) if args.servers else (None, None)
        print(f"building libraries of {len(chosen)} and {args.filings:,} filings", flush=True)
        build_library(small, origin, chosen, len(chosen), servers)
        built = build_library(target, origin, chosen, args.filings, servers)
        origin.close()
        add = args.add or (ADDED_FILING if args.source == "financebench" else None)
        measured = {}
        for name, library in (("source library", small), ("large library", target)):
            command = [
                sys.executable,
                __file__,
                "--measure",
                "--source",
                args.source,
                "--workdir",
                str(workdir),
            ]
            command += ["--library", str(library), "--small", str(small)]
            command += (["--limit", str(args.limit)] if args.limit else []) + (
                ["--add", str(add)] if add else []
            )
            command += ["--servers-json", json.dumps(servers)] if servers else []
            done = subprocess.run(command, check=True, capture_output=True, text=True)
            measured[name] = json.loads(done.stdout.strip().splitlines()[-1])
        if stop_servers is not None:
            stop_servers()
    small_library, large = measured["source library"], measured["large library"]
    report = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "source": args.source,
        "mode": "servers (catalog and keyword index in Postgres, vectors on a Chroma server)"
        if args.servers
        else "embedded (catalog, vectors and keyword index in the data directory)",
        "build": built,
        "source library": measured["source library"],
        "large library": large,
        "add and delete": large.pop("add and delete"),
        "memory": large.pop("memory"),
        "source library, add and delete": small_library.pop("add and delete"),
        "source library, memory": small_library.pop("memory"),
        "targets": TARGETS,
    }
    report["meets"] = verdicts(report)
    print(table(report))
    print(
        "targets met: "
        + ", ".join(
            f"{k} {'yes' if v else 'no' if v is not None else 'n/a'}" for k, v in report["meets"].items()
        )
    )
    out = args.out or RESULTS / (
        ("scale" if args.source == "financebench" else f"scale-{args.source}")
        + ("-servers" if args.servers else "")
        + ".json"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
