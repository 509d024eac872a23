"""The one table format in passages: Markdown rows ("| Revenue | $ 26,974 | $ 26,914 |"), written at
ingestion (HTML tables, PDF layout tables) and read back by every reader of figures and quotes.

A table is a caption line (optional), a header row, a `|---|` separator and data rows. A pipe inside a cell
is written escaped ("\\|"), so reading splits only on unescaped pipes. Large tables are written in parts,
each repeating the caption and the header, so that any passage holding a row also holds its header.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# --- writing -------------------------------------------------------------------------------------


def write_row(cells: list[str]) -> str:
    """One Markdown row, pipes inside cells escaped."""
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def write_table(table: list[list[str]], caption: str | None = None) -> str:
    """A Markdown table (first row as header) preceded by its caption line when there is one."""
    header, body = table[0], table[1:]
    lines = [caption.strip()] if caption else []
    lines.append(write_row(header))
    lines.append("|" + "|".join("---" for _ in header) + "|")
    lines.extend(write_row(row) for row in body)
    return "\n".join(lines)


def write_table_parts(table: list[list[str]], caption: str | None, max_chars: int) -> list[str]:
    """The table as one Markdown text, or several whose rows are split with the caption and header repeated."""
    whole = write_table(table, caption)
    if len(whole) <= max_chars or len(table) <= 2:
        return [whole]
    header, body = table[0], table[1:]
    fixed = len(write_table([header], caption)) + 1
    parts: list[str] = []
    current: list[list[str]] = []
    size = fixed
    for row in body:
        row_len = len(write_row(row)) + 1
        if current and size + row_len > max_chars:
            parts.append(write_table([header, *current], caption))
            current, size = [], fixed
        current.append(row)
        size += row_len
    if current:
        parts.append(write_table([header, *current], caption))
    return parts


# --- reading -------------------------------------------------------------------------------------

_PIPE_SPLIT_RE = re.compile(r"(?<!\\)\|")
_SEPARATOR_CELL_RE = re.compile(r":?-{2,}:?")
#: A cell holding one figure as printed: "$ 1,577", "(56)", "12.5 %", or a dash for none.
NUMERIC_CELL_RE = re.compile(r"^[\s$€£¥(\-–—]*[\d.,]+[\s%)]*$|^[\s$(]*[-–—]+[\s)]*$")


def is_table_line(line: str) -> bool:
    """True for a line of a Markdown table (it starts and ends with a pipe)."""
    stripped = line.strip()
    return stripped.startswith("|") and stripped.endswith("|") and len(stripped) > 1


def row_cells(line: str) -> list[str]:
    """The cells of a Markdown row, unescaped and stripped ("| a | b \\| c |" -> ["a", "b | c"])."""
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [c.strip().replace("\\|", "|") for c in _PIPE_SPLIT_RE.split(inner)]


def is_separator(cells: list[str]) -> bool:
    """True for the `|---|---|` line under a header."""
    return all(_SEPARATOR_CELL_RE.fullmatch(c) or not c for c in cells)


def is_numeric_cell(cell: str) -> bool:
    """True for a cell that holds one figure (or a dash for none): "$ 1,234", "(56)", "12.5 %", "—"."""
    return bool(NUMERIC_CELL_RE.match(cell))


@dataclass(frozen=True)
class TableLine:
    """One row of a Markdown table in a text: its cells, where it sits, and the table's context."""

    cells: tuple[str, ...]
    start: int  # offset of the line's first pipe in the text
    end: int  # offset after the line's last character
    line: str  # the row as written, stripped
    caption: str  # the line just above the table ("Revenue by segment (in millions)"), or ""
    table: int  # which table of the text it belongs to (0, 1, …)
    above_separator: bool  # the row right above the |---| line
    is_header: bool  # above the separator, or (without one) the first row with no figure or no label
    header: tuple[str, ...]  # the latest header row of this table (empty when it has none yet)

    @property
    def label(self) -> str:
        return self.cells[0] if self.cells else ""

    @property
    def numeric(self) -> list[int]:
        """Indices of the cells after the label that hold a figure."""
        return [k for k, c in enumerate(self.cells) if k > 0 and c and is_numeric_cell(c)]


def table_lines(text: str) -> list[TableLine]:
    """Every row of every Markdown table in `text`, in order (separator lines left out)."""
    out: list[TableLine] = []
    lines = text.splitlines(keepends=True)
    pos = 0
    caption = ""
    header: tuple[str, ...] = ()
    in_table = False
    seen_data = False
    table = -1
    for index, raw in enumerate(lines):
        start, pos = pos, pos + len(raw)
        if not is_table_line(raw):
            in_table, header, seen_data = False, (), False
            stripped = raw.strip()
            if stripped:
                caption = stripped if len(stripped) <= 90 else ""
            continue
        cells = row_cells(raw)
        if is_separator(cells):
            continue
        if not in_table:
            in_table, table = True, table + 1
        following = lines[index + 1] if index + 1 < len(lines) else ""
        above_separator = is_table_line(following) and is_separator(row_cells(following))
        has_figure = any(k > 0 and c and is_numeric_cell(c) for k, c in enumerate(cells))
        # The header is the row above the separator, or else the first row with no figure (or no label);
        # a row with no figure under the header ("ASSETS", "Revenue") only heads a group of rows.
        is_header = above_separator or (not header and not seen_data and (not has_figure or not cells[0]))
        if is_header:
            header = tuple(cells)
        else:
            seen_data = seen_data or has_figure
        begin = start + raw.index("|")
        out.append(
            TableLine(
                cells=tuple(cells),
                start=begin,
                end=start + len(raw.rstrip()),
                line=raw.strip(),
                caption=caption,
                table=table,
                above_separator=above_separator,
                is_header=is_header,
                header=header,
            )
        )
    return out
