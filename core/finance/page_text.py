"""Pages as a reading unit: a page's text rebuilt from its passages, and the passage that prints a span of
it. A retrieved passage often holds a table row without the table's title or period header, which sit at the
top of the page; reading the whole page gives every row its statement, unit and periods, and each row stays
tied to a passage of the catalog so that its quote is verbatim."""

from __future__ import annotations

from dataclasses import dataclass

from core.models import Chunk


@dataclass(frozen=True)
class PageText:
    """A page's text rebuilt from its passages, and where each passage sits in it."""

    filing_id: str
    page: int
    text: str
    spans: tuple[tuple[Chunk, int, int], ...]

    def own_start(self) -> int:
        """Where the page's own passages start (a page may begin with the previous page's last passage)."""
        return min((start for chunk, start, _ in self.spans if chunk.page == self.page), default=0)

    def passage_of(self, start: int, end: int) -> tuple[Chunk, str | None] | None:
        """The passage that holds text[start:end], and None when it holds all of it; when a passage boundary
        cuts the span, the passage with its end and the words of the span it holds (to quote instead)."""
        for chunk, lo, hi in self.spans:
            if lo <= start and end <= hi:
                return chunk, None
        for chunk, lo, hi in self.spans:
            if lo < end <= hi:
                return chunk, " ".join(self.text[max(start, lo) : end].split())
        return None


def build_page(filing_id: str, page: int, chunks: list[Chunk]) -> PageText | None:
    """Join a page's passages in filing order; overlapping passages are merged by their offsets."""
    if not chunks:
        return None
    ordered = sorted(chunks, key=lambda c: (c.char_start, c.chunk_index))
    parts: list[str] = []
    spans: list[tuple[Chunk, int, int]] = []
    length = 0
    cursor: int | None = None  # filing offset where the text built so far ends
    for chunk in ordered:
        verbatim = len(chunk.text) == chunk.char_end - chunk.char_start
        if verbatim and cursor is not None and chunk.char_start < cursor:
            # Overlap with the previous passage: append only what is new.
            start = length - (cursor - chunk.char_start)
            tail = chunk.text[cursor - chunk.char_start :]
            parts.append(tail)
            length += len(tail)
            cursor = max(cursor, chunk.char_end)
            spans.append((chunk, max(0, start), length))
            continue
        separator = "\n" if parts else ""
        parts.append(separator + chunk.text)
        start = length + len(separator)
        length += len(separator) + len(chunk.text)
        spans.append((chunk, start, length))
        cursor = chunk.char_end if verbatim else None
    return PageText(filing_id, page, "".join(parts), tuple(spans))
