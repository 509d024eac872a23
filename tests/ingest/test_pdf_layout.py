"""PDF pages laid out from PDFium's character boxes: a statement written into a real PDF comes back as rows
with one cell per period (leader dots between label and values dropped), and prose pages stay plain text."""

from __future__ import annotations

import pytest
from fpdf import FPDF

from core.ingest.loaders.pdf import extract_pdf_pages, load_pdf

ROWS = [
    ("Net sales", "12,345", "11,001"),
    ("Cost of sales", "(7,210)", "(6,532)"),
    ("Gross margin", "5,135", "4,469"),
    ("Research and development", "1,020", "988"),
    ("Selling, general and administrative", "2,004", "1,876"),
    ("Operating income", "2,111", "1,605"),
]


def _statement_pdf(leaders: bool = False) -> bytes:
    """One page of prose, then one page holding a small income statement with right-aligned values (its
    labels followed by leader dots when `leaders`)."""
    pdf = FPDF(unit="pt", format="letter")
    pdf.set_font("helvetica", size=10)
    pdf.add_page()
    for _ in range(12):
        pdf.multi_cell(
            0,
            14,
            "Our revenue grew in 2024 as demand for our products rose across every region.",
            new_x="LMARGIN",
            new_y="NEXT",
        )
    pdf.add_page()
    pdf.cell(0, 14, "Example Corp Consolidated Statements of Operations", new_x="LMARGIN", new_y="NEXT")
    pdf.cell(0, 14, "(In millions)", new_x="LMARGIN", new_y="NEXT")
    pdf.cell(300, 14, "")
    pdf.cell(80, 14, "2024", align="R")
    pdf.cell(80, 14, "2023", align="R", new_x="LMARGIN", new_y="NEXT")
    for label, this_year, last_year in ROWS:
        pdf.cell(300, 14, f"{label} {'.' * (70 - len(label))}" if leaders else label)
        pdf.cell(80, 14, this_year, align="R")
        pdf.cell(80, 14, last_year, align="R", new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


@pytest.mark.parametrize("leaders", [False, True])
def test_a_statement_page_is_laid_out_and_read_as_rows(leaders: bool) -> None:
    data = _statement_pdf(leaders)
    pages = extract_pdf_pages(data)
    assert pages.layouts[0] is None  # prose: plain text only
    assert pages.layouts[1] is not None
    blocks, count, warnings = load_pdf(data)
    assert count == 2 and not warnings
    (table,) = [b for b in blocks if b.kind == "table"]
    assert table.page == 2
    lines = table.text.splitlines()
    assert "Consolidated Statements of Operations" in lines[0]
    assert lines[1].endswith("| 2024 | 2023 |")
    for label, this_year, last_year in ROWS:
        assert f"| {label} | {this_year} | {last_year} |" in lines
