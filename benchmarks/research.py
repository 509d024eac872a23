"""Offline research speed: end-to-end time of a 3-step question on one filing, models warm, per node.

Usage: python benchmarks/research.py [--runs N] [--only sample|nvda]
Ingests each filing into a temporary index, runs the question once to warm the models, then times
N runs (plan -> approve -> steps -> cited answer). Prints a Markdown table per scenario and writes
benchmarks/results/research.json. Target: <= 5 s per run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from core.config import Settings  # noqa: E402
from core.graph.deps import build_deps  # noqa: E402
from core.graph.runner import ResearchRunner  # noqa: E402
from core.index.store import IndexStore  # noqa: E402
from core.ingest.pipeline import ingest_file  # noqa: E402

TARGET_S = 5.0
SHARED = ROOT.parent / "shared" / "data"
SCENARIOS = {
    "sample": (
        ROOT / "sample_docs" / "northwind_10k_fy2025.html",
        "What competition risks does Northwind list, and how did its Fleet Software segment revenue and R&D "
        "spending change in FY2025?",
    ),
    "nvda": (
        SHARED / "filings" / "NVDA_10K_FY2023.htm",
        "From NVIDIA's FY2023 10-K, what competition risks does it list, and how do its R&D and Data Center "
        "results relate to them?",
    ),
}


def run_scenario(name: str, path: Path, question: str, runs: int) -> dict:
    """Ingest, warm up, then time `runs` full offline runs; per-node medians."""
    with tempfile.TemporaryDirectory(prefix=f"bench-research-{name}-") as tmp:
        settings = Settings(data_dir=Path(tmp), web_search_enabled=False)
        store = IndexStore.open(settings)
        result = ingest_file(store, path.read_bytes(), path.name)
        if not result.ok or result.filing is None:
            raise SystemExit(f"{path.name}: {result.error}")
        filing_id = result.filing.filing_id
        warm_runner = ResearchRunner(settings, lambda: build_deps(settings, store=store))
        warm = warm_runner.approve_plan(warm_runner.start(question, [filing_id]).run_id)
        warm_runner.close()
        totals, nodes, steps = [], {}, len(warm.steps)
        for _ in range(runs):
            # Models stay loaded (process caches), but each run gets a fresh retriever: no query
            # embedding is reused from the previous run.
            runner = ResearchRunner(settings, lambda: build_deps(settings, store=store))
            started = time.perf_counter()
            record = runner.approve_plan(runner.start(question, [filing_id]).run_id)
            totals.append(time.perf_counter() - started)
            assert record.status == "finished", record.error
            for node, seconds in record.timings.items():
                nodes.setdefault(node, []).append(seconds)
            runner.close()
    median = statistics.median(totals)
    return {
        "scenario": name,
        "filing": path.name,
        "chunks": result.filing.chunks,
        "question": question,
        "steps": steps,
        "citations": len(record.citations),
        "reranker": next((s.reranker for s in record.steps if s.reranker), None),
        "runs_s": [round(t, 3) for t in totals],
        "median_total_s": round(median, 3),
        "node_median_s": {
            n: round(statistics.median(v), 4) for n, v in sorted(nodes.items(), key=lambda p: -max(p[1]))
        },
        "target_s": TARGET_S,
        "meets_target": median <= TARGET_S,
    }


def print_table(row: dict) -> None:
    """A Markdown table of one scenario's per-node medians."""
    print(f"\n### {row['scenario']}: {row['filing']} ({row['chunks']} chunks), {row['steps']} steps")
    print(f"Question: {row['question']}\n")
    print("| node | median s | share |")
    print("|---|---:|---:|")
    total = row["median_total_s"] or 1.0
    for node, seconds in row["node_median_s"].items():
        print(f"| {node} | {seconds:.3f} | {seconds / total:.0%} |")
    verdict = "meets" if row["meets_target"] else "misses"
    print(
        f"| **total (wall)** | **{row['median_total_s']:.3f}** | {verdict} the {row['target_s']:g} s target |"
    )
    print(f"\nruns: {row['runs_s']}; citations: {row['citations']}; reranker: {row['reranker']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", choices=sorted(SCENARIOS), default=None)
    args = parser.parse_args()
    rows = []
    for name, (path, question) in SCENARIOS.items():
        if args.only and name != args.only:
            continue
        if not path.exists():
            print(f"skipping {name}: {path.name} not available")
            continue
        row = run_scenario(name, path, question, args.runs)
        print_table(row)
        rows.append(row)
    out = ROOT / "benchmarks" / "results" / "research.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    payload = {"machine": {"python": platform.python_version(), "cpus": os.cpu_count()}, "scenarios": rows}
    out.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
