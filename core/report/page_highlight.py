"""A cited passage shown where it is printed: the PDF page rendered by PDFium, the quote's lines highlighted.

The quote is a verbatim slice of a passage, and a passage is text PDFium read from the page (as printed, or
laid out as table rows), so the quote's letters and digits are found among the page's characters: first whole,
in PDFium's order or in reading order (lines top to bottom, left to right — the order of laid-out tables);
failing that, piece by piece (sentences, table cells). Punctuation and spacing are ignored, since layout and
table rows change them. How much of the quote was found is returned, so the page never claims more than it
shows.
"""

from __future__ import annotations

import io
import re
import unicodedata
from dataclasses import dataclass

from core.ingest.loaders.pdf import PDFIUM_LOCK, open_pdf
from core.ingest.loaders.pdf_layout import PageChar, page_chars, printed_lines

#: Rendered page width in pixels (a US Letter page at about 1.8x).
PAGE_WIDTH_PX = 1100
#: The close-up of a highlight keeps this much of the page above and below it (pixels).
FOCUS_MARGIN_PX = 140
#: A piece of the quote shorter than this many letters and digits is not looked for on its own (a lone
#: "2018" or "$" would be found anywhere).
MIN_PIECE_CHARS = 5
_PIECES = re.compile(r"\s*\|\s*|\n+|(?<=[.;:!?])\s+| {2,}")
_FILL = (255, 214, 10, 96)
_EDGE = (230, 140, 0, 255)


@dataclass(slots=True)
class PageHighlight:
    """A rendered page (PNG) with the quote highlighted, and how much of the quote was found on it."""

    png: bytes
    page: int
    pages: int
    coverage: float  # share of the quote's letters and digits located on the page (0 to 1)
    boxes: int  # highlighted line boxes
    focus_png: bytes | None = None  # the page's full width around the highlight (None when nothing is marked)
    rotated: bool = False  # a rotated page is shown without marks (its character boxes are in another frame)


def _keys(text: str) -> str:
    """Letters and digits only, compatibility-folded and case-folded ("ﬁ" -> "fi", "Ⅳ" -> "iv")."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).casefold() if ch.isalnum())


class _Order:
    """Page characters in one order, as a string of keys with the character behind each key."""

    def __init__(self, chars: list[PageChar]) -> None:
        keys: list[str] = []
        self.owner: list[int] = []
        for index, char in enumerate(chars):
            for key in _keys(char.text):
                keys.append(key)
                self.owner.append(index)
        self.chars = chars
        self.text = "".join(keys)

    def span(self, start: int, length: int) -> set[int]:
        """The characters from the first to the last one behind these keys (punctuation between them too)."""
        return set(range(self.owner[start], self.owner[start + length - 1] + 1))


def locate_quote(chars: list[PageChar], quote: str) -> tuple[list[PageChar], float]:
    """The page characters that print the quote, and the share of the quote's keys found."""
    wanted = _keys(quote)
    if not wanted or not chars:
        return [], 0.0
    orders = [_Order(chars), _Order([c for line in printed_lines(chars) for c in line])]
    for order in orders:
        at = order.text.find(wanted)
        if at >= 0:
            return [order.chars[i] for i in sorted(order.span(at, len(wanted)))], 1.0
    reading = orders[1]
    found: set[int] = set()
    found_keys = 0
    after = 0
    for piece in _PIECES.split(quote):
        key = _keys(piece)
        if len(key) < MIN_PIECE_CHARS:
            continue
        at = reading.text.find(key, after)
        if at < 0:
            at = reading.text.find(key)
        if at < 0:
            continue
        found |= reading.span(at, len(key))
        found_keys += len(key)
        after = at + len(key)
    return [reading.chars[i] for i in sorted(found)], min(1.0, found_keys / len(wanted))


def _line_boxes(chars: list[PageChar]) -> list[tuple[float, float, float, float]]:
    """One box (left, bottom, right, top) per printed line of the given characters."""
    return [
        (
            min(c.left for c in line),
            min(c.bottom for c in line),
            max(c.right for c in line),
            max(c.top for c in line),
        )
        for line in printed_lines(chars)
    ]


def highlight_quote(pdf: bytes, page_number: int, quote: str) -> PageHighlight:
    """Render page `page_number` (from 1) of the PDF with the lines that print `quote` highlighted.

    Raises ValueError when the page does not exist, IngestError when the PDF cannot be opened.
    """
    from PIL import Image, ImageDraw  # imported here: only drawing a cited page needs Pillow

    with PDFIUM_LOCK:
        document = open_pdf(pdf)
        try:
            pages = len(document)
            if not 1 <= page_number <= pages:
                raise ValueError(f"The filing has {pages} pages; page {page_number} is not one of them.")
            page = document[page_number - 1]
            textpage = page.get_textpage()
            try:
                chars = page_chars(textpage)
                crop_left, _, _, crop_top = page.get_cropbox()
                scale = PAGE_WIDTH_PX / max(1.0, page.get_width())
                image = page.render(scale=scale).to_pil().convert("RGBA")
                rotated = page.get_rotation() != 0
            finally:
                textpage.close()
                page.close()
        finally:
            document.close()
    marked, coverage = locate_quote(chars, quote)
    # A rotated page's character boxes are not in the rendered image's frame: shown, not marked.
    boxes = [] if rotated else _line_boxes(marked)
    overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    pad = 2
    marked_rows: list[float] = []
    for left, bottom, right, top in boxes:
        x0, x1 = (left - crop_left) * scale - pad, (right - crop_left) * scale + pad
        y0, y1 = (crop_top - top) * scale - pad, (crop_top - bottom) * scale + pad
        draw.rectangle((x0, y0, x1, y1), fill=_FILL, outline=_EDGE, width=2)
        marked_rows += [y0, y1]
    page_image = Image.alpha_composite(image, overlay).convert("RGB")
    focus = None
    if marked_rows:
        top_px = max(0, int(min(marked_rows)) - FOCUS_MARGIN_PX)
        bottom_px = min(page_image.height, int(max(marked_rows)) + FOCUS_MARGIN_PX)
        focus = _png(page_image.crop((0, top_px, page_image.width, bottom_px)))
    return PageHighlight(
        png=_png(page_image),
        page=page_number,
        pages=pages,
        coverage=0.0 if rotated else coverage,
        boxes=len(boxes),
        focus_png=focus,
        rotated=rotated,
    )


def _png(image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()
