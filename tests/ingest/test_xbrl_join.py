"""Tagged figures joined to the facts read from the same printed table rows: concept, members, each column's
tagged value, and a sentence where printed and tagged disagree."""

from __future__ import annotations

import pytest

from core.finance.facts import read_facts
from core.ingest.chunker import chunk_sections
from core.ingest.context import add_context
from core.ingest.parse import parse_filing
from core.ingest.sections import split_sections
from core.ingest.xbrl import read_inline_xbrl
from core.ingest.xbrl_join import filing_facts, join_tagged
from core.models import Chunk

FILING = "a" * 64


def _context(cid: str, period: str, member: str = "") -> str:
    segment = (
        f'<xbrli:segment><xbrldi:explicitMember dimension="us-gaap:StatementBusinessSegmentsAxis">{member}'
        "</xbrldi:explicitMember></xbrli:segment>"
        if member
        else ""
    )
    return (
        f'<xbrli:context id="{cid}"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">1</xbrli:identifier>'
        f"{segment}</xbrli:entity><xbrli:period>{period}</xbrli:period></xbrli:context>"
    )


FY25 = "<xbrli:startDate>2025-01-01</xbrli:startDate><xbrli:endDate>2025-12-31</xbrli:endDate>"
FY24 = "<xbrli:startDate>2024-01-01</xbrli:startDate><xbrli:endDate>2024-12-31</xbrli:endDate>"


def _tag(name: str, context: str, text: str, unit: str = "usd", scale: int = 6, extra: str = "") -> str:
    scaled = f' scale="{scale}"' if scale else ""
    return (
        f'<ix:nonFraction name="{name}" contextRef="{context}" unitRef="{unit}" decimals="-6"{scaled}'
        f' format="ixt:num-dot-decimal"{extra}>{text}</ix:nonFraction>'
    )


def _row(label: str, *cells: str) -> str:
    return f"<tr><td>{label}</td>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"


HEADER = "<tr><td></td><td>Year Ended</td><td></td><td></td><td></td></tr>" + _row(
    "", "", "Dec 31, 2025", "", "Dec 31, 2024"
)

STATEMENT = (
    "<p><b>CONSOLIDATED STATEMENTS OF INCOME</b></p><p>(In millions, except per share data)</p><table>"
    + HEADER
    + _row(
        "Revenue",
        "$",
        _tag("us-gaap:Revenues", "c25", "1,234"),
        "$",
        _tag("us-gaap:Revenues", "c24", "1,100"),
    )
    # A cost printed in brackets and tagged positive (no sign attribute): not a disagreement.
    + _row(
        "Cost of revenue",
        "",
        f"({_tag('us-gaap:CostOfRevenue', 'c25', '500')})",
        "",
        f"({_tag('us-gaap:CostOfRevenue', 'c24', '450')})",
    )
    # A loss printed in brackets and tagged negative (sign="-").
    + _row(
        "Other income (expense), net",
        "",
        "(" + _tag("us-gaap:NonoperatingIncomeExpense", "c25", "48", extra=' sign="-"') + ")",
        "",
        _tag("us-gaap:NonoperatingIncomeExpense", "c24", "12"),
    )
    # Two tags on one cell (a nested duplicate): one value.
    + _row(
        "Net income",
        "$",
        _tag("us-gaap:NetIncomeLoss", "c25", _tag("us-gaap:ProfitLoss", "c25", "686")),
        "$",
        _tag("us-gaap:NetIncomeLoss", "c24", "638"),
    )
    + _row(
        "Diluted net income per share",
        "$",
        _tag("us-gaap:EarningsPerShareDiluted", "c25", "1.74", "usdPerShare", 0),
        "$",
        _tag("us-gaap:EarningsPerShareDiluted", "c24", "1.62", "usdPerShare", 0),
    )
    + "</table>"
)

SEGMENTS = (
    "<p><b>Revenue by reportable segment (In millions)</b></p><table>"
    + HEADER
    + _row(
        "Cloud",
        "$",
        _tag("us-gaap:Revenues", "c25cloud", "900"),
        "$",
        _tag("us-gaap:Revenues", "c24cloud", "800"),
    )
    + _row(
        "Devices",
        "",
        _tag("us-gaap:Revenues", "c25dev", "334"),
        "",
        _tag("us-gaap:Revenues", "c24dev", "300"),
    )
    + "</table>"
)

