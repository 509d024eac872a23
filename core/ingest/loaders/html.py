"""EDGAR HTML / inline-XBRL filings: visible text as blocks, tables as Markdown, printed page numbers."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise

from core.ingest.document import BlockKind, RawBlock
from core.ingest.errors import IngestError
from core.ingest.loaders.txt import decode_text, normalise_line, paragraph_blocks
from core.ingest.sections import is_heading_line, is_page_number, match_item_heading, match_part_heading
from core.ingest.tables import (
    TABLE_PART_CHARS,
    Cell,
    clean_table,
    is_layout_table,
    layout_lines,
)
from core.text.markdown_table import write_table_parts

_SKIP_TAGS = {"script", "style", "head", "title", "noscript", "template", "ix:header", "xml", "meta", "link"}
_BLOCK_TAGS = {
    "p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "li", "ul", "ol", "blockquote", "center", "section",
    "article", "header", "footer", "pre", "dl", "dt", "dd", "body", "html", "tr", "form", "address",
}  # fmt: skip
_HIDDEN = re.compile(r"display\s*:\s*none", re.IGNORECASE)
_BREAK_BEFORE = re.compile(r"(?:page-break-before|break-before)\s*:\s*(?:always|page)", re.IGNORECASE)
_BREAK_AFTER = re.compile(r"(?:page-break-after|break-after)\s*:\s*(?:always|page)", re.IGNORECASE)
_BOLD = re.compile(r"font-weight\s*:\s*(?:bold|[6-9]00)", re.IGNORECASE)
# Footers such as "12", "Page 12" or "Apple Inc. | 2023 Form 10-K | 12".
_FOOTER_NUMBER = re.compile(r"^(?:page\s*)?(\d{1,3})$|\|\s*(\d{1,3})$|^(\d{1,3})\s*\|", re.IGNORECASE)


@dataclass(slots=True)
class _Piece:
    text: str
    bold: bool
    link: bool


@dataclass
class _Walker:
    """Walks the element tree once, cutting it into pages of blocks."""

    pages: list[list[tuple[BlockKind, str]]] = field(default_factory=lambda: [[]])
    pieces: list[_Piece] = field(default_factory=list)
    #: Older EDGAR documents mark pages with a bare <hr> and no page-break styles at all.
    bare_hr_breaks: bool = False

    # --- paragraphs ---------------------------------------------------------------------
    def flush(self) -> None:
        if not self.pieces:
            return
        raw = "".join(p.text for p in self.pieces)
        lines = [normalise_line(line) for line in raw.split("\n")]
        text = "\n".join(line for line in lines if line)
        visible = [p for p in self.pieces if p.text.strip()]
        self.pieces = []
        if not text:
            return
        if visible and all(p.link for p in visible) and text.lower() == "table of contents":
            return  # the "Table of Contents" back-link EDGAR repeats at the top of every page
        kept = text.split("\n")
        if any(is_heading_line(line, previous) for previous, line in pairwise(kept)):
            # Headings set apart only by <br> (a short filing typed as one paragraph): split the way a
            # text file is, so both give the same Items.
            self.pages[-1].extend((b.kind, b.text) for b in paragraph_blocks(text, 0))
            return
        kind: BlockKind = "text"
        first = text.split("\n", 1)[0]
        if (
            (match_item_heading(first) is not None and len(text) < 200)
            or (match_part_heading(first) and len(text) < 100)
            or (visible and all(p.bold for p in visible) and len(text) < 200)
        ):
            kind = "heading"
        self.pages[-1].append((kind, text))

    def page_break(self) -> None:
        self.flush()
        if self.pages[-1]:
            self.pages.append([])

    # --- tree walk ----------------------------------------------------------------------
    def walk(self, el, bold: bool, link: bool) -> None:
        tag = el.tag if isinstance(el.tag, str) else ""
        tag = tag.lower()
        style = el.get("style") or ""
        if not tag or tag in _SKIP_TAGS or _HIDDEN.search(style) or el.get("hidden") is not None:
            self._tail(el, bold, link)
            return
        if _BREAK_BEFORE.search(style):
            self.page_break()
        if tag == "hr":
            paged = (
                _BREAK_AFTER.search(style) or _BREAK_BEFORE.search(style) or "page" in (el.get("class") or "")
            )
            if paged or self.bare_hr_breaks:
                self.page_break()
            self._tail(el, bold, link)
            return
        if tag == "table":
            self.flush()
            self.table(el)
        else:
            block = tag in _BLOCK_TAGS
            if block:
                self.flush()
            here_bold = bold or tag in {"b", "strong", "th"} or bool(_BOLD.search(style))
            here_link = link or (tag == "a" and (el.get("href") or "").startswith("#"))
            if tag == "br":
                self.pieces.append(_Piece("\n", here_bold, here_link))
            if el.text:
                self.pieces.append(_Piece(el.text.replace("\n", " "), here_bold, here_link))
            for child in el:
                self.walk(child, here_bold, here_link)
            if block:
                self.flush()
        if _BREAK_AFTER.search(style):
            self.page_break()
        self._tail(el, bold, link)

    def _tail(self, el, bold: bool, link: bool) -> None:
        if el.tail:
            # Source newlines are just spaces in HTML; only <br> breaks a line.
            self.pieces.append(_Piece(el.tail.replace("\n", " "), bold, link))

    # --- tables -------------------------------------------------------------------------
    def table(self, table_el) -> None:
        rows: list[list[Cell]] = []
        for tr in table_el.iter("tr"):
            if _HIDDEN.search(tr.get("style") or ""):
                continue
            cells = [
                Cell(_cell_text(td), _int(td.get("colspan")))
                for td in tr
                if isinstance(td.tag, str) and td.tag.lower() in {"td", "th"}
            ]
            rows.append(cells)
        table = clean_table(rows)
        if not table:
            return
        if is_layout_table(table):
            for line in layout_lines(table):
                self.pieces.append(_Piece(line, False, False))
                self.flush()
            return
        for part in write_table_parts(table, self.caption(), TABLE_PART_CHARS):
            self.pages[-1].append(("table", part))

    def caption(self) -> str | None:
        """Nearest preceding heading or short line on this page (within the last few blocks)."""
        for kind, text in reversed(self.pages[-1][-3:]):
            if kind == "table":
                return None
            if kind == "heading" or (len(text) < 120 and not text.endswith(".")):
                return " ".join(text.split())
        return None


def _int(value: str | None) -> int:
    try:
        return int(value) if value else 1
    except ValueError:
        return 1


def _cell_text(td) -> str:
    parts: list[str] = []

    def visit(el) -> None:
        tag = el.tag.lower() if isinstance(el.tag, str) else ""
        if tag and tag not in _SKIP_TAGS and not _HIDDEN.search(el.get("style") or ""):
            if tag == "br" or tag in _BLOCK_TAGS:
                parts.append(" ")  # <br> and nested paragraphs separate words inside a cell
            if el.text:
                parts.append(el.text)
            for child in el:
                visit(child)
        if el.tail and el is not td:
            parts.append(el.tail)

    visit(td)
    return normalise_line(" ".join("".join(parts).split()))


def _printed_page(blocks: list[tuple[BlockKind, str]]) -> tuple[int | None, int | None]:
    """The printed page number in the page's footer and the index of that footer block, if any."""
    for index in range(len(blocks) - 1, max(-1, len(blocks) - 3), -1):
        text = blocks[index][1].strip()
        if len(text) > 80:
            return None, None
        match = _FOOTER_NUMBER.search(text)
        if match and (is_page_number(text) or "|" in text):
            number = next(g for g in match.groups() if g)
            return int(number), index
    return None, None


