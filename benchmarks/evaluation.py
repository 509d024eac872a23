"""End-to-end evaluation: naive RAG vs one search of the question vs the deep research loop.

Runs `python -m core.cli eval` on FinanceBench (the 10-K questions whose PDF is present, one filing per
question) and on the sample filing's question set, offline engine, all three systems, and writes the
summary and every answer to benchmarks/results/evaluation-<set>.json.

Usage:
    python benchmarks/evaluation.py                 # both sets (first FinanceBench run ingests 55 PDFs: ~2 h)
    python benchmarks/evaluation.py --set sample    # the sample set only (about a minute)
    python benchmarks/evaluation.py --set figures   # our own sets: figures (50) and narrative (34) questions
                                                    # over the FY2021-FY2024 filings in ../shared
    python benchmarks/evaluation.py --set docugami  # Docugami's 195 questions on 20 10-Qs (one filing, or a
                                                    # company's four quarters, per question)
    python benchmarks/evaluation.py --limit 10      # a quick look

Filings, the naive baseline's index and the evaluation runs are kept under benchmarks/.cache/<set>/ and
reused; an interrupted run continues with --resume <eval id> (printed when it starts).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.cli import main as cli  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
CACHE = ROOT / "benchmarks" / ".cache"


#: Question sets of our own, over filings in ../shared that FinanceBench does not cover (assets/questions/).
OWN_SETS = {
    "figures": ROOT / "assets" / "questions" / "figures.jsonl",
    "narrative": ROOT / "assets" / "questions" / "narrative.jsonl",
}


def ingest_own_sets(data_dir: Path) -> None:
    """Ingest the filings of both our sets into their shared workspace. BM25 weighs a term by how many
    passages of the whole library hold it, so a set run before the other's filings were ingested ranks
    differently from one run after: with both sets' filings in first, neither set's results depend on order."""
    from core.config import load_settings
    from core.service import Workbench

    bench = Workbench(load_settings(data_dir=data_dir))
    evaluator = bench.evaluator()
    for path in OWN_SETS.values():
        evaluator.ensure_filings(bench.question_set(str(path)), lambda progress: print(progress.message))


def run(set_name: str, limit: int | None, resume: str | None) -> int:
    if set_name in OWN_SETS:
        ingest_own_sets(CACHE / "figures")
    args = [
        "eval",
        "--set",
        str(OWN_SETS.get(set_name, set_name)),
        "--systems",
        "naive,one-search,deep",
        "--data-dir",
        # Our two sets read the same filings: one workspace for both.
        str(CACHE / ("figures" if set_name in OWN_SETS else set_name)),
        "--json",
        str(RESULTS / f"evaluation-{set_name}{f'-{limit}' if limit else ''}.json"),
    ]
    if limit:
        args += ["--limit", str(limit)]
    if resume:
        args += ["--resume", resume]
    return cli(args)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--set",
        choices=["financebench", "sample", "figures", "narrative", "docugami", "both", "all"],
        default="both",
    )
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--resume", default=None, help="evaluation id to continue (one set only)")
    args = parser.parse_args()
    sets = {
        "both": ["sample", "financebench"],
        "all": ["sample", "financebench", "figures", "narrative", "docugami"],
    }.get(args.set, [args.set])
    return max(run(s, args.limit, args.resume) for s in sets)


if __name__ == "__main__":
    sys.exit(main())
