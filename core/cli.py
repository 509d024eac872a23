"""Headless command line: python -m core.cli COMMAND ... --data-dir DIR."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable
from pathlib import Path

from core.config import Settings
from core.graph.cli_commands import add_research_commands
from core.models import Chunk
from core.service import Workbench


def _workbench(args: argparse.Namespace) -> Workbench:
    return Workbench(Settings(data_dir=args.data_dir))


def _print_json(obj: object) -> None:
    print(json.dumps(obj, ensure_ascii=False, default=str))


def cmd_ingest(args: argparse.Namespace) -> int:
    """Ingest files; one JSON object per filing; non-zero exit if any file was rejected."""
    bench = _workbench(args)
    failed = False
    for path in args.paths:
        result = bench.ingest_paths([Path(path)])[0]
        if not result.ok:
            failed = True
            print(f"{path}: {result.error}", file=sys.stderr)
            continue
        f = result.filing
        _print_json(
            {
                "filing_id": f.filing_id,
                "company": f.company,
                "form": f.form,
                "fiscal_year": f.fiscal_year,
                "pages": f.pages,
                "chunks": f.chunks,
                "sections": f.sections,
                "seconds": f.seconds,
                "duplicate": result.duplicate,
            }
        )
    return 1 if failed else 0


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
    )
    _print_json(
        {
            "query": result.query,
            "strategy": result.strategy,
            "justification": result.justification,
            "section_filter": result.section_filter,
            "filing_filter": result.filing_filter,
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


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand; each takes --data-dir."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", type=Path, default=Path("data"), help="data directory (default ./data)")
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
    add("delete", cmd_delete, "delete a filing").add_argument("filing_id")
    retrieve = add("retrieve", cmd_retrieve, "search the ingested filings")
    retrieve.add_argument("query")
    retrieve.add_argument("--strategy", choices=["auto", "vector", "keyword", "hybrid"], default="auto")
    retrieve.add_argument("--section", default=None, help='a 10-K Item, e.g. "Item 7"')
    retrieve.add_argument("--filing", action="append", default=None, help="filing id (repeatable)")
    retrieve.add_argument("--k", type=int, default=None, help="candidates retrieved (default from settings)")
    retrieve.add_argument("--top-n", type=int, default=None, help="evidence kept after reranking")
    add_research_commands(sub, common)
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    args = build_parser().parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
