"""Contextual passages: what a passage is about, said in a short line indexed with it but never quoted.

A passage cut from the middle of a filing often lacks what makes it findable: which company and year it
belongs to, which Item, and, for a page of a table, the table's title, unit and period columns, which sit
at the top of the page. Each passage gets a context line built from its filing's metadata, its Item and
its page's heading lines; the embedding and the keyword index read that line with the passage, while the
text shown and quoted stays the filing's own (Chunk.text).
"""

from __future__ import annotations

from collections import Counter

from core.ingest.document import Block, ParsedFiling
from core.models import Chunk, filing_label

#: A page's heading is its leading short blocks (a title, a unit line, period columns) ...
HEADING_BLOCK_CHARS = 80
#: ... at most this many of them ...
HEADING_BLOCKS = 8
#: ... and at most this many characters in all (the context must leave room for the passage in the
#: embedding model's window).
HEADING_CHARS = 160
#: A heading line at the top of at least this share of pages is a running header ("Table of Contents").
RUNNING_HEADER_SHARE = 0.2


def _line(text: str) -> str:
    return " ".join(text.split())


def page_headings(blocks: list[Block]) -> dict[int, tuple[str, int]]:
    """Page -> (its heading text, the filing offset where the heading ends), running headers left out."""
    leading: dict[int, list[Block]] = {}
    closed: set[int] = set()
    for block in blocks:
        if block.page in closed:
            continue
        if len(_line(block.text)) > HEADING_BLOCK_CHARS or block.kind == "table":
            closed.add(block.page)
            continue
        lead = leading.setdefault(block.page, [])
        lead.append(block)
        if len(lead) >= HEADING_BLOCKS:
            closed.add(block.page)
    pages = len({b.page for b in blocks}) or 1
    tops = Counter(_line(b.text).lower() for lead in leading.values() for b in lead)
    running = {line for line, n in tops.items() if n >= max(3, RUNNING_HEADER_SHARE * pages)}
    headings: dict[int, tuple[str, int]] = {}
    for page, lead in leading.items():
        kept = [b for b in lead if _line(b.text).lower() not in running]
        text = _line(" ".join(b.text for b in kept))[:HEADING_CHARS].strip()
        if text:
            headings[page] = (text, kept[-1].char_end)
    return headings


def add_context(parsed: ParsedFiling, chunks: list[Chunk]) -> list[Chunk]:
    """The chunks with their context line: filing, Item and title, and the page's heading when the
    passage starts below it."""
    headings = page_headings(parsed.blocks)
    out: list[Chunk] = []
    for chunk in chunks:
        parts = [
            filing_label(
                parsed.company, parsed.form, parsed.fiscal_year, parsed.fiscal_quarter, parsed.period_end
            )
        ]
        parts.append(
            f"{chunk.section} {chunk.section_title}".strip() if chunk.section_title else chunk.section
        )
        heading = headings.get(chunk.page)
        if heading is not None and chunk.char_start >= heading[1]:
            parts.append(heading[0])
        out.append(chunk.model_copy(update={"context": " | ".join(p for p in parts if p)}))
    return out
