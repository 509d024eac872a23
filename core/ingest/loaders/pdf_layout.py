"""A PDF page laid out as fixed-width text, from PDFium's character boxes: one printed line per text line,
cells separated by runs of spaces, each cell after a gap ending where it ends on the page.

pdf_tables.py reads tables from this text: a row keeps its label and values on one line, and numbers that are
right-aligned under a period header end in the same text column. PDFium gives every character's box but no
layout mode of its own, so the page is rebuilt here: characters grouped into lines by their vertical centre,
ordered left to right, split into cells where the horizontal gap is wide.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

#: Two characters on one line are in separate cells when the gap between them is at least this many
#: character widths (a column gap); narrower gaps are word spaces or kerning.
CELL_GAP = 1.5
#: A gap of at least this many character widths is a word space (also when the PDF has no space character).
WORD_GAP = 0.3
#: Characters whose vertical centres differ by at most this share of their height are on one line.
LINE_TOLERANCE = 0.4
#: A run of at least this many leader dots ("Net income ........ 629,551") is a gap between cells, not text.
MIN_LEADER_DOTS = 3
_LEADER_DOTS = {".", "·", "…", "․"}


@dataclass(slots=True)
class PageChar:
    """One printed character and its box in page coordinates (y grows upwards, as in PDF)."""

    text: str
    left: float
    bottom: float
    right: float
    top: float
    space_before: bool = False  # the text layer had a space (or line break) just before this character

    @property
    def middle(self) -> float:
        return (self.bottom + self.top) / 2

    @property
    def height(self) -> float:
        return self.top - self.bottom


def page_chars(textpage) -> list[PageChar]:
    """The printed characters of a PDFium text page with their boxes (whitespace becomes ``space_before``)."""
    import pypdfium2.raw as pdfium_c  # the loader's dependency; imported where it is used

    chars: list[PageChar] = []
    spaced = False
    for index in range(textpage.count_chars()):
        code = pdfium_c.FPDFText_GetUnicode(textpage.raw, index)
        text = chr(code) if 0 < code < 0x110000 else ""
        if not text or text.isspace() or code < 32:
            spaced = True
            continue
        left, bottom, right, top = textpage.get_charbox(index, loose=True)
        chars.append(PageChar(text, left, bottom, right, top, spaced))
        spaced = False
    return chars


def printed_lines(chars: list[PageChar]) -> list[list[PageChar]]:
    """Characters grouped into printed lines, top of the page first, each line left to right."""
    lines: list[tuple[float, float, list[PageChar]]] = []
    for char in sorted(chars, key=lambda c: -c.middle):
        if lines:
            middle, height, members = lines[-1]
            if abs(char.middle - middle) <= LINE_TOLERANCE * max(char.height, height):
                members.append(char)
                continue
        lines.append((char.middle, char.height, [char]))
    return [sorted(members, key=lambda c: c.left) for _, _, members in lines]


def _cells(line: list[PageChar], unit: float) -> list[tuple[str, float, float]]:
    """The cells of one line as (text, left, right), split where the gap is a column gap or a run of leader
    dots (the dots themselves are dropped)."""
    cells: list[tuple[list[str], float, float]] = []
    index = 0
    after_leader = False
    while index < len(line):
        char = line[index]
        if char.text in _LEADER_DOTS:
            end = index
            while end < len(line) and line[end].text in _LEADER_DOTS:
                end += 1
            if end - index >= MIN_LEADER_DOTS:
                index, after_leader = end, True
                continue
        if cells and not after_leader and char.left - cells[-1][2] < CELL_GAP * unit:
            text, left, right = cells[-1]
            if char.space_before or char.left - right >= WORD_GAP * unit:
                text.append(" ")
            text.append(char.text)
            cells[-1] = (text, left, max(right, char.right))
        else:
            cells.append(([char.text], char.left, char.right))
        after_leader = False
        index += 1
    return [("".join(text).strip(), left, right) for text, left, right in cells]


def layout_text(chars: list[PageChar]) -> str:
    """The page as fixed-width text: the first cell of a line starts at its left edge, every later cell ends
    at its right edge (numbers are right-aligned), at least two spaces after the cell before it."""
    widths = [c.right - c.left for c in chars if c.text.isalnum() and c.right > c.left]
    if not widths:
        return ""
    unit = statistics.median(widths)
    rendered: list[str] = []
    for line in printed_lines(chars):
        out = ""
        for number, (text, left, right) in enumerate(_cells(line, unit)):
            start = round(left / unit) if number == 0 else round(right / unit) - len(text)
            start = max(start, len(out) + 2) if out else max(start, 0)
            out += " " * (start - len(out)) + text
        rendered.append(out)
    return "\n".join(rendered)
