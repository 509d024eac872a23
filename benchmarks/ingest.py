"""Ingestion speed: per filing, time per stage next to the embedding floor and a naive pipeline.

Usage: python benchmarks/ingest.py [FILE ...]   (default: the sample filing and three real 10-Ks)
       python benchmarks/ingest.py --hostile      (generated worst cases: a 10 MB one-line text, a 5,000-row
                                                   table, a 10 MB text with no filing structure)
       python benchmarks/ingest.py --reuse        (the embedding cache: a company's next 10-K after its last
                                                   one, and a re-index, against a fresh data directory)
       python benchmarks/ingest.py --process      (whole `core.cli ingest` processes, one per index model:
                                                   MiniLM and the static model distilled from it, against
                                                   MiniLM embedding the same passages in this process)
Prints a Markdown table and writes benchmarks/results/ingest.json (ingest_hostile.json with --hostile,
ingest_reuse.json with --reuse, ingest_process.json with --process).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.config import BUNDLED_EMBEDDING_MODEL, Settings  # noqa: E402
from core.index.static_embeddings import STATIC_EMBEDDING_MODEL  # noqa: E402
from core.index.store import IndexStore  # noqa: E402
from core.index.vector_store import VectorStore  # noqa: E402
from core.ingest.parse import parse_filing  # noqa: E402
from core.ingest.pipeline import ingest_file  # noqa: E402
from core.ingest.validate import check_upload  # noqa: E402
from core.models import Chunk  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
DEFAULT_FILES = [
    ROOT / "sample_docs" / "northwind_10k_fy2025.html",
    SHARED / "filings" / "NVDA_10K_FY2023.htm",
    SHARED / "financebench" / "pdfs" / "AMAZON_2019_10K.pdf",
    SHARED / "filings" / "UBER_10K_FY2021.pdf",
]
NAIVE_CHUNK_CHARS = 1000


def naive_pipeline(path: Path, data_dir: Path) -> dict[str, float]:
    """Page text → fixed 1,000-character splits → the same embeddings → Chroma; seconds per stage."""
    t0 = time.perf_counter()
    data = path.read_bytes()
    parsed = parse_filing(data, check_upload(data, path.name, 1 << 40))
    pages: dict[int, list[str]] = {}
    for block in parsed.blocks:
        pages.setdefault(block.page, []).append(block.text)
    texts = []
    for page, parts in sorted(pages.items()):
        page_text = "\n".join(parts)
        texts += [
            (page, page_text[i : i + NAIVE_CHUNK_CHARS]) for i in range(0, len(page_text), NAIVE_CHUNK_CHARS)
        ]
    t1 = time.perf_counter()
    settings = Settings(data_dir=data_dir)
    store = IndexStore.open(settings)
    vectors = store.embedder.embed_documents([t for _, t in texts])
    t2 = time.perf_counter()
    chunks = [
        Chunk(
            chunk_id=f"naive-{i}",
            filing_id="naive",
            section="-",
            page=p,
            chunk_index=i,
            char_start=0,
            char_end=len(t),
            text=t,
        )
        for i, (p, t) in enumerate(texts)
    ]
    VectorStore(settings, store.embedder).add(chunks, vectors)
    t3 = time.perf_counter()
    return {"chunks": len(texts), "parse": t1 - t0, "embed": t2 - t1, "index": t3 - t2, "total": t3 - t0}


def hostile_files(folder: Path) -> list[Path]:
    """Worst cases for the parse and chunk stages, generated (never committed): ingested in time linear in
    their size, or rejected at once with a reason."""
    import random

    rng = random.Random(7)
    vocabulary = [
        "revenue",
        "growth",
        "market",
        "company",
        "product",
        "customer",
        "operating",
        "income",
        "segment",
    ]
    words = " ".join(rng.choice(vocabulary) for _ in range(10 * 1024 * 1024 // 7))
    one_line = folder / "one_line_10mb.txt"
    one_line.write_text("ANNUAL REPORT ON FORM 10-K\nItem 1. Business\n" + words)
    unstructured = folder / "no_structure_10mb.txt"
    unstructured.write_text(words)
    rows = "".join(
        "<tr>" + "".join(f"<td>{r * 50 + c:,}</td>" for c in range(50)) + "</tr>" for r in range(5000)
    )
    table = folder / "table_5000x50.html"
    table.write_text(
        "<html><body><p>ANNUAL REPORT ON FORM 10-K</p><p>Item 8. Financial Statements</p>"
        f"<table>{rows}</table></body></html>"
    )
    return [unstructured, one_line, table]


def measure(path: Path, naive: bool = True) -> dict:
    """Ingest one file into a fresh data directory and time every stage and the embedding floor."""
    with tempfile.TemporaryDirectory() as tmp:
        store = IndexStore.open(Settings(data_dir=Path(tmp) / "data"))
        store.embedder.embed_query("warm up")  # model load is not ingestion time
        t0 = time.perf_counter()
        result = ingest_file(store, path.read_bytes(), path.name)
        total = time.perf_counter() - t0
        if not result.ok:
            return {"file": path.name, "error": result.error, "total_s": round(total, 2)}
        texts = [c.indexed_text for c in store.catalog.list_chunks(result.filing.filing_id)]
        t1 = time.perf_counter()
        store.embedder.embed_documents(texts)
        floor = time.perf_counter() - t1
        baseline = naive_pipeline(path, Path(tmp) / "naive") if naive else {"chunks": 0, "total": 0.0}
    stages = {k: round(v, 2) for k, v in result.stage_seconds.items()}
    return {
        "file": path.name,
        "pages": result.filing.pages,
        "chunks": result.filing.chunks,
        "stages": stages,
        "total_s": round(total, 2),
        "embed_floor_s": round(floor, 2),
        "ratio_to_floor": round(total / floor, 3) if floor else None,
        "size_mb": round(path.stat().st_size / 1024 / 1024, 2),
        "naive": {k: round(v, 2) if isinstance(v, float) else v for k, v in baseline.items()},
    }


REUSE_PAIRS = [
    (SHARED / "filings" / "NVDA_10K_FY2023.htm", SHARED / "filings" / "NVDA_10K_FY2024.htm"),
    (SHARED / "filings" / "AAPL_10K_FY2023.htm", SHARED / "filings" / "AAPL_10K_FY2024.htm"),
]


def measure_reuse(earlier: Path, later: Path) -> dict:
    """The later filing ingested alone, then after the earlier one; then the later one re-indexed."""
    from core.ingest.pipeline import reindex_filing

    with tempfile.TemporaryDirectory() as tmp:
        alone = IndexStore.open(Settings(data_dir=Path(tmp) / "alone"))
        alone.embedder.embed_query("warm up")
        t0 = time.perf_counter()
        fresh = ingest_file(alone, later.read_bytes(), later.name)
        fresh_s = time.perf_counter() - t0
        shared = IndexStore.open(Settings(data_dir=Path(tmp) / "shared"))
        ingest_file(shared, earlier.read_bytes(), earlier.name)
        t0 = time.perf_counter()
        after = ingest_file(shared, later.read_bytes(), later.name)
        after_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        again = reindex_filing(shared, after.filing.filing_id)
        again_s = time.perf_counter() - t0
    chunks = after.filing.chunks
    return {
        "earlier": earlier.name,
        "later": later.name,
        "chunks": chunks,
        "alone_s": round(fresh_s, 1),
        "alone_embed_s": round(fresh.stage_seconds.get("embed", 0.0), 1),
        "after_earlier_reused": after.reused_embeddings,
        "after_earlier_reused_share": round(after.reused_embeddings / chunks, 3),
        "after_earlier_s": round(after_s, 1),
        "after_earlier_embed_s": round(after.stage_seconds.get("embed", 0.0), 1),
        "reindex_reused": again.reused_embeddings,
        "reindex_s": round(again_s, 1),
    }


def reuse_main() -> None:
    rows = [measure_reuse(a, b) for a, b in REUSE_PAIRS if a.exists() and b.exists()]
    _print_header(
        "| later filing | passages | alone s (embed) | after the earlier 10-K: reused | s (embed) "
        "| re-index: reused | s |"
    )
    for r in rows:
        print(
            f"| {r['later']} | {r['chunks']} | {r['alone_s']:.1f} ({r['alone_embed_s']:.1f}) "
            f"| {r['after_earlier_reused']} ({r['after_earlier_reused_share']:.0%}) "
            f"| {r['after_earlier_s']:.1f} ({r['after_earlier_embed_s']:.1f}) | {r['reindex_reused']} "
            f"| {r['reindex_s']:.1f} |"
        )
    _write_results("ingest_reuse.json", rows)


PROCESS_MODELS = [BUNDLED_EMBEDDING_MODEL, STATIC_EMBEDDING_MODEL]


def measure_process(path: Path) -> dict:
    """`python -m core.cli ingest FILE` as a whole process (start-up, model load, parse, embed, write) for
    each index model, and MiniLM embedding the filing's passages in this process: the floor."""
    import os
    import subprocess

    row: dict = {"file": path.name, "processes": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for model in PROCESS_MODELS:
            data_dir = Path(tmp) / model
            env = {**os.environ, "HF_HUB_OFFLINE": "1", "WORKBENCH_EMBEDDING_MODEL": model}
            command = [
                sys.executable,
                "-m",
                "core.cli",
                "ingest",
                "--quiet",
                "--data-dir",
                str(data_dir),
                str(path),
            ]
            t0 = time.perf_counter()
            done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
            row["processes"][model] = {
                "seconds": round(time.perf_counter() - t0, 2),
                "ok": done.returncode == 0,
                "error": done.stderr[-500:] if done.returncode else None,
            }
        store = IndexStore.open(Settings(data_dir=Path(tmp) / PROCESS_MODELS[0]))
        texts = [
            c.indexed_text
            for f in store.catalog.list_filings()
            for c in store.catalog.list_chunks(f.filing_id)
        ]
        store.embedder.embed_query("warm up")
        t0 = time.perf_counter()
        store.embedder.embed_documents(texts)
        row["chunks"] = len(texts)
        row["embed_floor_s"] = round(time.perf_counter() - t0, 2)
        store.close()
    return row


def process_main(files: list[Path]) -> None:
    rows = [measure_process(path) for path in files if path.exists()]
    _print_header(
        "| filing | passages | MiniLM floor s | "
        + " | ".join(f"process, {m} s | / floor" for m in PROCESS_MODELS)
        + " |"
    )
    for r in rows:
        cells = []
        for model in PROCESS_MODELS:
            run = r["processes"][model]
            ratio = run["seconds"] / r["embed_floor_s"] if r["embed_floor_s"] else 0.0
            cells.append(f"{run['seconds']:.1f} | **{ratio:.2f}**" if run["ok"] else "failed | -")
        print(f"| {r['file']} | {r['chunks']} | {r['embed_floor_s']:.1f} | " + " | ".join(cells) + " |")
    _write_results("ingest_process.json", rows)


def _print_header(header: str) -> None:
    """A Markdown table's header and its separator (first column left, the rest right-aligned)."""
    print(header)
    print("|---|" + "---:|" * (header.count("|") - 2))


def _write_results(name: str, rows: list[dict]) -> None:
    out = ROOT / "benchmarks" / "results" / name
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {"machine": platform.platform(), "python": platform.python_version(), "rows": rows}, indent=2
        )
    )
    print(f"\nwrote {out.relative_to(ROOT)}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--hostile", action="store_true", help="generated worst cases instead of filings")
    parser.add_argument("--reuse", action="store_true", help="embedding cache: next year's 10-K, re-index")
    parser.add_argument("--process", action="store_true", help="whole ingest processes per index model")
    args = parser.parse_args()
    if args.reuse:
        reuse_main()
        return
    if args.process:
        process_main(args.files or DEFAULT_FILES)
        return
    scratch = tempfile.TemporaryDirectory()
    files = hostile_files(Path(scratch.name)) if args.hostile else args.files or DEFAULT_FILES
    rows = []
    for path in (f for f in files if f.exists()):
        print(f"measuring {path.name} ...", file=sys.stderr, flush=True)
        rows.append(measure(path, naive=not args.hostile))

    _print_header(
        "| filing | pages | chunks | parse | sections | chunk | embed | index | total s | embed floor s "
        "| total / floor | naive chunks | naive total s |"
    )
    for r in rows:
        if "error" in r:
            print(f"| {r['file']} | rejected in {r['total_s']:.1f} s: {r['error']} |")
            continue
        s = r["stages"]
        print(
            f"| {r['file']} | {r['pages']} | {r['chunks']} | {s.get('parse', 0):.1f} | {s.get('sections', 0):.2f} "
            f"| {s.get('chunk', 0):.1f} | {s.get('embed', 0):.1f} | {s.get('index', 0):.1f} | {r['total_s']:.1f} "
            f"| {r['embed_floor_s']:.1f} | {r['ratio_to_floor']:.2f} | {r['naive']['chunks']} | {r['naive']['total']:.1f} |"
        )
    _write_results("ingest_hostile.json" if args.hostile else "ingest.json", rows)


if __name__ == "__main__":
    main()