# The statement's revenue again in a note, tagged again: a duplicate fact in another table.
NOTE = (
    "<p><b>Revenue recognition (In millions)</b></p><table>"
    + HEADER
    + _row(
        "Revenue",
        "$",
        _tag("us-gaap:Revenues", "c25", "1,234"),
        "$",
        _tag("us-gaap:Revenues", "c24", "1,100"),
    )
    + _row("Deferred revenue", "$", _tag("us-gaap:ContractWithCustomerLiability", "c25", "75"), "$", "61")
    + "</table>"
)

HTML = f"""<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:ix="http://www.xbrl.org/2013/inlineXBRL"
  xmlns:xbrli="http://www.xbrl.org/2003/instance" xmlns:xbrldi="http://xbrl.org/2006/xbrldi">
<head><title>Acme 10-K</title></head><body>
<div style="display:none"><ix:header><ix:resources>
{_context("c25", FY25)}{_context("c24", FY24)}
{_context("c25cloud", FY25, "acme:CloudMember")}{_context("c24cloud", FY24, "acme:CloudMember")}
{_context("c25dev", FY25, "acme:DevicesMember")}{_context("c24dev", FY24, "acme:DevicesMember")}
<xbrli:unit id="usd"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit>
<xbrli:unit id="usdPerShare"><xbrli:divide><xbrli:unitNumerator><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unitNumerator>
<xbrli:unitDenominator><xbrli:measure>xbrli:shares</xbrli:measure></xbrli:unitDenominator></xbrli:divide></xbrli:unit>
</ix:resources></ix:header></div>
<p>UNITED STATES SECURITIES AND EXCHANGE COMMISSION</p><p>FORM 10-K</p>
<p>For the fiscal year ended December 31, 2025</p><p>Acme Corporation</p>
<p><b>Item 7. Management's Discussion and Analysis</b></p>
<p>Revenue grew in fiscal 2025 on demand for cloud services across every region we serve.</p>
<p><b>Item 8. Financial Statements and Supplementary Data</b></p>
{STATEMENT}{SEGMENTS}{NOTE}
</body></html>"""


def _words(text: str) -> int:
    return len(text.split())


def _chunks(data: bytes) -> list[Chunk]:
    parsed = parse_filing(data, "html")
    chunks = chunk_sections(
        parsed,
        split_sections(parsed),
        filing_id=FILING,
        count_tokens=_words,
        max_tokens=220,
        overlap_tokens=0,
    )
    return add_context(parsed, chunks)


@pytest.fixture(scope="module")
def facts():
    data = HTML.encode()
    return filing_facts(FILING, _chunks(data), data, "html")


def _fact(facts, label, table_word=""):
    found = [f for f in facts if f.label == label and table_word.lower() in f.table.lower()]
    assert found, [(f.label, f.table) for f in facts]
    return found


def test_rows_get_their_concept_and_each_column_its_tagged_value_in_units(facts) -> None:
    revenue = _fact(facts, "Revenue", "income")[0]
    assert revenue.concept == "us-gaap:Revenues" and revenue.concept_label == "Revenues"
    assert revenue.dimensions == [] and revenue.mismatch is None
    assert [(v.fiscal_year, v.tagged) for v in revenue.values] == [(2025, 1.234e9), (2024, 1.1e9)]
    eps = _fact(facts, "Diluted net income per share")[0]
    assert eps.per_share and [v.tagged for v in eps.values] == [1.74, 1.62] and eps.mismatch is None


def test_bracketed_figures_keep_the_sign_the_filing_tags(facts) -> None:
    cost = _fact(facts, "Cost of revenue")[0]
    assert [v.number for v in cost.values] == [-500, -450]
    assert [v.tagged for v in cost.values] == [500e6, 450e6] and cost.mismatch is None
    other = _fact(facts, "Other income (expense), net")[0]
    assert [v.tagged for v in other.values] == [-48e6, 12e6] and other.mismatch is None