def parse_html_tree(text: str):
    """The lxml tree of an HTML document given as text (XML declaration removed)."""
    import lxml.html  # imported lazily: only HTML uploads need it

    text = re.sub(r"^\s*<\?xml[^>]*\?>", "", text)
    try:
        return lxml.html.document_fromstring(text)
    except Exception as exc:
        raise IngestError("This HTML file could not be parsed.", stage="parse") from exc


def load_html(data: bytes) -> tuple[list[RawBlock], int]:
    """Blocks of an HTML filing and its page count; a block's page is the printed page number if found."""
    text = decode_text(data)
    root = parse_html_tree(text)
    walker = _Walker(bare_hr_breaks=not re.search(r"(?:page-)?break-(?:before|after)", text, re.IGNORECASE))
    body = root.find("body")
    walker.walk(body if body is not None else root, False, False)
    walker.flush()
    pages = [p for p in walker.pages if p]
    blocks: list[RawBlock] = []
    for sequential, page_blocks in enumerate(pages, start=1):
        printed, footer = _printed_page(page_blocks)
        number = printed if printed is not None else sequential
        for index, (kind, text) in enumerate(page_blocks):
            if index == footer:
                continue  # the footer only repeats the page number we record on every block
            blocks.append(RawBlock(kind, text, number))
    return blocks, len(pages)
