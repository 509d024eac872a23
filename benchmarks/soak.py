"""Soak: research runs back to back through the app's own path, watching memory, open files and threads.

Usage: python benchmarks/soak.py [--runs 20] [--warmup 5] [--out FILE]
Ingests the sample filing into a fresh data directory, then runs its first sample question `--runs` times
the way the Research page does (plan on a background worker, approve, run to the answer), one after the
other. After each run it reads this process's resident memory, open file descriptors and threads. Growth is
counted from the end of the warm-up runs (models, caches and connections are built by then) to the last run.
Prints a Markdown table and writes benchmarks/results/soak.json (or --out).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from core.config import Settings  # noqa: E402
from core.service import SAMPLE_FILING, Workbench  # noqa: E402

QUESTIONS = SAMPLE_FILING.parent / "questions.json"
#: Bounds the soak test holds the growth to (after warm-up, over the remaining runs).
MAX_RSS_GROWTH_MB = 60.0
MAX_FD_GROWTH = 2
MAX_THREAD_GROWTH = 2
#: Chroma keeps a pool of SQLite connections to its database file and opens them on demand, when queries
#: overlap, up to a cap (10, measured with chromadb 1.5: 64 threads querying at once hold 10 handles).
#: How many are open after a given run depends on timing, so they are counted apart from the other open
#: files and held to the cap instead of to the growth bound.
VECTOR_STORE_POOL_CAP = 10


def rss_mb() -> float:
    """Resident memory of this process (Linux /proc)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def open_files(pooled_file: Path) -> tuple[int, int]:
    """(open file descriptors other than handles on `pooled_file`, handles on `pooled_file`)."""
    other = pooled = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # closed since the listing (the listing's own descriptor, for one)
            continue
        if target == str(pooled_file):
            pooled += 1
        else:
            other += 1
    return other, pooled


def _finish(bench: Workbench, run_id: str, timeout_s: float = 300.0) -> None:
    """Wait for the run's background action to end."""
    deadline = time.monotonic() + timeout_s
    while (live := bench.live_run(run_id)) is None or live.active:
        if time.monotonic() > deadline:
            raise TimeoutError(f"run {run_id} did not finish in {timeout_s:.0f} s")
        time.sleep(0.05)


def soak(runs: int, warmup: int) -> dict:
    question = json.loads(QUESTIONS.read_text(encoding="utf-8"))[0]["question"]
    samples = []
    with tempfile.TemporaryDirectory(prefix="bench-soak-") as tmp:
        settings = Settings(data_dir=Path(tmp), web_search_enabled=False)
        bench = Workbench(settings)
        vector_db = (settings.chroma_dir / "chroma.sqlite3").resolve()
        (ingested,) = bench.ingest_paths([SAMPLE_FILING])
        filing_id = ingested.filing.filing_id
        for number in range(1, runs + 1):
            started = time.perf_counter()
            run_id = bench.start_research_in_background(question, [filing_id])
            _finish(bench, run_id)
            plan = bench.get_run(run_id).plan
            bench.run_in_background(run_id, "Running the plan…", len(plan.steps), bench.approve_plan, run_id)
            _finish(bench, run_id)
            record = bench.get_run(run_id)
            if record.status != "finished":
                raise RuntimeError(f"run {number} ended {record.status}: {record.error}")
            other_files, vector_store_connections = open_files(vector_db)
            samples.append(
                {
                    "run": number,
                    "seconds": round(time.perf_counter() - started, 2),
                    "steps": len(record.steps),
                    "rss_mb": round(rss_mb(), 1),
                    "open_fds": other_files,
                    "vector_store_connections": vector_store_connections,
                    "threads": threading.active_count(),
                }
            )
        bench.close()
    base, last = samples[min(warmup, runs) - 1], samples[-1]
    growth = {key: round(last[key] - base[key], 1) for key in ("rss_mb", "open_fds", "threads")}
    return {
        "runs": runs,
        "warmup": warmup,
        "question": question,
        "samples": samples,
        "growth_after_warmup": growth,
        "peak_rss_mb": max(s["rss_mb"] for s in samples),
        "peak_vector_store_connections": max(s["vector_store_connections"] for s in samples),
        "bounds": {"rss_mb": MAX_RSS_GROWTH_MB, "open_fds": MAX_FD_GROWTH, "threads": MAX_THREAD_GROWTH},
        "vector_store_pool_cap": VECTOR_STORE_POOL_CAP,
    }


def print_table(result: dict) -> None:
    print(f"{result['runs']} runs of: {result['question']}\n")
    print("| run | seconds | steps | RSS MB | open files | vector-store connections | threads |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for s in result["samples"]:
        if s["run"] in (1, result["warmup"]) or s["run"] % 5 == 0:
            print(
                f"| {s['run']} | {s['seconds']} | {s['steps']} | {s['rss_mb']} | {s['open_fds']} "
                f"| {s['vector_store_connections']} | {s['threads']} |"
            )
    g, b = result["growth_after_warmup"], result["bounds"]
    print(
        f"\nGrowth from run {result['warmup']} to run {result['runs']}: RSS {g['rss_mb']:+} MB (bound {b['rss_mb']}), "
        f"open files {g['open_fds']:+} (bound {b['open_fds']}), threads {g['threads']:+} (bound {b['threads']}); "
        f"peak RSS {result['peak_rss_mb']} MB; vector-store connections at most "
        f"{result['peak_vector_store_connections']} (Chroma's pool cap {result['vector_store_pool_cap']})."
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "soak.json")
    args = parser.parse_args()
    result = soak(args.runs, args.warmup)
    print_table(result)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    payload = {"machine": {"python": platform.python_version(), "cpus": os.cpu_count()}, **result}
    args.out.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
