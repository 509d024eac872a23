"""Tables on PDF pages as rows: a page laid out as text (pdf_layout.py) becomes Markdown tables.

A PDF's plain text loses the columns of a financial statement: which number sits under which period. The
laid-out text keeps each printed line together, with runs of spaces where the columns are and every value
ending where it ends on the page. Each run of its lines that holds numbers in columns becomes a table: the
label, then one cell per column, with the column headers (periods) above. Tables are emitted the way the HTML
loader emits them (Markdown, split by rows with the caption and header repeated in every part), so every
chunk of a statement carries its title and periods, and the figure readers see one row per line item.

Hand-written on purpose: pdfplumber reads table structure from the PDF's drawn lines and character boxes,
about ten times slower than layout text, and financial statements rarely draw cell borders.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.ingest.document import RawBlock
from core.ingest.loaders.txt import normalise_line, paragraph_blocks
from core.ingest.sections import is_page_number, match_item_heading
from core.ingest.tables import TABLE_PART_CHARS
from core.text.markdown_table import is_numeric_cell, write_table_parts
from core.text.periods import YEAR

#: A page is laid out when its plain text has at least this many lines ending in a number, and it is read
#: as tables when at least this many of its laid-out lines are rows (a label, then values in columns): a table
#: in the middle of prose counts as much as a whole statement.
MIN_TABLE_PAGE_ROWS = 5
#: A run of lines is a table when it has at least this many rows with numbers.
MIN_TABLE_ROWS = 3
#: More value columns than this is not a table read reliably from spacing.
MAX_COLUMNS = 10
#: Numbers are right-aligned; cells whose right edges are this close share a column.
COLUMN_TOLERANCE = 4
#: A line of text longer than this inside a run of rows is prose: it ends the table.
MAX_LABEL_CHARS = 110
#: At most this many short lines just above a table form its caption (title, company, period, unit) ...
CAPTION_LINES = 4
#: ... in at most this many characters.
CAPTION_CHARS = 200

_CELL = re.compile(r"\S+(?: \S+)*")
_YEAR = re.compile(rf"\b{YEAR}\b")
_CURRENCY = {"$", "€", "£", "¥", "US$", "($", "$("}
_CLOSERS = {")", "%", ")%", "%)"}


@dataclass(slots=True)
class _Cell:
    text: str
    start: int
    end: int


@dataclass(slots=True)
class _Line:
    cells: list[_Cell]
    kind: str  # "blank" | "row" | "header" | "text"

    @property
    def text(self) -> str:
        return " ".join(c.text for c in self.cells)


def may_be_tabular(plain_text: str) -> bool:
    """A cheap first test on a page's plain text: enough lines end in a number to be worth laying out."""
    ending_in_numbers = 0
    for line in plain_text.splitlines():
        tokens = line.split()
        ending_in_numbers += bool(tokens) and is_numeric_cell(tokens[-1])
    return ending_in_numbers >= MIN_TABLE_PAGE_ROWS


def looks_tabular(layout_text: str) -> bool:
    """True for a laid-out page that holds a table of figures (a statement, or a table within prose)."""
    rows = sum(1 for line in layout_text.splitlines() if _classify(line).kind == "row")
    return rows >= MIN_TABLE_PAGE_ROWS


def _cells(line: str) -> list[_Cell]:
    """Cells of a laid-out line: text separated by two or more spaces, currency signs and closers glued on."""
    raw = [_Cell(m.group(), m.start(), m.end()) for m in _CELL.finditer(line)]
    cells: list[_Cell] = []
    pending: _Cell | None = None
    for cell in raw:
        if cell.text in _CURRENCY:
            pending = cell
            continue
        if cell.text in _CLOSERS and cells:
            cells[-1] = _Cell(cells[-1].text + cell.text, cells[-1].start, cell.end)
            continue
        if pending is not None:
            if is_numeric_cell(cell.text):
                cell = _Cell(f"{pending.text} {cell.text}", pending.start, cell.end)
            else:
                cells.append(pending)
            pending = None
        cells.append(cell)
    if pending is not None:
        cells.append(pending)
    return cells


def _is_period(text: str) -> bool:
    return bool(_YEAR.search(text)) and len(text.split()) <= 5


def _value_start(cells: list[_Cell]) -> int:
    """Index of the first cell of the line's trailing run of numbers (len(cells) when there is none)."""
    start = len(cells)
    while start > 0 and is_numeric_cell(cells[start - 1].text):
        start -= 1
    return start


def _classify(line: str) -> _Line:
    cells = _cells(normalise_spaces(line))
    if not cells:
        return _Line(cells, "blank")
    periods = cells if _is_period(cells[0].text) else cells[1:]
    if len(periods) >= 2 and all(_is_period(c.text) for c in periods):
        return _Line(cells, "header")
    start = _value_start(cells)
    if start < len(cells) and (start > 0 or len(cells) >= 2):
        return _Line(cells, "row")
    return _Line(cells, "text")


def normalise_spaces(line: str) -> str:
    """Exotic spaces made plain without collapsing runs (runs of spaces are the column separators)."""
    return re.sub(r"[\u00a0\u2000-\u200a\u202f\u3000\t]", " ", line).rstrip()


