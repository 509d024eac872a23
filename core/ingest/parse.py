"""Parse an upload into a ParsedFiling: loader by source type, normalised blocks, cover metadata."""

from __future__ import annotations

import re

from core.ingest.document import ParsedFiling, RawBlock, Section, assemble
from core.ingest.errors import IngestError
from core.ingest.loaders import load_html, load_pdf, load_txt
from core.ingest.loaders.txt import decode_text
from core.ingest.metadata import detect_metadata, xbrl_cover_facts
from core.ingest.sections import match_item_heading
from core.ingest.sections import split_sections as _split_sections
from core.models import SourceType

__all__ = ["parse_filing", "split_sections"]

_FILING_WORDS = re.compile(
    r"securities\s+and\s+exchange\s+commission|form\s+10-[kq]|form\s+8-k|annual\s+report|fiscal\s+year", re.I
)
_MIN_FILING_CHARS = 2000


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
    if source_type == "html" and not _looks_like_filing(raw, text):
        raise IngestError(
            "This web page does not look like an SEC filing (no 'Item 1' / 'Item 7' headings, little text).",
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
        period_end=meta.period_end,
        warnings=warnings,
    )


def _looks_like_filing(raw: list[RawBlock], text: str) -> bool:
    has_items = any(match_item_heading(block.text.split("\n", 1)[0]) for block in raw)
    if has_items:
        return True
    return len(text) >= _MIN_FILING_CHARS and bool(_FILING_WORDS.search(text[:20000]))


def split_sections(parsed: ParsedFiling) -> list[Section]:
    """Item sections covering every block of the filing, in document order."""
    return _split_sections(parsed)
