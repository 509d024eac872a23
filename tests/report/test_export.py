"""PDF and DOCX exports read back with pypdf / python-docx: citations, references and the audit appendix."""

from __future__ import annotations

import io
import re

import docx
import pytest
from pypdf import PdfReader

from core.report.export import EXPORT_MIME, export_filename, export_report
from core.report.pdf_export import find_unicode_font, report_pdf, to_latin1


def _pdf_text(data: bytes) -> str:
    reader = PdfReader(io.BytesIO(data))
    return re.sub(r"\s+", " ", " ".join(page.extract_text() or "" for page in reader.pages))


def _docx_text(data: bytes) -> str:
    document = docx.Document(io.BytesIO(data))
    parts = [p.text for p in document.paragraphs]
    parts += [cell.text for table in document.tables for row in table.rows for cell in row.cells]
    return re.sub(r"\s+", " ", " ".join(parts))


def _assert_report_content(text: str) -> None:
    assert "What competition and supplier risks does Northwind report" in text
    for number in (1, 2, 3):
        assert f"[{number}]" in text
    assert "Item 1A (Risk Factors), page 6" in text
    assert "solely from OptiScan Sensors Ltd." in text
    assert "Audit appendix" in text
    assert "Version 2" in text and "analyst" in text and "Added step 2" in text
    assert "Analyst override: keyword" in text
    assert "Filter widened" in text
    assert "web search unavailable" in text
    assert "Fallbacks" in text and "local lexical scorer" in text


def test_export_filename_and_mime(record) -> None:
    # Company, the question's first words, the date and the run: what the report is, at a glance.
    assert export_filename(record, "pdf") == (
        "northwind-robotics-inc-what-competition-and-supplier-risks-does-northwind-2026-03-02-3b9e6c1d.pdf"
    )
    record.run_id = "../../etc/passwd"
    record.question = "../../x/ <script>alert(1)</script>\x00 revenue?"
    record.citations = []
    name = export_filename(record, "docx")
    assert re.fullmatch(r"[a-z0-9-]+\.docx", name) and "/" not in name and ".." not in name
    assert set(EXPORT_MIME) == {"md", "html", "pdf", "docx"}
    with pytest.raises(ValueError):
        export_report(record, "rtf")  # type: ignore[arg-type]


def test_markdown_and_html_exports_are_utf8(record) -> None:
    assert export_report(record, "md").decode("utf-8").startswith("# Research report")
    assert b"<!DOCTYPE html>" in export_report(record, "html")


def test_pdf_export_contains_citations_references_and_appendix(record) -> None:
    data = export_report(record, "pdf")
    assert data.startswith(b"%PDF")
    _assert_report_content(_pdf_text(data))


def test_pdf_citations_are_internal_links(record) -> None:
    reader = PdfReader(io.BytesIO(export_report(record, "pdf")))
    links = [
        annot.get_object()
        for page in reader.pages
        for annot in page.get("/Annots") or []
        if annot.get_object().get("/Subtype") == "/Link"
    ]
    internal = [a for a in links if "/Dest" in a or a.get("/A", {}).get("/S") == "/GoTo"]
    assert len(internal) >= 3


def test_pdf_without_unicode_font_falls_back_to_latin1(record) -> None:
    record.answer += "\nUnicode: “quotes” — dash, € sign, Ünïcödé, 中文, emoji 🤖 [1]\n"
    data = report_pdf(record, font_dirs=[])
    text = _pdf_text(data)
    assert '"quotes" - dash, EUR sign, Ünïcödé' in text
    _assert_report_content(text)


@pytest.mark.skipif(find_unicode_font() is None, reason="no DejaVu font on this machine")
def test_pdf_with_unicode_font_survives_any_character(record) -> None:
    record.answer += "\nUnicode: “quotes” — 中文 🤖 \u0000 bell\u0007 [2]\n"
    text = _pdf_text(report_pdf(record))
    assert "“quotes” —" in text


def test_to_latin1_never_leaves_unencodable_characters() -> None:
    sample = "“Revenue” – grew → 17.9% … 中 🤖 Ω ﬁ"
    assert to_latin1(sample).encode("latin-1")
    assert to_latin1("café").startswith("caf")


def test_docx_export_contains_citations_references_and_appendix(record) -> None:
    data = export_report(record, "docx")
    assert data[:2] == b"PK"
    _assert_report_content(_docx_text(data))
    document = docx.Document(io.BytesIO(data))
    body = document.element.body.xml
    for number in (1, 2, 3):
        assert f'w:anchor="ref_{number}"' in body
        assert f'w:name="ref_{number}"' in body


def test_docx_strips_characters_xml_cannot_hold(record) -> None:
    record.citations[0].quote = "Null\x00 and bell\x07 and form\x0c feed"
    text = _docx_text(export_report(record, "docx"))
    assert "Null and bell and form feed" in text


def test_every_export_names_the_analyst_who_started_the_run(record) -> None:
    """With sign-in, a run records who started it and each export names them; without, no author line."""
    texts = {
        "md": lambda d: d.decode("utf-8"),
        "html": lambda d: re.sub(r"<[^>]+>", " ", d.decode("utf-8")),
        "pdf": _pdf_text,
        "docx": _docx_text,
    }
    for fmt, read in texts.items():
        assert "Author" not in read(export_report(record, fmt)), fmt
    record.started_by = "ana@example.com"
    for fmt, read in texts.items():
        text = read(export_report(record, fmt))
        assert re.search(r"Author\W+ana@example\.com", text), fmt
