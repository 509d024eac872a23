"""Facts read from tables, checked against the filing's own inline XBRL.

For each HTML 10-K: the filing is read as ingestion reads it (parse, Items, passages with their context, then
the facts stage: every labelled table row, joined with the tagged figures of the same printed rows), without
embedding or indexing. Every tagged figure printed in a table row is then looked up in the facts: is its row
read as a fact and joined (by label and numbers, core.ingest.xbrl_join), and does the fact's value in that
column agree with it on the value (printed number x the table's unit, as magnitudes: a figure in brackets may
be tagged positive), the period (the column's fiscal year from the table header against the tagged context's
end) and the unit (per share, percentage, count or amount, and the scale)? A period that disagrees is counted
as wrong when the reader read one, as unknown when it left the column without one (never used for an answer
about a period).

Usage: python benchmarks/facts.py [FILE ...] [--show N]   (default: the four NVIDIA and Apple 10-Ks)
Prints a Markdown table (and the first N disagreements with their rows) and writes
benchmarks/results/facts.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.config import Settings  # noqa: E402
from core.index.embeddings import get_embedder  # noqa: E402
from core.ingest.chunker import chunk_sections  # noqa: E402
from core.ingest.context import add_context  # noqa: E402
from core.ingest.parse import parse_filing  # noqa: E402
from core.ingest.pipeline import filing_id_for  # noqa: E402
from core.ingest.sections import split_sections  # noqa: E402
from core.ingest.validate import check_upload  # noqa: E402
from core.ingest.xbrl import TaggedFact, read_inline_xbrl  # noqa: E402
from core.ingest.xbrl_join import (  # noqa: E402
    context_years,
    filing_facts,
    filing_order,
    match_rows,
    printed_units,
    tagged_rows,
)
from core.models import Fact, FactValue  # noqa: E402

SHARED = ROOT.parent / "shared" / "data" / "filings"
DEFAULT_FILES = [
    SHARED / "NVDA_10K_FY2023.htm",
    SHARED / "NVDA_10K_FY2024.htm",
    SHARED / "AAPL_10K_FY2023.htm",
    SHARED / "AAPL_10K_FY2024.htm",
]
RESULTS = ROOT / "benchmarks" / "results"


def unit_agrees(fact: Fact, value: FactValue, tagged: TaggedFact) -> bool:
    """The fact's unit is the tag's: per share for USD/shares (the row's or its column's), a percentage for a
    scaled pure number, and for amounts and counts the column's unit (else the table's) equal to the tag's
    scale."""
    unit = tagged.unit or ""
    per_share = fact.per_share_of(value)
    if "/" in unit:
        return per_share and not value.percent
    if unit == "pure" and tagged.scale == -2:
        return value.percent
    if value.percent or per_share:
        return False
    return (fact.scale_of(value) or 1.0) == 10.0**tagged.scale


def value_agrees(fact: Fact, value: FactValue, tagged: TaggedFact) -> bool:
    printed = printed_units(fact, value)
    if tagged.value is None:
        return printed is None
    if printed is None:
        return tagged.value == 0  # a dash printed for a tagged zero
    return abs(abs(printed) - abs(tagged.value)) <= 1e-6 * max(abs(printed), abs(tagged.value), 1e-9)


def read_filing(path: Path, count_tokens, settings: Settings) -> tuple[list, list[Fact], dict[str, float]]:
    """Passages and facts as ingestion makes them, with seconds for the facts stage and the whole read."""
    data = path.read_bytes()
    t0 = time.perf_counter()
    source_type = check_upload(data, path.name, 1 << 40)
    parsed = parse_filing(data, source_type)
    sections = split_sections(parsed)
    filing_id = filing_id_for(data)
    chunks = chunk_sections(
        parsed,
        sections,
        filing_id=filing_id,
        count_tokens=count_tokens,
        max_tokens=settings.chunk_tokens,
        overlap_tokens=settings.chunk_overlap_tokens,
    )
    chunks = add_context(parsed, chunks)
    t1 = time.perf_counter()
    facts = filing_facts(filing_id, chunks, data, source_type)
    t2 = time.perf_counter()
    return chunks, facts, {"facts_s": t2 - t1, "read_s": t2 - t0}


def measure(path: Path, count_tokens, settings: Settings, show: int) -> dict:
    chunks, facts, seconds = read_filing(path, count_tokens, settings)
    tagged = read_inline_xbrl(path.read_bytes())
    rows = tagged_rows(tagged)
    in_rows = sum(len(r.facts) for r in rows)
    order = filing_order(facts, chunks)
    # The same join the facts stage ran, kept here to see which tagged figure each value was joined to.
    matches = match_rows([facts[i] for i in order], rows)
    joined = agree_value = agree_period = agree_unit = agree_all = period_wrong = period_gap = 0
    disagreements: list[dict] = []
    for position, (r, columns) in matches.items():
        fact = facts[order[position]]
        for k, v in columns.items():
            tag = rows[r].facts[k]
            value = fact.values[v]
            joined += 1
            checks = (value_agrees(fact, value, tag), value.fiscal_year in context_years(fact, tag, value),
                      unit_agrees(fact, value, tag))  # fmt: skip
            agree_value += checks[0]
            agree_period += checks[1]
            agree_unit += checks[2]
            agree_all += all(checks)
            if not checks[1]:
                # A period read and contradicted by the tag is wrong; one left unknown is a gap.
                period_wrong += value.fiscal_year is not None
                period_gap += value.fiscal_year is None
            if not all(checks):
                disagreements.append(
                    {
                        "row": fact.text[:160],
                        "printed": value.raw,
                        "fiscal_year": value.fiscal_year,
                        "scale": fact.scale_of(value),
                        "per_share": fact.per_share,
                        "percent": value.percent,
                        "tagged": tag.value,
                        "tag_scale": tag.scale,
                        "unit": tag.unit,
                        "period_end": tag.period.end.isoformat(),
                        "concept": tag.concept,
                        "failed": [
                            n for n, ok in zip(("value", "period", "unit"), checks, strict=True) if not ok
                        ],
                    }
                )
    unjoined_rows = [rows[r] for r in set(range(len(rows))) - {r for r, _ in matches.values()}]
    if show:
        print(f"\n{path.name}: first {show} disagreements")
        for d in disagreements[:show]:
            print(f"- {d['failed']} printed {d['printed']} FY{d['fiscal_year']} scale {d['scale']} | tagged "
                  f"{d['tagged']} {d['unit']} (scale {d['tag_scale']}) ending {d['period_end']} | {d['row']}")  # fmt: skip
        print(f"{path.name}: first {show} tagged rows not joined")
        for row in unjoined_rows[:show]:
            print(f"- table {row.table_index} row {row.row_index} {row.label!r}: "
                  + ", ".join(f.printed for f in row.facts))  # fmt: skip
    share = lambda n: round(n / joined, 4) if joined else None  # noqa: E731
    return {
        "file": path.name,
        "tagged_in_rows": in_rows,
        "tagged_rows": len(rows),
        "joined": joined,
        "joined_share": round(joined / in_rows, 4) if in_rows else None,
        "agree_value": share(agree_value),
        "agree_period": share(agree_period),
        "agree_unit": share(agree_unit),
        "agree_all": share(agree_all),
        "period_wrong": period_wrong,
        "period_gap": period_gap,
        "agree_all_of_tagged": round(agree_all / in_rows, 4) if in_rows else None,
        "facts": len(facts),
        "facts_with_concept": sum(1 for f in facts if f.concept),
        "facts_with_mismatch": sum(1 for f in facts if f.mismatch),
        "facts_s": round(seconds["facts_s"], 3),
        "read_s": round(seconds["read_s"], 2),
        "disagreements": disagreements,
        "unjoined_rows": [
            {"label": r.label, "printed": [f.printed for f in r.facts], "table": r.table_index}
            for r in unjoined_rows
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--show", type=int, default=0, help="print the first N disagreements of each filing")
    args = parser.parse_args()
    files = [f for f in (args.files or DEFAULT_FILES) if f.exists()]
    if not files:
        sys.exit("No filings found (the four 10-Ks live in shared/data/filings/).")
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp))
        embedder = get_embedder(settings.embedding_model)
        embedder.count_tokens("warm up")  # the tokenizer load is not reading time
        results = [measure(path, embedder.count_tokens, settings, args.show) for path in files]
    print(
        "\n| filing | tagged figures in table rows | joined to a fact | value agrees | period agrees "
        "| unit agrees | all three | period wrong | period unknown | facts | facts with a concept | facts stage s | whole read s |"
    )
    print("|---|" + "---:|" * 12)
    for r in results:
        print(
            f"| {r['file']} | {r['tagged_in_rows']:,} | {r['joined']:,} ({r['joined_share']:.1%}) "
            f"| {r['agree_value']:.1%} | {r['agree_period']:.1%} | {r['agree_unit']:.1%} "
            f"| **{r['agree_all']:.1%}** | {r['period_wrong']:,} | {r['period_gap']:,} | {r['facts']:,} | {r['facts_with_concept']:,} | {r['facts_s']:.2f} "
            f"| {r['read_s']:.1f} |"
        )
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "facts.json"
    out.write_text(
        json.dumps(
            {"machine": platform.platform(), "python": platform.python_version(), "filings": results},
            indent=2,
        )
    )
    print(f"\nwrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
