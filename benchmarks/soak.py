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


def rss_mb() -> float:
    """Resident memory of this process (Linux /proc)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


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
        bench = Workbench(Settings(data_dir=Path(tmp), web_search_enabled=False))
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
            samples.append(
                {
                    "run": number,
                    "seconds": round(time.perf_counter() - started, 2),
                    "steps": len(record.steps),
                    "rss_mb": round(rss_mb(), 1),
                    "open_fds": open_fds(),
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
        "bounds": {"rss_mb": MAX_RSS_GROWTH_MB, "open_fds": MAX_FD_GROWTH, "threads": MAX_THREAD_GROWTH},
    }


def print_table(result: dict) -> None:
    print(f"{result['runs']} runs of: {result['question']}\n")
    print("| run | seconds | steps | RSS MB | open files | threads |")
    print("|---:|---:|---:|---:|---:|---:|")
    for s in result["samples"]:
        if s["run"] in (1, result["warmup"]) or s["run"] % 5 == 0:
            print(
                f"| {s['run']} | {s['seconds']} | {s['steps']} | {s['rss_mb']} | {s['open_fds']} | {s['threads']} |"
            )
    g, b = result["growth_after_warmup"], result["bounds"]
    print(
        f"\nGrowth from run {result['warmup']} to run {result['runs']}: RSS {g['rss_mb']:+} MB (bound {b['rss_mb']}), "
        f"open files {g['open_fds']:+} (bound {b['open_fds']}), threads {g['threads']:+} (bound {b['threads']}); "
        f"peak RSS {result['peak_rss_mb']} MB."
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
