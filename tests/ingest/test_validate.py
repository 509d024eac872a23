"""check_upload and parse_filing reject bad uploads with one-line reasons a person understands."""

from __future__ import annotations

import io
import zipfile

import pytest

from core.ingest.errors import IngestError
from core.ingest.parse import parse_filing
from core.ingest.validate import check_upload

MB = 1024 * 1024
FILING_TEXT = (
    "UNITED STATES SECURITIES AND EXCHANGE COMMISSION\nFORM 10-K\n"
    "For the fiscal year ended December 31, 2024\n\nContoso Widgets, Inc.\n"
    "(Exact name of registrant as specified in its charter)\n\f"
    "Item 1. Business\n\nWe make “widgets” — lots of them — and we sell them worldwide.\n\n"
    "Item 1A. Risk Factors\n\nOur business depends on steel prices, which can rise without warning.\n"
)


def _blank_pdf(pages: int = 1, password: str | None = None) -> bytes:
    from pypdf import PdfWriter

    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=612, height=792)
    if password:
        writer.encrypt(user_password=password, owner_password=password, algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def text_pdf(pages: list[str]) -> bytes:
    """A real PDF with a text layer, one string per page."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("helvetica", size=10)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 5, text)
    return bytes(pdf.output())


def _error(data: bytes, name: str, max_bytes: int = 50 * MB) -> IngestError:
    with pytest.raises(IngestError) as info:
        source = check_upload(data, name, max_bytes)
        parse_filing(data, source)
    message = str(info.value)
    assert "\n" not in message and 10 < len(message) < 200
    return info.value


def test_empty_file():
    assert "empty" in str(_error(b"", "a.pdf")).lower()
    assert "empty" in str(_error(b"  \n ", "a.txt")).lower()


def test_over_the_size_limit_names_the_limit_in_mb():
    error = _error(b"x" * (2 * MB + 10), "big.txt", max_bytes=2 * MB)
    assert "2 MB" in str(error) and error.stage == "validate"


def test_image_renamed_to_pdf():
    png = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(100)
    message = str(_error(png, "report.pdf"))
    assert "PNG image" in message and ".pdf" in message
    assert "JPEG" in str(_error(b"\xff\xd8\xff\xe0" + bytes(50), "scan.pdf"))
    assert "GIF" in str(_error(b"GIF89a" + bytes(50), "x.html"))


def test_office_documents_and_archives_renamed_to_pdf():
    def zipped(names: list[str]) -> bytes:
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as z:
            for n in names:
                z.writestr(n, "<xml/>")
        return out.getvalue()

    assert "Word document" in str(_error(zipped(["[Content_Types].xml", "word/document.xml"]), "10k.pdf"))
    assert "Excel workbook" in str(_error(zipped(["xl/workbook.xml"]), "10k.pdf"))
    assert "ZIP archive" in str(_error(zipped(["a.txt"]), "10k.pdf"))


def test_other_binary_cannot_be_decoded():
    binary = bytes(range(256)) * 20
    assert "binary" in str(_error(binary, "data.txt")).lower()


def test_truncated_pdf_is_damaged():
    data = text_pdf(["Item 1. Business\nWe sell widgets."])
    error = _error(data[: len(data) // 3], "cut.pdf")
    assert error.stage == "parse" and "damaged" in str(error)
    error = _error(b"%PDF-1.7\n" + b"garbage " * 50, "junk.pdf")
    assert "damaged" in str(error)


def test_encrypted_pdf_with_a_real_password():
    error = _error(_blank_pdf(password="s3cret"), "locked.pdf")
    assert error.stage == "parse" and "password" in str(error)


def test_pdf_without_text_layer_is_called_a_scan():
    error = _error(_blank_pdf(pages=3), "scan.pdf")
    assert error.stage == "parse" and "scanned" in str(error) and "OCR" in str(error)


def test_html_that_is_not_a_filing():
    page = b"<html><body><h1>Grandma's apple pie</h1><p>Mix flour and butter. Bake for 40 minutes.</p></body></html>"
    assert check_upload(page, "pie.html", MB) == "html"
    error = _error(page, "pie.html")
    assert error.stage == "parse" and "filing" in str(error)


def test_pdf_with_empty_password_and_text_is_accepted():
    data = text_pdf(["Item 1. Business\nWe sell widgets to factories across North America and Europe."] * 2)
    assert check_upload(data, "ok.bin", MB) == "pdf"
    parsed = parse_filing(data, "pdf")
    assert parsed.pages == 2 and "widgets" in parsed.text and {b.page for b in parsed.blocks} == {1, 2}


@pytest.mark.parametrize(
    ("encoding", "bom"),
    [("utf-8", b""), ("utf-8", b"\xef\xbb\xbf"), ("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff")],
)
def test_unicode_text_filings_decode(encoding, bom):
    data = bom + FILING_TEXT.encode(encoding)
    assert check_upload(data, "filing.txt", MB) == "txt"
    parsed = parse_filing(data, "txt")
    assert "“widgets” — lots" in parsed.text and "\ufeff" not in parsed.text
    assert parsed.company == "Contoso Widgets, Inc." and parsed.fiscal_year == 2024
    assert parsed.pages == 2 and parsed.blocks[-1].page == 2


def test_cp1252_text_with_curly_quotes():
    data = FILING_TEXT.encode("cp1252")
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    assert check_upload(data, "filing.txt", MB) == "txt"
    assert "“widgets” — lots" in parse_filing(data, "txt").text


def test_type_comes_from_bytes_not_the_name():
    html = b"<!DOCTYPE html><html><body><p>Item 1. Business</p></body></html>"
    assert check_upload(html, "looks.pdf", MB) == "html"
    assert check_upload(FILING_TEXT.encode(), "looks.html", MB) == "txt"
    assert check_upload(_blank_pdf(), "../../etc/passwd", MB) == "pdf"
