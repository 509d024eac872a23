"""CLI `ask` / `resume`: headless runs, plan review from a file, and a run killed mid-way that resumes
from its checkpoint (SQLite, or a Postgres server) with no step lost or repeated."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.cli import main
from tests.conftest import REPO_ROOT

QUESTION = (
    "What competition risks does Northwind list, and how did its Fleet Software segment revenue and R&D "
    "spending change in FY2025?"
)


def test_commands_register_on_the_main_parser() -> None:
    from core.cli import build_parser

    args = build_parser().parse_args(["ask", "Why?", "--filing", "f1", "--max-steps", "3", "--data-dir", "d"])
    assert (args.question, args.filing, args.max_steps, str(args.data_dir)) == ("Why?", ["f1"], 3, "d")
    args = build_parser().parse_args(["resume", "r1", "--plan-file", "p.json", "--data-dir", "d", "--quiet"])
    assert (args.run_id, args.plan_file, args.quiet) == ("r1", "p.json", True)


@pytest.mark.slow
def test_ask_stops_at_review_and_resume_applies_the_edited_plan(sample_index, capsys, tmp_path) -> None:
    data_dir, filing_id = sample_index
    assert (
        main(["ask", QUESTION, "--filing", filing_id, "--data-dir", str(data_dir), "--run-id", "cli-1"]) == 0
    )
    pending = json.loads(capsys.readouterr().out)
    assert pending["status"] == "awaiting_plan_review" and pending["run_id"] == "cli-1"
    plan = pending["plan"]
    plan["steps"] = plan["steps"][:1]  # keep only the competition step
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan))
    assert main(["resume", "cli-1", "--plan-file", str(plan_file), "--data-dir", str(data_dir)]) == 0
    done = json.loads(capsys.readouterr().out)
    # The analyst's one step ran; reflection may only have added a read-on after it.
    first, *added = done["steps"]
    assert done["status"] == "finished" and first["step_id"] == plan["steps"][0]["step_id"]
    assert all(s["origin"] == "reflection" and s["reads_on_from"] for s in added)
    assert [v["author"] for v in done["plan_history"]][:2] == ["planner", "analyst"]
    assert done["citations"] and {"number", "chunk_id", "quote"} <= set(done["citations"][0])
    assert "pool" not in done["steps"][0]


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "core.cli", *args]


@pytest.mark.slow
@pytest.mark.parametrize("checkpoints", ["sqlite", "postgres"])
def test_killed_run_resumes_without_losing_or_repeating_steps(sample_index, checkpoints, request) -> None:
    data_dir, filing_id = sample_index
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "WORKBENCH_WEB_SEARCH_ENABLED": "false"}
    if checkpoints == "postgres":  # the same crash with the checkpoints on a Postgres server
        env["WORKBENCH_CHECKPOINT_URL"] = request.getfixturevalue("postgres_url")
    run_id = f"crash-{checkpoints}"
    ask = _cli(
        "ask",
        QUESTION,
        "--filing",
        filing_id,
        "--auto-approve",
        "--run-id",
        run_id,
        "--data-dir",
        str(data_dir),
    )
    proc = subprocess.Popen(
        ask, cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    seen: list[str] = []
    deadline = time.monotonic() + 300
    assert proc.stderr is not None
    for line in proc.stderr:
        seen.append(line)
        # Kill hard as soon as the second step has its evidence: mid-step, mid-run.
        if line.startswith("[evidence_found]") and " step 2" in line:
            proc.kill()
            break
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("the run never reached step 2")
    proc.wait(timeout=30)
    assert proc.returncode == -9, "".join(seen[-20:])

    resumed = subprocess.run(
        _cli("resume", run_id, "--data-dir", str(data_dir)),
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    record = json.loads(resumed.stdout)
    assert record["status"] == "finished"
    steps = record["steps"]
    assert [s["index"] for s in steps] == list(range(len(record["plan"]["steps"])))
    assert len(steps) >= 3 and record["plan"]["steps"][0]["origin"] == "anchor"
    assert all(s["attempt"] == 1 and s["decision"] for s in steps)
    # The resumed process started inside step 2; step 1 was not run again.
    started = re.findall(r"^\[node_started\] (\w+) step (\d+)", resumed.stderr, flags=re.M)
    assert ("rewrite_query", "1") not in started
    assert ("rewrite_query", "2") not in started
    assert any(step == "3" for _, step in started)
    assert record["citations"] and Path(data_dir, "checkpoints.sqlite").exists()