def test_a_cell_tagged_twice_gives_one_value_and_the_outer_concept(facts) -> None:
    net = _fact(facts, "Net income")[0]
    assert net.concept == "us-gaap:NetIncomeLoss"
    assert [v.tagged for v in net.values] == [686e6, 638e6]


def test_segment_rows_carry_their_members(facts) -> None:
    cloud = _fact(facts, "Cloud")[0]
    devices = _fact(facts, "Devices")[0]
    assert cloud.concept == devices.concept == "us-gaap:Revenues"
    assert cloud.dimensions == ["acme:CloudMember"] and devices.dimensions == ["acme:DevicesMember"]
    assert [v.tagged for v in cloud.values] == [900e6, 800e6]


def test_the_same_row_tagged_in_two_tables_joins_each_its_own(facts) -> None:
    note = _fact(facts, "Revenue", "recognition")[0]
    assert note.concept == "us-gaap:Revenues" and [v.tagged for v in note.values] == [1.234e9, 1.1e9]
    deferred = _fact(facts, "Deferred revenue")[0]
    # Only the first column is tagged; the second keeps no tagged value.
    assert [v.tagged for v in deferred.values] == [75e6, None] and deferred.mismatch is None


def _page_chunk(text: str) -> Chunk:
    return Chunk(
        chunk_id=f"{FILING}-0",
        filing_id=FILING,
        section="Item 8",
        page=1,
        chunk_index=0,
        char_start=0,
        char_end=len(text),
        text=text,
    )


def test_a_printed_figure_that_differs_from_its_tag_is_explained() -> None:
    # The page text as read has 1,243 where the filing prints and tags 1,234.
    text = """CONSOLIDATED STATEMENTS OF INCOME (In millions, except per share data)
|  | Dec 31, 2025 | Dec 31, 2024 |
|---|---|---|
| Revenue | $ 1,243 | $ 1,100 |
| Cost of revenue | (500) | (450) |"""
    read = read_facts(FILING, [_page_chunk(text)])
    joined = join_tagged(read, read_inline_xbrl(HTML.encode()))
    revenue = joined[0]
    assert revenue.concept == "us-gaap:Revenues"
    assert revenue.values[0].tagged == 1.234e9
    assert revenue.mismatch == "Printed $1,243 for FY2025 but tagged 1,234 million."
    assert joined[1].mismatch is None


def test_a_column_whose_header_year_disagrees_with_its_tagged_period_is_flagged() -> None:
    # The header read from the page names 2023 for the column the filing tags as the year ending 2024-12-31.
    text = """CONSOLIDATED STATEMENTS OF INCOME (In millions, except per share data)
|  | 2025 | 2023 |
|---|---|---|
| Revenue | $ 1,234 | $ 1,100 |"""
    joined = join_tagged(read_facts(FILING, [_page_chunk(text)]), read_inline_xbrl(HTML.encode()))
    assert joined[0].values[1].tagged == 1.1e9
    assert joined[0].mismatch == (
        "The column read as FY2023 is tagged for the period ending 2024-12-31, "
        "so the period read from the table header is suspect."
    )


def test_facts_of_a_filing_without_inline_xbrl_are_unchanged() -> None:
    text = """CONSOLIDATED STATEMENTS OF INCOME (In millions)
|  | 2025 | 2024 |
|---|---|---|
| Revenue | $ 1,234 | $ 1,100 |"""
    read = read_facts(FILING, [_page_chunk(text)])
    assert join_tagged(read, []) == read
    assert filing_facts(FILING, [_page_chunk(text)], b"%PDF-1.7 not html", "pdf") == read


def test_an_ingested_html_filing_keeps_its_facts_with_their_concepts(settings) -> None:
    from core.index.store import IndexStore
    from core.ingest.pipeline import ingest_file

    store = IndexStore.open(settings)
    result = ingest_file(store, HTML.encode(), "acme_10k_fy2025.htm")
    assert result.ok, result.error
    stored = store.catalog.list_facts(result.filing.filing_id)
    revenue = next(f for f in stored if f.label == "Revenue")
    assert revenue.concept == "us-gaap:Revenues" and revenue.values[0].tagged == 1.234e9
    assert next(f for f in stored if f.label == "Cloud").dimensions == ["acme:CloudMember"]
