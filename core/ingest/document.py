"""Plumbing types of a parsed filing: blocks of normalised text with pages, and detected sections."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from core.models import SourceType

BlockKind = Literal["text", "table", "heading"]

#: Separator between blocks in ParsedFiling.text; chunk offsets rely on it being fixed.
BLOCK_SEPARATOR = "\n\n"


@dataclass(slots=True)
class RawBlock:
    """A block as a loader emits it, before offsets into the full text are known."""

    kind: BlockKind
    text: str
    page: int


@dataclass(slots=True)
class Block:
    """A paragraph, heading or Markdown table of the filing, located in ParsedFiling.text."""

    kind: BlockKind
    text: str
    page: int
    char_start: int
    char_end: int


@dataclass(slots=True)
class ParsedFiling:
    """A filing's normalised text, its blocks and the metadata read from its cover page."""

    source_type: SourceType
    text: str
    blocks: list[Block]
    pages: int
    company: str = ""
    form: str = "10-K"
    fiscal_year: int | None = None
    fiscal_quarter: int | None = None
    period_end: str | None = None
    event_items: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Section:
    """A 10-K Item (or the front-matter / unsectioned bucket) as a half-open block range."""

    item: str
    title: str
    part: str | None
    start_block: int
    end_block: int


def assemble(raw_blocks: list[RawBlock]) -> tuple[str, list[Block]]:
    """Join non-empty raw blocks into one text and record each block's character offsets."""
    blocks: list[Block] = []
    pieces: list[str] = []
    offset = 0
    for raw in raw_blocks:
        text = raw.text.strip()
        if not text:
            continue
        if pieces:
            pieces.append(BLOCK_SEPARATOR)
            offset += len(BLOCK_SEPARATOR)
        pieces.append(text)
        blocks.append(Block(raw.kind, text, raw.page, offset, offset + len(text)))
        offset += len(text)
    return "".join(pieces), blocks
