"""A citation where it is printed: the passage that holds its quote and, for a PDF filing, its page with the
quote highlighted."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from core.failures import failure_message
from core.index.store import IndexStore
from core.models import Chunk, Citation, Filing
from core.report.page_highlight import PageHighlight, highlight_quote

log = logging.getLogger(__name__)


@dataclass(slots=True)
class CitedPassage:
    """A cited passage in its filing: the passage, the quote, and (for a PDF) its page with the quote marked."""

    filing: Filing
    chunk: Chunk | None  # the indexed passage holding the quote (None if re-indexing changed it since)
    quote: str
    page: PageHighlight | None = None
    page_problem: str | None = None  # why a PDF page is not shown, in a sentence


def locate_citation(store: IndexStore, citation: Citation) -> CitedPassage | None:
    """Where a citation's quote is printed: for a PDF filing its page rendered with the quote highlighted,
    for every filing the passage that holds it (None when the filing was re-indexed since and the passage
    changed). None for a web source or a filing no longer in the library."""
    filing = store.catalog.get_filing(citation.filing_id) if citation.filing_id else None
    if filing is None:
        return None
    chunks = store.catalog.get_chunks([citation.chunk_id]) if citation.chunk_id else []
    chunk = chunks[0] if chunks and citation.quote in chunks[0].text else None
    passage = CitedPassage(filing=filing, chunk=chunk, quote=citation.quote)
    page_number = citation.page or (chunk.page if chunk else None)
    if filing.source_type != "pdf" or page_number is None:
        return passage
    try:
        passage.page = highlight_quote(store.original_path(filing).read_bytes(), page_number, citation.quote)
    except Exception as exc:  # noqa: BLE001 - the passage is still shown, with the reason
        log.warning("rendering page %s of %s failed: %r", page_number, filing.filing_id, exc)
        passage.page_problem = failure_message("Rendering the page", exc) + "; the passage is shown instead."
    return passage
