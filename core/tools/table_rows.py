"""Read Markdown-style table rows of a chunk ("| label | $ 7,339 | ... |") as labelled figures."""

from __future__ import annotations

import re
from dataclasses import dataclass

_NUMERIC_CELL = re.compile(r"^[\s$€£(]*-?[\d.,]+\s*%?\)?\s*$|^[—–-]+%?$")


@dataclass(frozen=True)
class TableRow:
    """One data row: its label, its line verbatim, and a readable rendering with column headers."""

    label: str
    line: str
    rendered: str
    values: tuple[str, ...] = ()
    caption: str = ""
    years: tuple[int | None, ...] = ()


def _year(header: str) -> int | None:
    m = re.search(r"(?:FY\s?|\b)((?:19|20)\d{2})\b", header)
    return int(m.group(1)) if m else None


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def table_rows(text: str) -> list[TableRow]:
    """Data rows with a text label and at least one figure, rendered as 'label: v1 (header1); v2 (header2)'."""
    rows: list[TableRow] = []
    header: list[str] = []
    caption = ""
    for line in text.splitlines():
        if not line.strip().startswith("|"):
            header = []
            # The line before a table usually names it ("Revenue by segment (in millions)").
            if line.strip():
                caption = line.strip() if len(line.strip()) <= 90 else ""
            continue
        cells = _cells(line)
        if all(re.fullmatch(r":?-{2,}:?", c) or not c for c in cells):
            continue  # the |---|---| separator
        values = [c for c in cells[1:] if c]
        numeric = [c for c in values if _NUMERIC_CELL.match(c)]
        label = cells[0]
        if not header and (not numeric or not label):
            header = [c for c in cells if c]
            continue
        if not label or not numeric or not re.search(r"[A-Za-z]", label):
            continue
        # Only label values with headers when they line up one to one; a guess would misstate figures.
        years: tuple[int | None, ...] = ()
        if header and len(header) == len(values):
            parts = [f"{v} ({h})" for v, h in zip(values, header, strict=True)]
            years = tuple(_year(h) for h in header)
        else:
            parts = values
        name = f"{caption} — {label}" if caption else label
        rows.append(
            TableRow(
                label=label,
                line=line.strip(),
                rendered=f"{name}: " + "; ".join(parts),
                values=tuple(values),
                caption=caption,
                years=years,
            )
        )
    return rows
