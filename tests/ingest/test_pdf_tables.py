"""PDF pages laid out as text become Markdown tables: rows with their label and one cell per period."""

from __future__ import annotations

from core.ingest.loaders.pdf_tables import layout_page_blocks, looks_tabular, may_be_tabular
from core.ingest.tables import TABLE_PART_CHARS

PAD = " " * 40


def _row(label: str, *values: str, width: int = 60) -> str:
    """A laid-out row: the label, then right-aligned values 14 characters apart, as pdf_layout lays a page out."""
    return label.ljust(width) + "".join(v.rjust(14) for v in values)


STATEMENT = "\n".join(
    [
        "Table of Contents",
        "",
        "Example Corp and Subsidiaries",
        "Consolidated Statement of Cash Flows",
        "",
        _row("(Millions)", "2018", "2017", "2016"),
        "Cash Flows from Operating Activities",
        _row("Net income", "$   5,363", "$   4,869", "$   5,058"),
        _row("  Depreciation and amortization", "1,488", "1,544", "1,474"),
        "  Net cash provided by (used in) operating",
        _row("  activities", "6,439", "6,240", "6,662"),
        _row("  Other — net", "(56)", "—", "76"),
        "",
        "The accompanying Notes are an integral part of this statement, and this sentence is long enough to be prose.",
        "",
        "60",
    ]
)


def _tables(blocks):
    return [b.text for b in blocks if b.kind == "table"]


def test_statement_rows_keep_label_and_one_cell_per_period() -> None:
    blocks = layout_page_blocks(STATEMENT, 60)
    (table,) = _tables(blocks)
    lines = table.splitlines()
    assert lines[0] == "Example Corp and Subsidiaries Consolidated Statement of Cash Flows"
    assert lines[1] == "| (Millions) | 2018 | 2017 | 2016 |"
    assert "| Net income | $ 5,363 | $ 4,869 | $ 5,058 |" in lines
    assert "| Depreciation and amortization | 1,488 | 1,544 | 1,474 |" in lines
    assert "| Other — net | (56) | — | 76 |" in lines
    # A section line is a row without values; a label wrapped over two lines is one row.
    assert "| Cash Flows from Operating Activities |  |  |  |" in lines
    assert "| Net cash provided by (used in) operating activities | 6,439 | 6,240 | 6,662 |" in lines
    assert all(b.page == 60 for b in blocks)


def test_text_around_a_table_stays_paragraphs() -> None:
    blocks = layout_page_blocks(STATEMENT, 60)
    texts = [b.text for b in blocks if b.kind != "table"]
    assert texts[0] == "Table of Contents"
    assert any(t.startswith("The accompanying Notes") for t in texts)
    assert not any("1,488" in t for t in texts)


def test_a_long_statement_repeats_caption_and_header_in_every_part() -> None:
    rows = [_row(f"Line item number {i}", f"{i},100", f"{i},200") for i in range(40)]
    page = "\n".join(["Consolidated Balance Sheets", _row("(In millions)", "2023", "2022"), *rows])
    tables = _tables(layout_page_blocks(page, 3))
    assert len(tables) > 1
    for part in tables:
        assert len(part) <= TABLE_PART_CHARS + 200
        assert part.startswith("Consolidated Balance Sheets\n| (In millions) | 2023 | 2022 |")
    assert sum(part.count("| Line item number") for part in tables) == 40


def test_a_new_period_header_under_rows_starts_the_next_table() -> None:
    page = "\n".join(
        [
            "Income before taxes:",
            _row("", "2022", "2021"),
            _row("U.S.", "1,000", "900"),
            _row("Foreign", "500", "400"),
            _row("Total", "1,500", "1,300"),
            "Effective tax rate reconciliation:",
            _row("", "2022", "2021"),
            _row("Statutory rate", "21.0%", "21.0%"),
            _row("State taxes", "1.8", "1.0"),
            _row("Effective rate", "22.8%", "22.0%"),
        ]
    )
    first, second = _tables(layout_page_blocks(page, 5))
    assert "| U.S. | 1,000 | 900 |" in first and "Statutory" not in first
    assert second.startswith("Effective tax rate reconciliation:\n|  | 2022 | 2021 |")
    assert "| Statutory rate | 21.0% | 21.0% |" in second


def test_prose_with_a_few_numbers_is_not_a_table() -> None:
    prose = "\n".join(
        [
            "In 2018, cash flows provided by operating activities increased $199 million compared to 2017,",
            "with the increase primarily made up of higher net income of $5,363 million.",
        ]
        * 10
    )
    assert not looks_tabular(prose)
    assert not _tables(layout_page_blocks(prose, 1))


def test_a_page_is_laid_out_when_lines_end_in_numbers_and_read_as_tables_when_rows_are_columns() -> None:
    plain_rows = "\n".join(f"Cost of sales {i} $ 111,934 $ 139,156" for i in range(6))
    plain_prose = "\n".join(
        ["Revenue grew in 2018, mostly in the second half.", "It rose to $5,363 million."] * 6
    )
    assert may_be_tabular(plain_rows)
    assert not may_be_tabular(plain_prose)  # numbers inside sentences do not end their lines
    laid_out = "\n".join(_row(f"Segment {i} sales", "1,234", "(56)") for i in range(6))
    assert looks_tabular(laid_out)
    assert not looks_tabular(STATEMENT)  # four rows: too few to be worth reading as a table
    # The same lines with single spaces (no columns) are prose, however many numbers they hold.
    assert not looks_tabular(
        "\n".join(" ".join(line.split()) + " in total." for line in laid_out.splitlines())
    )
