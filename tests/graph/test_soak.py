"""Soak: 20 research runs back to back on the sample filing, through the app's background path, do not
grow memory, open files or threads (benchmarks/soak.py measures; this test holds it to its bounds). Handles
on Chroma's database file come from its connection pool, which opens them when queries overlap: they are
held to the pool's cap rather than to the growth bound."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_twenty_runs_back_to_back_do_not_grow_memory_files_or_threads(tmp_path: Path) -> None:
    out = tmp_path / "soak.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "soak.py"), "--runs", "20", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(out.read_text(encoding="utf-8"))
    assert [s["run"] for s in result["samples"]] == list(range(1, 21))
    assert all(s["steps"] >= 1 for s in result["samples"])
    growth, bounds = result["growth_after_warmup"], result["bounds"]
    for key in ("rss_mb", "open_fds", "threads"):
        assert growth[key] <= bounds[key], f"{key} grew by {growth[key]} after warm-up: {result['samples']}"
    assert result["peak_vector_store_connections"] <= result["vector_store_pool_cap"], result["samples"]
