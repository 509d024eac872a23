"""PDF filings through PDFium (pypdfium2): page-by-page text (pages numbered from 1, as PDF viewers do).

PDFium was chosen by measurement (benchmarks/pdf_extractors.py): on the FinanceBench gold pages it finds the
evidence as often as PyMuPDF and more often than pypdf, it reads about 240 pages a second where pypdf reads
about 7 (pypdf is pure Python: its parse of a table-heavy 10-K took longer than embedding it), it decrypts
the RC4/AES-encrypted filings EDGAR serves, and its licences (Apache-2.0 / BSD) suit the project.

Pages whose plain text has many lines ending in numbers are also laid out from their character boxes
(pdf_layout.py); when that layout is mostly table rows, its tables become Markdown rows (pdf_tables.py).
"""

from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass

from core.ingest.document import RawBlock
from core.ingest.errors import IngestError
from core.ingest.loaders.pdf_layout import layout_text, page_chars
from core.ingest.loaders.pdf_tables import layout_page_blocks, looks_tabular, may_be_tabular
from core.ingest.loaders.txt import paragraph_blocks

log = logging.getLogger(__name__)

#: Below this many characters per page on average a PDF has no usable text layer.
MIN_CHARS_PER_PAGE = 40

#: PDFium is not thread-safe, not even across documents: every call into it holds this lock.
PDFIUM_LOCK = threading.Lock()

#: A run of underscores is a drawn rule (cover pages, signature blocks); PDFium puts it on the line of the
#: text beside it, so it becomes a line break.
_RULE = re.compile(r"_{3,}")


@dataclass(slots=True)
class PdfPages:
    """The text of every page of a PDF (empty for a page that failed), the laid-out text of pages that
    read as tables (else None), and warnings about pages that could not be read."""

    texts: list[str]
    layouts: list[str | None]
    warnings: list[str]


def open_pdf(data: bytes):
    """The PDFium document, or an IngestError a person understands."""
    import pypdfium2  # imported here: PDFium is only needed when a PDF arrives
    import pypdfium2.raw as pdfium_c

    try:
        # EDGAR PDFs encrypted with an empty user password open without one.
        return pypdfium2.PdfDocument(data)
    except pypdfium2.PdfiumError as exc:
        code = getattr(exc, "err_code", None)
        if code == pdfium_c.FPDF_ERR_PASSWORD:
            raise IngestError(
                "This PDF is protected by a password; remove the protection and upload it again.",
                stage="parse",
            ) from exc
        if code == pdfium_c.FPDF_ERR_SECURITY:
            raise IngestError(
                "This PDF uses an encryption scheme that cannot be opened; print it to a new PDF and upload that.",
                stage="parse",
            ) from exc
        raise IngestError("This PDF is damaged and cannot be read.", stage="parse") from exc


def _read_page(document, index: int) -> tuple[str, str | None]:
    """Plain text of one page (PDFium's reading order, one printed line per line), and its laid-out text
    when the page reads as a table."""
    page = document[index]
    textpage = page.get_textpage()
    try:
        plain = _RULE.sub("\n", textpage.get_text_range().replace("\r\n", "\n").replace("\r", "\n"))
        layout = None
        if may_be_tabular(plain):
            laid_out = layout_text(page_chars(textpage))
            layout = laid_out if looks_tabular(laid_out) else None
        return plain, layout
    finally:
        textpage.close()
        page.close()


def extract_pdf_pages(data: bytes) -> PdfPages:
    """Text of every page, the layout of table pages and warnings; raises IngestError if unreadable."""
    texts: list[str] = []
    layouts: list[str | None] = []
    warnings: list[str] = []
    with PDFIUM_LOCK:
        document = open_pdf(data)
        try:
            count = len(document)
            if count == 0:
                raise IngestError("This PDF has no pages.", stage="parse")
            for index in range(count):
                try:
                    text, layout = _read_page(document, index)
                except Exception as exc:  # noqa: BLE001 - one bad page must not lose the whole filing
                    log.warning("PDFium could not read page %d: %s", index + 1, exc)
                    warnings.append(
                        f"page {index + 1} could not be read ({type(exc).__name__}); it is left empty"
                    )
                    text, layout = "", None
                texts.append(text)
                layouts.append(layout)
        finally:
            document.close()
    if len(warnings) == count:
        raise IngestError("No page of this PDF could be read; the file is probably damaged.", stage="parse")
    if sum(len(t.strip()) for t in texts) < MIN_CHARS_PER_PAGE * count:
        raise IngestError(
            "This PDF has no extractable text: is it a scanned image? OCR it first.", stage="parse"
        )
    return PdfPages(texts, layouts, warnings)


def pdf_blocks(page_texts: list[str], layouts: list[str | None] | None = None) -> list[RawBlock]:
    """Paragraph blocks of every page, tagged with the page number a PDF viewer shows (first page = 1).

    Citations point the analyst at this number. FinanceBench's ``evidence_page_num`` is 0-based: it is
    this number minus one.
    """
    blocks: list[RawBlock] = []
    for number, text in enumerate(page_texts, start=1):
        layout = layouts[number - 1] if layouts else None
        blocks.extend(layout_page_blocks(layout, number) if layout else paragraph_blocks(text, number))
    return blocks


def load_pdf(data: bytes) -> tuple[list[RawBlock], int, list[str]]:
    """Blocks, page count and extraction warnings of a PDF filing."""
    pages = extract_pdf_pages(data)
    return pdf_blocks(pages.texts, pages.layouts), len(pages.texts), pages.warnings
