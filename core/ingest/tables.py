"""HTML tables cleaned into rectangular grids (EDGAR spacer cells collapsed, "$" / ")" / "%" cells merged),
ready to be written in the one table format of core.text.markdown_table; PDF layout tables are read in
loaders/pdf_tables.py."""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.text.markdown_table import is_numeric_cell

_CURRENCY = {"$", "€", "£", "¥", "US$", "($", "$(", "(", "C$"}
_CLOSERS = {")", "%", ")%", "%)", "pts", "bps", "x"}
_BULLETS = {"•", "●", "◦", "▪", "■", "-", "–", "—", "*", "·", "o", "\uf0b7", "\uf0a7"}
_MARKER = re.compile(r"^\(?[0-9a-zA-Z]{1,3}[.)]$")

#: Largest Markdown table kept as one block; bigger ones are split by rows with the header repeated.
#: Tables run ~2-3 characters per MiniLM token, so this keeps a part within the default 220-token chunk.
TABLE_PART_CHARS = 480


@dataclass(slots=True)
class Cell:
    """One HTML table cell: its visible text and how many grid columns it spans."""

    text: str
    colspan: int = 1


def _grid(rows: list[list[Cell]]) -> tuple[list[list[str]], list[list[tuple[int, int]]]]:
    """Expand colspans into a rectangular grid; also return each row's (start, span) of spanning cells."""
    grid: list[list[str]] = []
    spans: list[list[tuple[int, int]]] = []
    for row in rows:
        slots: list[str] = []
        row_spans: list[tuple[int, int]] = []
        for cell in row:
            span = max(1, min(cell.colspan, 50))
            if span > 1 and cell.text:
                row_spans.append((len(slots), span))
            slots.append(cell.text)
            slots.extend([""] * (span - 1))
        grid.append(slots)
        spans.append(row_spans)
    width = max((len(r) for r in grid), default=0)
    for slots in grid:
        slots.extend([""] * (width - len(slots)))
    return grid, spans


def _merge_symbols(slots: list[str]) -> None:
    """Glue "$" onto the number after it and ")" / "%" onto the number before it, in place."""
    for j, text in enumerate(slots):
        if text in _CURRENCY:
            nxt = next((k for k in range(j + 1, len(slots)) if slots[k]), None)
            if nxt is not None and is_numeric_cell(slots[nxt]):
                slots[nxt] = f"{text}{slots[nxt]}" if text.endswith("(") else f"{text} {slots[nxt]}"
                slots[j] = ""
        elif text in _CLOSERS:
            prev = next((k for k in range(j - 1, -1, -1) if slots[k]), None)
            if prev is not None:
                slots[prev] = f"{slots[prev]}{text}"
                slots[j] = ""


def _align_spans(grid: list[list[str]], spans: list[list[tuple[int, int]]]) -> None:
    """Move a spanning header's text to the column under it that actually holds data."""
    for r, row_spans in enumerate(spans):
        for start, span in row_spans:
            text = grid[r][start]
            if not text:
                continue
            counts = [
                (sum(1 for rr in range(len(grid)) if rr != r and grid[rr][c]), c)
                for c in range(start, min(start + span, len(grid[r])))
            ]
            best_count, best_col = max(counts, key=lambda x: (x[0], -x[1]))
            if best_count > 0 and best_col != start and not grid[r][best_col]:
                grid[r][best_col], grid[r][start] = text, ""


def clean_table(rows: list[list[Cell]]) -> list[list[str]]:
    """A rectangular table of non-empty rows and columns, with symbols merged into their numbers."""
    rows = [[Cell(" ".join(c.text.split()), c.colspan) for c in row] for row in rows]
    grid, spans = _grid(rows)
    for slots in grid:
        _merge_symbols(slots)
    _align_spans(grid, spans)
    grid = [slots for slots in grid if any(slots)]
    if not grid:
        return []
    keep = [c for c in range(len(grid[0])) if any(slots[c] for slots in grid)]
    return _merge_header_rows([[slots[c] for c in keep] for slots in grid])


def _merge_header_rows(table: list[list[str]]) -> list[list[str]]:
    """Fold stacked header rows ("Year Ended" over the dates) into one, so a repeated header says it all."""
    count = 0
    while count < min(4, len(table) - 1) and not table[count][0] and len(table[count]) > 1:
        count += 1
    if count < 2:
        return table
    header = [" ".join(row[c] for row in table[:count] if row[c]) for c in range(len(table[0]))]
    return [header, *table[count:]]


def is_layout_table(table: list[list[str]]) -> bool:
    """True when the "table" only lays out prose: single cells, bullets, or a heading split in two cells."""
    if not table:
        return True
    filled = [[c for c in row if c] for row in table]
    if all(len(row) <= 1 for row in filled):
        return True
    if all(
        len(row) <= 2 and (len(row) < 2 or row[0] in _BULLETS or bool(_MARKER.match(row[0])))
        for row in filled
    ):
        return True
    cells = [c for row in filled for c in row]
    return len(table) == 1 and len(cells) <= 3 and not any(is_numeric_cell(c) for c in cells)


def layout_lines(table: list[list[str]]) -> list[str]:
    """The prose of a layout table, one paragraph per row."""
    return [" ".join(c for c in row if c) for row in table if any(row)]
