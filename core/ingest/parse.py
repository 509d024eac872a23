"""Parse an upload into a ParsedFiling: loader by source type, normalised blocks, cover metadata."""

from __future__ import annotations

import re

from core.ingest.document import ParsedFiling, assemble
from core.ingest.errors import IngestError
from core.ingest.loaders import load_html, load_pdf, load_txt
from core.ingest.loaders.txt import decode_text
from core.ingest.metadata import detect_metadata, is_earnings_release, xbrl_cover_facts
from core.ingest.sections import match_item_heading
from core.models import SourceType

__all__ = ["parse_filing"]

_FILING_WORDS = re.compile(
    r"securities\s+and\s+exchange\s+commission|form\s+10-[kq]|form\s+8-k|annual\s+report|fiscal\s+year", re.I
)
_MIN_FILING_CHARS = 2000
#: A line that starts with "Item"/"Items" and a number (its first 200 characters), for the heading check.
_ITEM_LINE = re.compile(r"^[^\S\n]*(items?[^\S\n]*\d[^\n]{0,200})", re.I | re.M)


def parse_filing(data: bytes, source_type: SourceType) -> ParsedFiling:
    """Extract a filing's text as located blocks with pages, plus company / form / fiscal year."""
    warnings: list[str] = []
    xbrl: dict[str, str] = {}
    if source_type == "pdf":
        raw, pages, warnings = load_pdf(data)
    elif source_type == "html":
        raw, pages = load_html(data)
        xbrl = xbrl_cover_facts(decode_text(data[:400_000]))
    elif source_type == "txt":
        raw, pages = load_txt(data)
    else:
        raise IngestError(f"Unsupported file type: {source_type}.", stage="parse")
    text, blocks = assemble(raw)
    if not text.strip():
        raise IngestError("No text could be extracted from this file.", stage="parse")
    if source_type in ("html", "txt") and not looks_like_filing(text):
        kind = "web page" if source_type == "html" else "text file"
        raise IngestError(
            f"This {kind} does not look like an SEC filing: it has no 'Item 1' / 'Item 7' style headings "
            "and does not name a form or an annual report.",
            stage="parse",
        )
    meta = detect_metadata(text, xbrl)
    return ParsedFiling(
        source_type=source_type,
        text=text,
        blocks=blocks,
        pages=pages,
        company=meta.company,
        form=meta.form,
        fiscal_year=meta.fiscal_year,
        fiscal_quarter=meta.fiscal_quarter,
        period_end=meta.period_end,
        event_items=meta.event_items,
        warnings=warnings,
    )


def looks_like_filing(text: str) -> bool:
    """The one rule for web pages and text files (PDFs are judged by their pages instead): a line that
    starts with a 10-K Item heading, or at least a page of text that names the SEC, a form or an annual
    report near its start, or opens the way an earnings release does. Linear in the text: only lines that start with "Item" are looked at closely."""
    for line in _ITEM_LINE.finditer(text):
        if match_item_heading(line.group(1)):
            return True
    if len(text) < _MIN_FILING_CHARS:
        return False
    return bool(_FILING_WORDS.search(text[:20000])) or is_earnings_release(text)