def _value_cells(line: _Line) -> list[_Cell]:
    return line.cells[_value_start(line.cells) :]


def _anchors(rows: list[_Line]) -> list[int]:
    """Right edges of the value columns: the right edges of value cells, clustered."""
    ends = sorted(c.end for line in rows for c in _value_cells(line))
    clusters: list[list[int]] = []
    for end in ends:
        if clusters and end - clusters[-1][-1] <= COLUMN_TOLERANCE:
            clusters[-1].append(end)
        else:
            clusters.append([end])
    return [max(cluster) for cluster in clusters]


def _column(anchors: list[int], cell: _Cell) -> int:
    return min(range(len(anchors)), key=lambda i: abs(anchors[i] - cell.end))


def _region_end(lines: list[_Line], start: int) -> int:
    """Index after the last line of the table that begins at ``start`` (trailing text and blanks left out;
    a period header below rows begins the next table)."""
    end = start
    blanks = 0
    for index in range(start, len(lines)):
        line = lines[index]
        if line.kind == "header" and end > start and any(x.kind == "row" for x in lines[start:end]):
            break  # a new header under rows starts the next table
        if line.kind == "blank":
            blanks += 1
            if blanks > 2:
                break
            continue
        blanks = 0
        if line.kind == "text" and (len(line.text) > MAX_LABEL_CHARS or len(line.cells) > 2):
            break
        if line.kind in ("row", "header"):
            end = index + 1
    return end


def _caption(lines: list[_Line], start: int) -> tuple[str | None, int]:
    """The short lines just above a table (its title, company, period or unit line) in page order, and how
    many lines they are; an Item heading is never taken."""
    taken: list[str] = []
    index = start - 1
    while index >= 0 and len(taken) < CAPTION_LINES:
        line = lines[index]
        index -= 1
        if line.kind == "blank":
            continue
        text = line.text
        if line.kind != "text" or len(text) > MAX_LABEL_CHARS or text.endswith("."):
            break
        if is_page_number(text) or text.lower() == "table of contents" or match_item_heading(text):
            break
        if sum(len(t) + 1 for t in taken) + len(text) > CAPTION_CHARS:
            break
        taken.append(text)
    return (" ".join(reversed(taken)) or None), len(taken)


def _table(lines: list[_Line]) -> list[list[str]] | None:
    """The rows of one table region as a grid (header first), or None when its columns are unclear."""
    rows = [line for line in lines if line.kind == "row"]
    anchors = _anchors(rows)
    if not anchors or len(anchors) > MAX_COLUMNS:
        return None
    width = len(anchors)
    label_edge = min(c.start for line in rows for c in _value_cells(line))
    header = [""] * (width + 1)
    body: list[list[str]] = []
    for line in lines:
        if line.kind == "blank":
            continue
        if line.kind == "header" or (line.kind == "text" and not body and line.cells[0].start >= label_edge):
            for cell in line.cells:
                if cell.end <= label_edge:
                    header[0] = f"{header[0]} {cell.text}".strip()
                    continue
                spanned = [i for i, a in enumerate(anchors) if cell.start - COLUMN_TOLERANCE <= a]
                columns = [_column(anchors, cell)] if line.kind == "header" else spanned
                for column in columns:
                    header[column + 1] = f"{header[column + 1]} {cell.text}".strip()
            continue
        values = _value_cells(line) if line.kind == "row" else []
        label = " ".join(c.text for c in line.cells if c not in values)
        row = [label] + [""] * width
        for cell in values:
            column = _column(anchors, cell) + 1
            row[column] = f"{row[column]} {cell.text}".strip()
        previous = body[-1] if body else None
        if previous and not any(previous[1:]) and label[:1].islower() and not previous[0].endswith(":"):
            row[0] = f"{previous[0]} {label}"  # a label wrapped over two lines
            body[-1] = row
        else:
            body.append(row)
    if sum(1 for row in body if any(row[1:])) < MIN_TABLE_ROWS:
        return None
    return [header, *body]


def layout_page_blocks(layout_text: str, page: int) -> list[RawBlock]:
    """Blocks of one page laid out as text: its tables as Markdown (their caption lines moved into them),
    everything else as paragraphs."""
    lines = [_classify(line) for line in layout_text.splitlines()]
    blocks: list[RawBlock] = []
    prose: list[str] = []

    def flush_prose() -> None:
        if prose:
            blocks.extend(paragraph_blocks("\n".join(prose), page))
            prose.clear()

    index = 0
    while index < len(lines):
        line = lines[index]
        if line.kind in ("row", "header"):
            end = _region_end(lines, index)
            region = lines[index:end]
            table = _table(region) if sum(1 for x in region if x.kind == "row") >= MIN_TABLE_ROWS else None
            if table is not None:
                caption, taken = _caption(lines, index)
                while taken:  # the caption lines go with the table, not before it as a paragraph
                    taken -= 1 if prose.pop() else 0
                flush_prose()
                blocks.extend(
                    RawBlock("table", part, page)
                    for part in write_table_parts(table, caption, TABLE_PART_CHARS)
                )
                index = end
                continue
        prose.append(normalise_line(" ".join(c.text for c in line.cells)) if line.cells else "")
        index += 1
    flush_prose()
    return blocks
