"""Headless command line: python -m core.cli COMMAND ... --data-dir DIR.

Every command goes through the service (core.service.Workbench). Results are JSON on stdout (the `eval`
table is Markdown); progress lines go to stderr, and `--quiet` silences them.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from core.config import load_settings
from core.models import (
    STRATEGY_CHOICES,
    TABLE_KIND_NAMES,
    Chunk,
    IngestProgress,
    IngestResult,
    Plan,
    RunEvent,
    RunRecord,
)
from core.report.answer_markup import answer_plain_text
from core.service import FilingNotFound, ServiceUnavailable, Workbench


def _workbench(args: argparse.Namespace) -> Workbench:
    return Workbench(load_settings(data_dir=args.data_dir))


def _print_json(obj: object, indent: int | None = None) -> None:
    print(json.dumps(obj, ensure_ascii=False, default=str, indent=indent))


def _say(args: argparse.Namespace, line: str) -> None:
    """One progress line on stderr (stdout stays JSON), unless --quiet."""
    if not args.quiet:
        print(line[:300], file=sys.stderr, flush=True)


#: Embedding progress is reported at these fractions of a filing's passages.
_EMBED_MARKS = (0.25, 0.5, 0.75)


def _ingest_progress(args: argparse.Namespace) -> Callable[[IngestProgress], None]:
    """Progress lines for ingestion: each stage as it begins, embedding at every quarter."""
    seen: set[tuple[str, str, float]] = set()

    def show(p: IngestProgress) -> None:
        if p.stage == "error":
            return  # the command prints the reason itself
        mark = max((m for m in _EMBED_MARKS if p.stage == "embed" and p.fraction >= m), default=0.0)
        key = (p.filename, p.stage, mark)
        if key not in seen:
            seen.add(key)
            _say(args, f"[{p.stage}] {p.filename}" + (f": {p.message}" if p.message else ""))

    return show


def cmd_ingest(args: argparse.Namespace) -> int:
    """Ingest files; one JSON object per filing; non-zero exit if any file was rejected."""
    bench = _workbench(args)
    show = _ingest_progress(args)
    return _print_results(
        (str(path), lambda p=path: bench.ingest_paths([Path(p)], show)[0]) for path in args.paths
    )


def _print_results(jobs: Iterable[tuple[str, Callable[[], IngestResult]]]) -> int:
    """Run (name, job) pairs one after another: each success as one JSON line on stdout, each failure as
    "name: reason" on stderr; exit code 1 if any failed."""
    failed = False
    for name, job in jobs:
        result: IngestResult = job()
        if not result.ok:
            failed = True
            print(f"{name}: {result.error}", file=sys.stderr)
            continue
        _print_json(_ingest_record(result))
    return 1 if failed else 0


def _ingest_record(result: IngestResult) -> dict:
    f = result.filing
    assert f is not None
    return {
        "filing_id": f.filing_id,
        "company": f.company,
        "form": f.form,
        "fiscal_year": f.fiscal_year,
        "fiscal_quarter": f.fiscal_quarter,
        "period": f.period,
        "period_end": f.period_end,
        "event_items": f.event_items,
        "pages": f.pages,
        "chunks": f.chunks,
        "sections": f.sections,
        "seconds": f.seconds,
        "duplicate": result.duplicate,
        "reused_embeddings": result.reused_embeddings,
    }


def cmd_reindex(args: argparse.Namespace) -> int:
    """Re-index filings from their stored originals (default: those indexed by an older version)."""
    bench = _workbench(args)
    ids = args.filing or [f.filing_id for f in (bench.filings() if args.all else bench.outdated_filings())]
    show = _ingest_progress(args)
    return _print_results((filing_id, lambda f=filing_id: bench.reindex([f], show)[0]) for filing_id in ids)


def chunk_record(chunk: Chunk) -> dict:
    """The public JSON shape of a chunk."""
    return {
        "chunk_id": chunk.chunk_id,
        "filing_id": chunk.filing_id,
        "section": chunk.section,
        "section_title": chunk.section_title,
        "page": chunk.page,
        "text": chunk.text,
    }


def cmd_chunks(args: argparse.Namespace) -> int:
    """Print chunks as JSON Lines."""
    for chunk in _workbench(args).chunks(args.filing):
        print(json.dumps(chunk_record(chunk), ensure_ascii=False))
    return 0


def cmd_filings(args: argparse.Namespace) -> int:
    """Print the ingested filings as one JSON list."""
    _print_json([f.model_dump(mode="json") for f in _workbench(args).filings()])
    return 0


def cmd_facts(args: argparse.Namespace) -> int:
    """Print a filing's tables built from its facts (periods as columns, rows in printed order) as one JSON
    object; --statement keeps one kind of table, --query the rows it finds."""
    try:
        view = _workbench(args).statements(args.filing, statement=args.statement, query=args.query)
    except FilingNotFound as exc:
        print(str(exc), file=sys.stderr)
        return 1
    _print_json(view.model_dump(mode="json"))
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    """Delete a filing from every index."""
    if _workbench(args).delete_filing(args.filing_id):
        _print_json({"deleted": args.filing_id})
        return 0
    print(f"No filing with id {args.filing_id}", file=sys.stderr)
    return 1


def cmd_retrieve(args: argparse.Namespace) -> int:
    """One pass of the retrieval funnel, printed as JSON."""
    result = _workbench(args).retrieve(
        args.query,
        strategy=args.strategy,
        section=args.section,
        filing_ids=args.filing,
        k=args.k,
        top_n=args.top_n,
        route=False if args.no_route else None,
    )
    _print_json(
        {
            "query": result.query,
            "strategy": result.strategy,
            "justification": result.justification,
            "section_filter": result.section_filter,
            "filing_filter": result.filing_filter,
            "route_note": result.route_note,
            "widened": result.widened,
            "widen_note": result.widen_note,
            "reranker": result.reranker,
            "seconds": round(result.seconds, 4),
            "chunks": [
                {
                    **chunk_record(s.chunk),
                    "score": s.score,
                    "scores": s.scores.model_dump(exclude_none=True),
                    "widened": s.widened,
                }
                for s in result.chunks
            ],
        }
    )
    return 0


def _result_record(result: Any) -> dict:
    """The compact JSON of one evaluated answer."""
    from core.evaluation.metrics import headline

    out = result.output
    return {
        "qid": result.qid,
        "qtype": result.qtype,
        "system": result.system,
        "question": result.question,
        "reference": result.reference,
        "answer_first": answer_plain_text(headline(out.answer))[:2000],  # as `record_json`: no Markdown
        "evidence_pages": sorted({c.page for c in out.contexts if c.page is not None}),
        "citations": len(out.citations),
        "steps": out.steps,
        "seconds": out.seconds,
        "run_id": out.run_id,
        "error": out.error,
        "metrics": [m.model_dump() for m in result.metrics],
    }


def cmd_eval(args: argparse.Namespace) -> int:
    """Evaluate naive / one-search / deep on a question set; Markdown table on stdout, JSON to a file."""
    from core.evaluation.harness import EvalProgress, markdown_tables, summarise
    from core.evaluation.questions import NAMED_SETS, EvalSetError
    from core.models import EVAL_SYSTEMS, EvalConfig

    bench = _workbench(args)

    def progress(p: EvalProgress) -> None:
        _say(args, f"[{p.done}/{p.total}] {p.message}")

    try:
        if args.resume:
            run = bench.resume_evaluation(args.resume, progress)
        else:
            systems = [s.strip() for s in args.systems.split(",") if s.strip()]
            unknown = [s for s in systems if s not in EVAL_SYSTEMS]
            if unknown or not systems:
                print(
                    f"Unknown system(s) {', '.join(unknown)}; choose from {', '.join(EVAL_SYSTEMS)}.",
                    file=sys.stderr,
                )
                return 2
            qset = bench.question_set(args.set).filtered(
                limit=args.limit, qtype=args.type, filing=args.filing
            )
            config = EvalConfig(
                eval_id=args.eval_id or "",
                set_name=qset.name,
                set_path=args.set if args.set not in NAMED_SETS else None,
                systems=systems,  # type: ignore[arg-type]
                limit=args.limit,
                qtype=args.type,
                filing=args.filing,
                judge=args.judge,
                engine=bench.settings.llm_provider,
                naive_k=args.naive_k,
            )
            run = bench.run_evaluation(qset, config, progress)
    except EvalSetError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    summary = summarise(run)
    print(markdown_tables(summary))
    if args.json:
        # Per answer: its metrics, the answer stated first and where its evidence was; the full answers and
        # passages stay in the workspace's run store (evaluations/<id>/results.jsonl).
        payload = {"summary": summary, "results": [_result_record(r) for r in run.results]}
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(
            json.dumps(payload, indent=1, ensure_ascii=False, default=str), encoding="utf-8"
        )
    return 0


# --- Research runs ----------------------------------------------------------------------------


def record_json(record: RunRecord) -> dict[str, Any]:
    """The public JSON shape of a run: the record without candidate pools, with its citations."""
    data = record.model_dump(mode="json")
    for step in data["steps"]:
        step.pop("pool", None)
    # Plain text for scripts and people ("$1,003 million", not "\\$1,003 million"); the Markdown the pages
    # render, escapes and all, beside it.
    data["answer_markdown"] = record.answer
    data["answer"] = answer_plain_text(record.answer) if record.answer else record.answer
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


def _print_run(record: RunRecord) -> int:
    """The run as JSON on stdout; exit code 1 when it failed."""
    _print_json(record_json(record), indent=2)
    return 1 if record.status == "failed" else 0


def _run_progress(args: argparse.Namespace) -> Callable[[RunEvent], None]:
    def show(event: RunEvent) -> None:
        if event.kind == "model_writing":
            return  # a half-written answer, many times a second: not a progress line
        step = f" step {event.step_index + 1}" if event.step_index is not None else ""
        node = f" {event.node}" if event.node else ""
        message = f": {event.message}" if event.message else ""
        _say(args, f"[{event.kind}]{node}{step}{message}")

    return show


def _load_plan(path: str) -> Plan:
    """A plan from a JSON file: a plan, a run record (its plan) or a paused run (its remaining plan)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if isinstance(data, dict) and "plan" in data and "steps" not in data:
        data = data["plan"]
    if isinstance(data, dict) and "remaining_plan" in data and "steps" not in data:
        data = data["remaining_plan"]
    return Plan.model_validate(data)


