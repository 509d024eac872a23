"""CLI commands `ask` and `resume`: headless research runs that print the run record as JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from core.config import Settings, load_settings
from core.graph.records import RunRecord
from core.models import Plan, RunEvent


def _runner(settings: Settings) -> Any:
    from core.graph.deps import build_deps
    from core.graph.runner import ResearchRunner

    return ResearchRunner(settings, lambda: build_deps(settings))


def _progress(event: RunEvent) -> None:
    # Progress goes to stderr so that stdout stays one JSON document.
    step = f" step {event.step_index + 1}" if event.step_index is not None else ""
    node = f" {event.node}" if event.node else ""
    message = f": {event.message}" if event.message else ""
    print(f"[{event.kind}]{node}{step}{message}"[:300], file=sys.stderr, flush=True)


def record_json(record: RunRecord) -> dict[str, Any]:
    """The public JSON shape of a run for the CLI."""
    data = record.model_dump(mode="json")
    for step in data["steps"]:
        step.pop("pool", None)
    data["citations"] = [
        {
            "number": c.number,
            "evidence_id": c.evidence_id,
            "chunk_id": c.chunk_id,
            "url": c.url,
            "filing_label": c.filing_label,
            "section": c.section,
            "page": c.page,
            "quote": c.quote,
        }
        for c in record.citations
    ]
    return data


def _print(record: RunRecord) -> None:
    print(json.dumps(record_json(record), ensure_ascii=False, indent=2))


def _settings(args: argparse.Namespace) -> Settings:
    return load_settings(data_dir=args.data_dir) if getattr(args, "data_dir", None) else load_settings()


def _load_plan(path: str) -> Plan:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if isinstance(data, dict) and "plan" in data and "steps" not in data:
        data = data["plan"]
    if isinstance(data, dict) and "remaining_plan" in data and "steps" not in data:
        data = data["remaining_plan"]
    return Plan.model_validate(data)


def cmd_ask(args: argparse.Namespace) -> int:
    """Start a run; with --auto-approve, approve the plan and run to the end (or the first step pause)."""
    settings = _settings(args)
    runner = _runner(settings)
    filing_ids = list(args.filing or [])
    if not filing_ids:
        from core.index.catalog import Catalog

        filing_ids = [f.filing_id for f in Catalog(settings.catalog_path).list_filings()]
    if not filing_ids:
        print("No filings are ingested; run `ingest` first or pass --filing.", file=sys.stderr)
        return 2
    record = runner.start(
        args.question,
        filing_ids,
        step_mode=args.step_mode,
        max_steps=args.max_steps,
        run_id=args.run_id,
        on_event=_progress,
    )
    if args.auto_approve and record.status == "awaiting_plan_review":
        record = runner.approve_plan(record.run_id, on_event=_progress)
    _print(record)
    return 1 if record.status == "failed" else 0


def cmd_resume(args: argparse.Namespace) -> int:
    """Continue a run: approve its plan (optionally edited), continue after a pause, or after a crash."""
    runner = _runner(_settings(args))
    record = runner.get(args.run_id)
    plan = _load_plan(args.plan_file) if args.plan_file else None
    if record.status == "awaiting_plan_review":
        record = runner.approve_plan(args.run_id, plan, on_event=_progress)
    elif record.status in ("paused_after_step", "running", "failed"):
        record = runner.continue_run(args.run_id, plan, on_event=_progress)
    _print(record)
    return 1 if record.status == "failed" else 0


def add_research_commands(
    subparsers: argparse._SubParsersAction, common: argparse.ArgumentParser | None = None
) -> None:
    """Register `ask` and `resume` (handlers set as `handler`, returning an exit code)."""
    parents = [common] if common is not None else []
    ask = subparsers.add_parser("ask", parents=parents, help="research a question over ingested filings")
    ask.add_argument("question")
    ask.add_argument("--filing", action="append", help="filing id (repeatable; default: all filings)")
    ask.add_argument("--auto-approve", action="store_true", help="approve the plan without review")
    ask.add_argument("--max-steps", type=int, default=None)
    ask.add_argument("--run-id", default=None)
    ask.add_argument("--step-mode", action="store_true", help="pause after every step")
    ask.set_defaults(handler=cmd_ask)
    resume = subparsers.add_parser("resume", parents=parents, help="continue a paused or interrupted run")
    resume.add_argument("run_id")
    resume.add_argument("--plan-file", default=None, help="JSON plan (or remaining plan) to use")
    resume.set_defaults(handler=cmd_resume)
    if common is None:
        for p in (ask, resume):
            p.add_argument("--data-dir", type=Path, default=Path("data"))


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry point: python -m core.graph.cli_commands ask|resume ..."""
    parser = argparse.ArgumentParser(prog="python -m core.graph.cli_commands")
    add_research_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
