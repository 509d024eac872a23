"""PDF filings through pypdf: robust page-by-page text extraction (pages numbered from 1, as PDF viewers do).

Pages that are mostly numbers (financial statements and other tables) are read a second time in pypdf's
layout mode, which keeps each printed row on one line, and their tables become Markdown rows
(pdf_tables.py).
"""

from __future__ import annotations

import io
import logging

from core.ingest.document import RawBlock
from core.ingest.errors import IngestError
from core.ingest.loaders.pdf_tables import layout_page_blocks, looks_tabular
from core.ingest.loaders.txt import paragraph_blocks

log = logging.getLogger(__name__)

#: Below this many characters per page on average a PDF has no usable text layer.
MIN_CHARS_PER_PAGE = 40


def extract_pdf_pages(data: bytes) -> tuple[list[str], list[str | None], list[str]]:
    """Text of every page (empty for a page that fails), its layout text when the page looks like a table
    (else None) and warnings; raises IngestError if unreadable."""
    from pypdf import PdfReader  # imported here: pypdf is only needed when a PDF arrives
    from pypdf.errors import DependencyError, FileNotDecryptedError, PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        # Many EDGAR PDFs are encrypted with an empty user password; anything else needs the password.
        if reader.is_encrypted and not reader.decrypt(""):
            raise IngestError(
                "This PDF is protected by a password; remove the protection and upload it again.",
                stage="parse",
            )
        pages = reader.pages
        count = len(pages)
    except IngestError:
        raise
    except DependencyError as exc:
        raise IngestError(
            f"This PDF is encrypted and needs a missing library to open: {exc}", stage="parse"
        ) from exc
    except FileNotDecryptedError as exc:
        raise IngestError(
            "This PDF is protected by a password; remove the protection and upload it again.", stage="parse"
        ) from exc
    except (PdfReadError, ValueError, KeyError, TypeError, OSError, AttributeError, IndexError) as exc:
        raise IngestError(
            f"This PDF is damaged and cannot be read ({type(exc).__name__}).", stage="parse"
        ) from exc
    if count == 0:
        raise IngestError("This PDF has no pages.", stage="parse")
    texts: list[str] = []
    layouts: list[str | None] = []
    warnings: list[str] = []
    for index in range(count):
        try:
            texts.append(pages[index].extract_text() or "")
        except Exception as exc:  # noqa: BLE001 - one bad page must not lose the whole filing
            log.warning("pypdf could not extract page %d: %s", index + 1, exc)
            warnings.append(f"page {index + 1} could not be read ({type(exc).__name__}); it is left empty")
            texts.append("")
        layouts.append(_layout_text(pages[index], index) if looks_tabular(texts[-1]) else None)
    if len(warnings) == count:
        raise IngestError("No page of this PDF could be read; the file is probably damaged.", stage="parse")
    if sum(len(t.strip()) for t in texts) < MIN_CHARS_PER_PAGE * count:
        raise IngestError(
            "This PDF has no extractable text: is it a scanned image? OCR it first.", stage="parse"
        )
    return texts, layouts, warnings


def _layout_text(page, index: int) -> str | None:
    """The page in pypdf's layout mode, or None when that fails (the plain text is used instead)."""
    try:
        return page.extract_text(extraction_mode="layout") or None
    except Exception as exc:  # noqa: BLE001 - layout mode is an improvement, never a reason to fail
        log.warning("pypdf layout mode failed on page %d: %s", index + 1, exc)
        return None


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
    texts, layouts, warnings = extract_pdf_pages(data)
    return pdf_blocks(texts, layouts), len(texts), warnings