def cmd_ask(args: argparse.Namespace) -> int:
    """Start a run; with --auto-approve, approve the plan and run to the end (or the first step pause)."""
    bench = _workbench(args)
    filing_ids = list(args.filing or []) or [f.filing_id for f in bench.filings()]
    if not filing_ids:
        print("No filings are ingested; run `ingest` first or pass --filing.", file=sys.stderr)
        return 2
    on_event = _run_progress(args)
    record = bench.start_research(
        args.question,
        filing_ids,
        step_mode=args.step_mode,
        max_steps=args.max_steps,
        run_id=args.run_id,
        on_event=on_event,
    )
    if args.auto_approve and record.status == "awaiting_plan_review":
        record = bench.approve_plan(record.run_id, on_event=on_event)
    return _print_run(record)


def cmd_resume(args: argparse.Namespace) -> int:
    """Continue a run: approve its plan (optionally edited), continue after a pause, or after a crash."""
    bench = _workbench(args)
    record = bench.get_run(args.run_id)
    plan = _load_plan(args.plan_file) if args.plan_file else None
    on_event = _run_progress(args)
    if record.status == "awaiting_plan_review":
        record = bench.approve_plan(args.run_id, plan, on_event=on_event)
    elif record.status in ("paused_after_step", "running", "failed", "cancelled"):
        record = bench.continue_run(args.run_id, plan, on_event=on_event)
    return _print_run(record)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand; each takes --data-dir."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", type=Path, default=Path("data"), help="data directory (default ./data)")
    common.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser = argparse.ArgumentParser(prog="python -m core.cli", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    def add(
        name: str, handler: Callable[[argparse.Namespace], int], help_text: str
    ) -> argparse.ArgumentParser:
        p = sub.add_parser(name, parents=[common], help=help_text)
        p.set_defaults(handler=handler)
        return p

    add("ingest", cmd_ingest, "ingest filings (PDF, HTML, TXT)").add_argument("paths", nargs="+")
    add("chunks", cmd_chunks, "print chunks as JSON Lines").add_argument("--filing", default=None)
    add("filings", cmd_filings, "list ingested filings")
    facts = add("facts", cmd_facts, "print a filing's statements, built from its table rows, as JSON")
    facts.add_argument("--filing", required=True, help="filing id")
    facts.add_argument("--statement", choices=list(TABLE_KIND_NAMES), default=None, help="one kind of table")
    facts.add_argument("--query", default=None, help="rows whose label has these words (else: by meaning)")
    add("delete", cmd_delete, "delete a filing").add_argument("filing_id")
    reindex = add("reindex", cmd_reindex, "index filings again from their stored originals")
    reindex.add_argument("--filing", action="append", default=None, help="filing id (repeatable)")
    reindex.add_argument("--all", action="store_true", help="every filing, not only the outdated ones")
    retrieve = add("retrieve", cmd_retrieve, "search the ingested filings")
    retrieve.add_argument("query")
    retrieve.add_argument("--strategy", choices=STRATEGY_CHOICES, default="auto")
    retrieve.add_argument("--section", default=None, help='a 10-K Item, e.g. "Item 7"')
    retrieve.add_argument("--filing", action="append", default=None, help="filing id (repeatable)")
    retrieve.add_argument("--k", type=int, default=None, help="candidates retrieved (default from settings)")
    retrieve.add_argument("--top-n", type=int, default=None, help="evidence kept after reranking")
    retrieve.add_argument(
        "--no-route", action="store_true", help="search every filing even when the query names some"
    )
    evaluate = add("eval", cmd_eval, "evaluate naive, one-search and deep research on a question set")
    evaluate.add_argument(
        "--set", default="sample", help="sample, financebench, docugami, or a CSV/JSONL file"
    )
    evaluate.add_argument("--limit", type=int, default=None, help="first N questions (after filters)")
    evaluate.add_argument("--type", default=None, help="only this question type")
    evaluate.add_argument("--filing", default=None, help="only questions about this filing (file name)")
    evaluate.add_argument("--systems", default="naive,one-search,deep", help="comma-separated")
    evaluate.add_argument("--judge", choices=["reference", "llm"], default="reference")
    evaluate.add_argument("--naive-k", type=int, default=5, help="passages the naive baseline retrieves")
    evaluate.add_argument("--resume", default=None, help="continue a stored evaluation by its id")
    evaluate.add_argument("--eval-id", default=None, help="id for a new evaluation (default: random)")
    evaluate.add_argument("--json", default=None, help="also write the summary and every result to this file")
    ask = add("ask", cmd_ask, "research a question over ingested filings")
    ask.add_argument("question")
    ask.add_argument("--filing", action="append", help="filing id (repeatable; default: all filings)")
    ask.add_argument("--auto-approve", action="store_true", help="approve the plan without review")
    ask.add_argument("--max-steps", type=int, default=None)
    ask.add_argument("--run-id", default=None)
    ask.add_argument("--step-mode", action="store_true", help="pause after every step")
    resume = add("resume", cmd_resume, "continue a paused, cancelled or interrupted run")
    resume.add_argument("run_id")
    resume.add_argument("--plan-file", default=None, help="JSON plan (or remaining plan) to use")
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args))
    except (ServiceUnavailable, FilingNotFound) as exc:
        print(str(exc), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
