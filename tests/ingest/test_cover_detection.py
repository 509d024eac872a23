"""Form, company and fiscal period read from every real document in shared/data, against a table written by
reading each one's cover page (or, for an earnings release, its headline and dateline): cover_pages.csv."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.conftest import SHARED_DATA, shared_file
from tests.ingest.conftest import load_real, prefetch_real

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]

TABLE = Path(__file__).with_name("cover_pages.csv")
#: The issue's bar: form, company and period right for at least 98% of the documents.
MIN_RIGHT = 0.98


def _expected() -> list[dict[str, str]]:
    with TABLE.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_the_table_lists_every_document_in_shared_data():
    shared_file("financebench", "pdfs")
    listed = {(row["folder"], row["file"]) for row in _expected()}
    present = {
        (folder, path.name)
        for folder in ("financebench/pdfs", "docugami_sec10q/docs", "filings")
        for path in (SHARED_DATA / folder).iterdir()
        if path.suffix in {".pdf", ".htm", ".html", ".txt"}
    }
    assert present <= listed, sorted(present - listed)


def test_form_company_and_period_read_right():
    rows = _expected()
    shared_file("financebench", "pdfs")
    by_folder: dict[str, list[str]] = {}
    for row in rows:
        by_folder.setdefault(row["folder"], []).append(row["file"])
    for folder, names in by_folder.items():
        prefetch_real(tuple(folder.split("/")), names)
    wrong: list[str] = []
    for row in rows:
        parsed, _ = load_real(*row["folder"].split("/"), row["file"])
        got = {
            "company": parsed.company,
            "form": parsed.form,
            "fiscal_year": str(parsed.fiscal_year or ""),
            "fiscal_quarter": str(parsed.fiscal_quarter or ""),
            "period_end": parsed.period_end or "",
        }
        diff = {key: (row[key], value) for key, value in got.items() if row[key] != value}
        if diff:
            wrong.append(f"{row['file']}: {diff}")
    right = 1 - len(wrong) / len(rows)
    print(f"\nform, company and period right for {len(rows) - len(wrong)}/{len(rows)} = {right:.1%}")
    print("\n".join(wrong))
    assert right >= MIN_RIGHT, wrong
