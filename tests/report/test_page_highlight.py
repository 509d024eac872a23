"""A cited quote highlighted on its rendered PDF page: prose and table rows are found (also when the PDF
writes a table column by column), a quote that is not on the page marks nothing and says so."""

from __future__ import annotations

import io

import pytest
from fpdf import FPDF
from PIL import Image

from core.ingest.loaders.pdf import load_pdf
from core.report.page_highlight import highlight_quote

PROSE = [
    "Our revenue grew in 2024 as demand for our products rose across every region we serve.",
    "Gross margin widened because component costs fell and factory utilisation improved.",
    "Operating expenses rose with the hiring of engineers for the new battery platform.",
]
ROWS = [
    ("Net sales", "12,345", "11,001"),
    ("Cost of sales", "(7,210)", "(6,532)"),
    ("Gross margin", "5,135", "4,469"),
]
ROWS += [("Research and development", "1,020", "988"), ("Operating income", "2,111", "1,605")]


def _filing_pdf() -> bytes:
    """Page 1: three paragraphs far apart. Page 2: a statement whose cells are written column by column,
    so the PDF's own text order differs from the order a reader sees."""
    pdf = FPDF(unit="pt", format="letter")
    pdf.set_font("helvetica", size=10)
    pdf.add_page()
    for index, sentence in enumerate(PROSE):
        pdf.set_xy(72, 72 + index * 250)
        pdf.multi_cell(400, 14, sentence)
    pdf.add_page()
    pdf.set_xy(72, 72)
    pdf.cell(0, 14, "Example Corp Consolidated Statements of Operations (in millions)")
    for column, (x, width, align) in enumerate([(72, 250, "L"), (322, 80, "R"), (402, 80, "R")]):
        pdf.set_xy(x, 100)
        pdf.cell(width, 14, ("", "2024", "2023")[column], align=align)
        for row, values in enumerate(ROWS):
            pdf.set_xy(x, 114 + row * 14)
            pdf.cell(width, 14, values[column], align=align)
    return bytes(pdf.output())


@pytest.fixture(scope="module")
def filing() -> tuple[bytes, dict[int, str]]:
    """The PDF and the text the loader reads from each page (what passages, and so quotes, are cut from)."""
    data = _filing_pdf()
    blocks, _, _ = load_pdf(data)
    pages: dict[int, str] = {}
    for block in blocks:
        pages[block.page] = pages.get(block.page, "") + block.text + "\n"
    return data, pages


def _highlighted_rows(png: bytes) -> list[int]:
    """Pixel rows of the image that hold highlight colour (yellow: strong red and green, little blue)."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    width, height = image.size
    pixels = image.load()
    return [
        y
        for y in range(0, height, 2)
        if any((p := pixels[x, y])[0] > 200 and p[1] > 170 and p[2] < 140 for x in range(0, width, 4))
    ]


def test_a_sentence_is_highlighted_where_it_is_printed(filing) -> None:
    data, pages = filing
    assert PROSE[2] in " ".join(pages[1].split())
    result = highlight_quote(data, 1, PROSE[2])
    assert (result.page, result.pages, result.coverage) == (1, 2, 1.0)
    assert result.boxes >= 1
    rows = _highlighted_rows(result.png)
    height = Image.open(io.BytesIO(result.png)).size[1]
    # The third paragraph is printed about 570 pt down a 792 pt page: the highlight is there, not at the top.
    assert rows and min(rows) > 0.6 * height and max(rows) < 0.85 * height
    # The close-up is the page's width around the highlight, and it shows the highlight.
    focus = Image.open(io.BytesIO(result.focus_png))
    assert focus.size[0] == Image.open(io.BytesIO(result.png)).size[0] and focus.size[1] < height / 2
    assert _highlighted_rows(result.focus_png)


def test_a_table_row_is_found_in_reading_order(filing) -> None:
    data, pages = filing
    row = next(line for line in pages[2].splitlines() if "Gross margin" in line)
    assert "5,135" in row and "4,469" in row
    result = highlight_quote(data, 2, row)
    assert result.coverage == 1.0 and result.boxes == 1


def test_a_quote_partly_on_the_page_reports_how_much_was_found(filing) -> None:
    data, _ = filing
    quote = PROSE[0] + " Dividends were suspended for the whole of the year under review."
    result = highlight_quote(data, 1, quote)
    assert 0.4 < result.coverage < 0.8 and result.boxes >= 1


def test_a_quote_not_on_the_page_marks_nothing(filing) -> None:
    data, _ = filing
    result = highlight_quote(data, 2, PROSE[1])
    assert (result.coverage, result.boxes) == (0.0, 0)
    assert Image.open(io.BytesIO(result.png)).format == "PNG"
    assert _highlighted_rows(result.png) == []
    assert result.focus_png is None


def test_a_page_that_does_not_exist_is_a_clear_error(filing) -> None:
    data, _ = filing
    with pytest.raises(ValueError, match="has 2 pages; page 3"):
        highlight_quote(data, 3, "anything")


def test_a_rotated_page_is_shown_unmarked_and_says_why(filing) -> None:
    from pypdf import PdfReader, PdfWriter

    data, _ = filing
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.pages[0].rotate(90)
    out = io.BytesIO()
    writer.write(out)
    result = highlight_quote(out.getvalue(), 1, PROSE[2])
    assert result.rotated and (result.coverage, result.boxes, result.focus_png) == (0.0, 0, None)
