"""Independent steps at once: wall time of LLM runs, one step at a time vs in waves.

Usage: python benchmarks/parallel.py [--latency 1.0] [--parallel 4]
A scripted OpenAI-compatible server on 127.0.0.1 answers every call after a fixed latency (a model's time).
Two plans over the sample filing are timed with `max_parallel_steps` 1 (one step at a time) and N (waves),
on the same index:
- "independent": five narrative parts planned by the model, six steps with the anchor, none depending on
  another (the issue's 6-step run);
- "figures": a question with figures, whose plan has statement lookups and a calculator that must wait for
  them (a wave boundary), then narrative parts.
Both timings must give the same answer and citations. The offline engine runs the first question the same
way (its default stays one step at a time: "offline default" is what `make run` does); a follow-up step
lands after its wave instead of after its step, so the offline comparison is of the opening paragraph and
the set of passages cited. Prints a Markdown table and writes benchmarks/results/parallel.json.
Target: the independent 6-step LLM run >= 2.5x faster in waves, same answer and citations.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
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
from core.llm import build_chat_model  # noqa: E402
from tests.graph.openai_stub import OpenAIStub, default_answer  # noqa: E402

TARGET_SPEEDUP = 2.5
SAMPLE = ROOT / "sample_docs" / "northwind_10k_fy2025.html"

#: name -> (question, the parts the scripted model plans, the run's step budget)
SCENARIOS: dict[str, tuple[str, list[str], int]] = {
    "independent": (
        "What competition risks does Northwind list, who are its largest customers, what legal proceedings "
        "does it disclose, and what does it say about its suppliers and its intellectual property?",
        [
            "Which competition risks does Northwind list?",
            "Who are Northwind's largest customers?",
            "What legal proceedings does Northwind disclose?",
            "What does Northwind say about its suppliers?",
            "How does Northwind protect its intellectual property?",
        ],
        6,
    ),
    "figures": (
        "How did Northwind's Fleet Software revenue and R&D spending change in FY2025, what competition "
        "risks does it list and who are its largest customers?",
        [
            "Which competition risks does Northwind list?",
            "Who are Northwind's largest customers?",
        ],
        8,
    ),
}


def scripted(parts: list[str]):
    """The stub's answers: a plan of `parts`, the stub's defaults for every other role."""

    def answer(tool: str, prompt: str) -> dict:
        if tool == "PlanDraft":
            return {
                "steps": [{"sub_question": part, "tool": "search_10k"} for part in parts],
                "rationale": "independent parts",
            }
        return default_answer(tool, prompt)

    return answer


def timed_run(
    settings: Settings, store: IndexStore, filing_id: str, question: str, chat_model=None
) -> tuple[float, dict]:
    """(seconds from approval to answer, what the comparison needs of the run)."""
    runner = ResearchRunner(settings, lambda: build_deps(settings, store=store, chat_model=chat_model))
    run_id = runner.start(question, [filing_id]).run_id
    started = time.perf_counter()
    record = runner.approve_plan(run_id)
    seconds = time.perf_counter() - started
    runner.close()
    if record.status != "finished":
        raise SystemExit(f"run {run_id} ended {record.status}: {record.error}")
    return seconds, {
        "steps": len(record.steps),
        "answer": record.answer,
        "opening": record.answer.split("\n### ")[0],
        "citations": [c.model_dump(mode="json") for c in record.citations],
        "passages": sorted({c.chunk_id or c.url or "" for c in record.citations}),
        "calls": record.token_usage.calls,
    }


def compare(engine: str, scenario: str, timings: tuple[float, dict], waves: tuple[float, dict]) -> dict:
    one, many = timings[1], waves[1]
    return {
        "engine": engine,
        "plan": scenario,
        "steps": one["steps"],
        "model_calls": one["calls"],
        "one_at_a_time_s": round(timings[0], 2),
        "waves_s": round(waves[0], 2),
        "speedup": round(timings[0] / waves[0], 2),
        "same_answer": one["answer"] == many["answer"],
        "same_citations": one["citations"] == many["citations"],
        "same_opening": one["opening"] == many["opening"],
        "same_passages_cited": one["passages"] == many["passages"],
    }


def measure(latency_s: float, parallel: int) -> dict:
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-parallel-") as tmp:
        base = Settings(data_dir=Path(tmp), web_search_enabled=False)
        store = IndexStore.open(base)
        result = ingest_file(store, SAMPLE.read_bytes(), SAMPLE.name)
        if not result.ok or result.filing is None:
            raise SystemExit(f"{SAMPLE.name}: {result.error}")
        filing_id = result.filing.filing_id
        for scenario, (question, parts, max_steps) in SCENARIOS.items():
            with OpenAIStub(answer=scripted(parts), latency_s=latency_s) as stub:
                llm = base.model_copy(
                    update={
                        "llm_provider": "openai",
                        "llm_base_url": stub.base_url,
                        "llm_model": "stub-model",
                        "max_steps": max_steps,
                    }
                )
                model = build_chat_model(llm, cache=False)
                timed_run(llm, store, filing_id, question, model)  # warm the models and the caches
                one = timed_run(
                    llm.model_copy(update={"max_parallel_steps": 1}), store, filing_id, question, model
                )
                many = timed_run(
                    llm.model_copy(update={"max_parallel_steps": parallel}), store, filing_id, question, model
                )
                rows.append(compare("llm", scenario, one, many))
        question, _, max_steps = SCENARIOS["independent"]
        offline = base.model_copy(update={"max_steps": max_steps})
        timed_run(offline, store, filing_id, question)
        default = timed_run(offline, store, filing_id, question)
        many = timed_run(
            offline.model_copy(update={"max_parallel_steps": parallel}), store, filing_id, question
        )
        rows.append(compare("offline default", "independent", default, many))
    target_row = rows[0]
    return {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "latency_s": latency_s,
        "max_parallel_steps": parallel,
        "rows": rows,
        "target_speedup": TARGET_SPEEDUP,
        "meets_target": target_row["speedup"] >= TARGET_SPEEDUP
        and target_row["same_answer"]
        and target_row["same_citations"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds the server takes per call")
    parser.add_argument("--parallel", type=int, default=4, help="max_parallel_steps of the waves run")
    args = parser.parse_args()
    payload = measure(args.latency, args.parallel)
    print(
        f"\n{payload['latency_s']:g} s per model call; waves of up to {payload['max_parallel_steps']} steps\n"
    )
    print(
        "| engine | plan | steps | model calls | one at a time (s) | waves (s) | speed-up "
        "| same answer | same citations | same opening | same passages cited |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---|---|---|---|")
    for r in payload["rows"]:
        print(
            f"| {r['engine']} | {r['plan']} | {r['steps']} | {r['model_calls']} | {r['one_at_a_time_s']:.2f} "
            f"| {r['waves_s']:.2f} | {r['speedup']:.2f}x | {r['same_answer']} | {r['same_citations']} "
            f"| {r['same_opening']} | {r['same_passages_cited']} |"
        )
    verdict = "meets" if payload["meets_target"] else "misses"
    print(f"\nThe independent 6-step LLM run {verdict} the {TARGET_SPEEDUP:g}x target.")
    out = ROOT / "benchmarks" / "results" / "parallel.json"
    out.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
