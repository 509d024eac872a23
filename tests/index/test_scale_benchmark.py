"""benchmarks/scale.py: the synthetic copies it builds, and its small run (the sample filing, 50 filings),
embedded and on a Postgres and a Chroma server it starts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.models import Chunk, Filing
from core.retrieval.routing import company_forms

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import scale  # noqa: E402


def _filing() -> Filing:
    return Filing(
        filing_id="a" * 64,
        filename="mmm.pdf",
        company="3M Company",
        fiscal_year=2018,
        period_end="2018-12-31",
        source_type="pdf",
        pages=100,
        chunks=1,
    )


def test_a_copy_renames_the_company_in_every_form_shifts_years_and_takes_new_ids() -> None:
    source = _filing()
    new_id = scale.synthetic_id(source.filing_id, 7)
    name = scale.synthetic_name(7)
    rewrite = scale.rewriter(source, new_id, name, shift=3)
    chunk = Chunk(
        chunk_id=f"{source.filing_id[:16]}-00004",
        filing_id=source.filing_id,
        company=source.company,
        fiscal_year=2018,
        section="Item 7",
        page=12,
        chunk_index=4,
        char_start=0,
        char_end=80,
        text="3M's sales in 2018 rose; 3M Company expects 2019 capital spending of $1.5 billion (2018: 1,577.0).",
    )
    copied = Chunk.model_validate_json(rewrite(chunk.model_dump_json()))
    filing = Filing.model_validate_json(rewrite(source.model_dump_json()))
    short = company_forms(name)[0]
    assert filing.filing_id == new_id and filing.company == name
    assert filing.fiscal_year == 2015 and filing.period_end == "2015-12-31"
    assert copied.chunk_id == f"{new_id[:16]}-00004" and copied.filing_id == new_id
    assert copied.text == (
        f"{short}'s sales in 2015 rose; {name} expects 2016 capital spending of $1.5 billion (2015: 1,577.0)."
    )
    assert "3M" not in copied.model_dump_json()
    assert len({scale.synthetic_name(n) for n in range(1000)}) == 1000


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["embedded", "servers"])
def test_the_small_scale_run_builds_the_library_searches_it_and_adds_and_deletes_a_filing(
    tmp_path: Path, mode: str
) -> None:
    out = tmp_path / "scale.json"
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "scale.py"),
            "--source",
            "sample",
            "--filings",
            "50",
            "--out",
            str(out),
            *(["--servers"] if mode == "servers" else []),
        ],
        check=True,
        cwd=ROOT,
        timeout=600,
    )
    report = json.loads(out.read_text())
    assert report["mode"].startswith(mode)
    source, large = report["source library"], report["large library"]
    assert source["filings"] == 1 and large["filings"] == 50
    assert large["passages"] == 50 * source["passages"] == report["build"]["passages"]
    for name in (
        "funnel, one filing",
        "funnel, whole library",
        "keyword, whole library",
        "vector, whole library",
    ):
        assert large["latency"][name]["p50_ms"] > 0
    added = report["add and delete"]
    assert added["passages"] == source["passages"] and added["deleted"]
    assert added["add_s"] > 0 and added["embedding_s"] > 0 and added["reused_embeddings"] == 0
    assert report["source library, add and delete"]["reused_embeddings"] == 0
    assert 0 < report["memory"]["rss_gib"] <= report["memory"]["peak_rss_gib"]
    assert set(report["meets"]) == set(scale.TARGETS)
