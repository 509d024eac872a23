"""HTML tables become clean Markdown with captions; layout tables stay prose; big tables split by rows."""

from __future__ import annotations

from core.ingest.parse import parse_filing
from core.ingest.tables import Cell, clean_table, is_layout_table
from core.text.markdown_table import write_table, write_table_parts

# An EDGAR-style financial table: spacer cells, "$" and ")" in cells of their own, headers spanning columns.
EDGAR_TABLE = """
<p><b>Revenue by Reportable Segments</b></p>
<table>
<tr><td></td><td colspan="3">Year Ended</td><td></td><td colspan="3"></td></tr>
<tr><td></td><td colspan="3"><b>Jan 29, 2023</b></td><td></td><td colspan="3"><b>Jan 30, 2022</b></td></tr>
<tr><td>Compute &amp; Networking</td><td>$</td><td>15,068</td><td></td><td></td><td>$</td><td>11,046</td><td></td></tr>
<tr><td>Graphics</td><td></td><td>11,906</td><td></td><td></td><td></td><td>15,868</td><td></td></tr>
<tr><td>Operating loss</td><td>$</td><td>(4,890</td><td>)</td><td></td><td>$</td><td>(3,049</td><td>)</td></tr>
<tr><td>Change</td><td></td><td>36</td><td>%</td><td></td><td></td><td>(7</td><td>)%</td></tr>
<tr><td></td><td></td><td></td><td></td><td></td><td></td><td></td><td></td></tr>
</table>
"""


def _page(body: str) -> bytes:
    return f"<html><body><p>ITEM 7. MANAGEMENT'S DISCUSSION AND ANALYSIS</p>{body}</body></html>".encode()


def test_edgar_table_is_cleaned_to_markdown_with_caption():
    parsed = parse_filing(_page(EDGAR_TABLE), "html")
    tables = [b for b in parsed.blocks if b.kind == "table"]
    assert len(tables) == 1
    lines = tables[0].text.split("\n")
    assert lines[0] == "Revenue by Reportable Segments"
    assert "| Compute & Networking | $ 15,068 | $ 11,046 |" in lines
    assert "| Graphics | 11,906 | 15,868 |" in lines
    assert "| Operating loss | $ (4,890) | $ (3,049) |" in lines
    assert "| Change | 36% | (7)% |" in lines
    widths = {line.count("|") for line in lines[1:]}
    assert widths == {4}, "spacer columns are dropped and every row has the same columns"
    assert any("Jan 29, 2023" in line and "Jan 30, 2022" in line for line in lines[1:3])


def test_layout_tables_are_text_not_tables():
    body = (
        "<table><tr><td>Item 1A.</td><td>Risk Factors</td></tr></table>"
        "<table><tr><td>•</td><td>Our revenue depends on a small number of customers.</td></tr>"
        "<tr><td>•</td><td>We face intense competition.</td></tr></table>"
        "<table><tr><td><p>A long paragraph wrapped in a single table cell, as EDGAR often does.</p></td></tr></table>"
    )
    parsed = parse_filing(_page(body), "html")
    assert all(b.kind != "table" for b in parsed.blocks)
    texts = [b.text for b in parsed.blocks]
    assert "Item 1A. Risk Factors" in texts
    assert "• Our revenue depends on a small number of customers." in texts
    assert "A long paragraph wrapped in a single table cell, as EDGAR often does." in texts


def test_clean_table_drops_empty_rows_and_columns():
    rows = [[Cell(""), Cell("2024"), Cell(""), Cell("2023")], [Cell(""), Cell(""), Cell(""), Cell("")],
            [Cell("Revenue"), Cell("10"), Cell(""), Cell("9")]]  # fmt: skip
    assert clean_table(rows) == [["", "2024", "2023"], ["Revenue", "10", "9"]]
    assert not is_layout_table(clean_table(rows))


def test_large_table_is_split_by_rows_with_the_header_repeated():
    table = [["Year", "Revenue", "Margin"]] + [
        [str(2000 + i), f"{i * 1000:,}", f"{i % 50}%"] for i in range(60)
    ]
    parts = write_table_parts(table, "Ten-year summary", max_chars=300)
    assert len(parts) > 3
    for part in parts:
        lines = part.split("\n")
        assert lines[0] == "Ten-year summary" and lines[1] == "| Year | Revenue | Margin |"
        assert len(part) <= 300
    rows = [line for part in parts for line in part.split("\n")[3:]]
    assert rows == write_table(table).split("\n")[2:], "every row once, in order"


def test_pipes_in_cells_are_escaped():
    assert "a \\| b" in write_table([["h1", "h2"], ["a | b", "1"]])


def test_big_html_table_parts_are_separate_blocks():
    rows = "".join(f"<tr><td>Line item number {i}</td><td>$</td><td>{i},000</td></tr>" for i in range(80))
    parsed = parse_filing(_page(f"<p><b>Balance sheet</b></p><table>{rows}</table>"), "html")
    tables = [b for b in parsed.blocks if b.kind == "table"]
    assert len(tables) > 1
    assert all(t.text.startswith("Balance sheet\n| Line item number 0 |") for t in tables)
