"""Inline XBRL reader: values, periods, dimensions, units and the table row each fact is printed in."""

from __future__ import annotations

import datetime
import time

import pytest

from core.ingest.xbrl import TaggedFact, XbrlPeriod, concept_label, read_inline_xbrl
from tests.conftest import shared_file

# Tags and attributes in EDGAR's mixed case, behind an XML declaration, as real filings are.
_HEADER = """<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:ix="http://www.xbrl.org/2013/inlineXBRL"
  xmlns:xbrli="http://www.xbrl.org/2003/instance" xmlns:xbrldi="http://xbrl.org/2006/xbrldi"
  xmlns:ixt="http://www.xbrl.org/inlineXBRL/transformation/2020-02-12"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<head><title>Sample 10-K</title></head>
<body>
<div style="display:none"><ix:header>
<ix:hidden>
  <ix:nonFraction name="dei:EntityCommonStockSharesOutstanding" contextRef="c-i" unitRef="shares"
    decimals="-7" scale="9" format="ixt:num-dot-decimal" id="f-hidden">2.47</ix:nonFraction>
</ix:hidden>
<ix:resources>
  <xbrli:context id="c-fy23"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0001045810</xbrli:identifier></xbrli:entity>
    <xbrli:period><xbrli:startDate>2022-01-31</xbrli:startDate><xbrli:endDate>2023-01-29</xbrli:endDate></xbrli:period></xbrli:context>
  <xbrli:context id="c-fy22"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0001045810</xbrli:identifier></xbrli:entity>
    <xbrli:period><xbrli:startDate>2021-02-01</xbrli:startDate><xbrli:endDate>2022-01-30</xbrli:endDate></xbrli:period></xbrli:context>
  <xbrli:context id="c-i"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0001045810</xbrli:identifier></xbrli:entity>
    <xbrli:period><xbrli:instant>2023-01-29</xbrli:instant></xbrli:period></xbrli:context>
  <xbrli:context id="c-seg"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0001045810</xbrli:identifier>
    <xbrli:segment><xbrldi:explicitMember dimension="us-gaap:StatementBusinessSegmentsAxis">nvda:ComputeAndNetworkingMember</xbrldi:explicitMember></xbrli:segment></xbrli:entity>
    <xbrli:period><xbrli:startDate>2022-01-31</xbrli:startDate><xbrli:endDate>2023-01-29</xbrli:endDate></xbrli:period></xbrli:context>
  <xbrli:unit id="usd"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit>
  <xbrli:unit id="shares"><xbrli:measure>xbrli:shares</xbrli:measure></xbrli:unit>
  <xbrli:unit id="usdPerShare"><xbrli:divide><xbrli:unitNumerator><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unitNumerator>
    <xbrli:unitDenominator><xbrli:measure>xbrli:shares</xbrli:measure></xbrli:unitDenominator></xbrli:divide></xbrli:unit>
</ix:resources>
</ix:header></div>
"""

_BODY = """
<table><tr><td>Delaware</td><td>94-3177549</td></tr></table>
<p>We operate in <ix:nonFraction name="us-gaap:NumberOfReportableSegments" contextRef="c-fy23" unitRef="segment"
  decimals="INF" format="ixt-sec:numwordsen" id="f-words">two</ix:nonFraction> segments.</p>
<table>
  <tr><td></td><td colspan="3">Year Ended</td></tr>
  <tr><td></td><td colspan="2">Jan 29, 2023</td><td colspan="2">Jan 30, 2022</td></tr>
  <tr><td><span>Revenue</span></td><td>$</td>
    <td><span><ix:nonFraction unitRef="usd" contextRef="c-fy23" decimals="-6" name="us-gaap:Revenues"
      format="ixt:num-dot-decimal" scale="6" id="f-rev23">26,974</ix:nonFraction>&#160;</span></td>
    <td>$</td><td><ix:nonFraction unitRef="usd" contextRef="c-fy22" decimals="-6" name="us-gaap:Revenues"
      format="ixt:numdotdecimal" scale="6" id="f-rev22">26,914</ix:nonFraction></td></tr>
  <tr><td>Other income (expense), net</td>
    <td>(<ix:nonFraction unitRef="usd" contextRef="c-fy23" decimals="-6" name="us-gaap:NonoperatingIncomeExpense"
      scale="6" sign="-" id="f-other23">48</ix:nonFraction>)</td>
    <td><ix:nonFraction unitRef="usd" contextRef="c-fy22" decimals="-6" name="us-gaap:NonoperatingIncomeExpense"
      scale="6" id="f-other22">107</ix:nonFraction></td></tr>
  <tr><td>Acquisition termination cost</td>
    <td><ix:nonFraction unitRef="usd" contextRef="c-fy23" decimals="-6" name="us-gaap:OtherNonrecurringExpense"
      scale="6" format="ixt:fixed-zero" id="f-zero23">&#8212;</ix:nonFraction></td>
    <td><ix:nonFraction unitRef="usd" contextRef="c-fy22" decimals="-6" name="us-gaap:OtherNonrecurringExpense"
      scale="6" format="ixt:num-dot-decimal" id="f-zero22">1,353</ix:nonFraction></td></tr>
  <tr><td>Diluted net income per share</td><td>$</td>
    <td><ix:nonFraction unitRef="usdPerShare" contextRef="c-fy23" decimals="2" name="us-gaap:EarningsPerShareDiluted"
      format="ixt:num-dot-decimal" id="f-eps23">1.74</ix:nonFraction></td>
    <td>$</td><td><ix:nonFraction unitRef="usdPerShare" contextRef="c-fy22" decimals="2"
      name="us-gaap:EarningsPerShareDiluted" format="ixt:num-dot-decimal" id="f-eps22">3.85</ix:nonFraction></td></tr>
  <tr><td><p><span>Compute &amp; Networking</span></p></td><td>$</td>
    <td><div><span style="font-weight:bold"><ix:nonFraction unitRef="usd" contextRef="c-seg" decimals="-6"
      name="us-gaap:Revenues" format="ixt:num-dot-decimal" scale="6" id="f-seg">15,068</ix:nonFraction></span></div></td>
    <td>12 %</td></tr>
</table>
<table>
  <tr><td>Total assets</td><td>$</td>
    <td><ix:nonFraction unitRef="usd" contextRef="c-i" decimals="-6" name="us-gaap:Assets"
      format="ixt:num-dot-decimal" scale="6" id="f-assets">41,182</ix:nonFraction></td></tr>
  <tr><td>Commitments and contingencies</td>
    <td><ix:nonFraction unitRef="usd" contextRef="c-i" xsi:nil="true" name="us-gaap:CommitmentsAndContingencies"
      id="f-nil"></ix:nonFraction></td></tr>
  <tr><td>Total revenue</td><td>$</td>
    <td><ix:nonFraction unitRef="usd" contextRef="c-fy23" decimals="-6" name="us-gaap:Revenues"
      format="ixt:num-dot-decimal" scale="6" id="f-rev23-again">26,974</ix:nonFraction></td></tr>
  <tr><td></td><td>$</td>
    <td><ix:nonFraction unitRef="usd" contextRef="c-i" decimals="-6" name="us-gaap:Liabilities"
      format="ixt:num-dot-decimal" scale="6" id="f-total">11,857</ix:nonFraction></td></tr>
  <tr><td>Preferred stock, $0.001 par value; <ix:nonFraction unitRef="shares" contextRef="c-i" decimals="-6"
      name="us-gaap:PreferredStockSharesAuthorized" scale="6" id="f-in-label">2</ix:nonFraction> shares authorized</td>
    <td><ix:nonFraction unitRef="usd" contextRef="c-i" decimals="-6" name="us-gaap:PreferredStockValue"
      format="ixt:fixed-zero" scale="6" id="f-preferred">&#8212;</ix:nonFraction></td></tr>
</table>
</body></html>
"""

FIXTURE = _HEADER + _BODY


@pytest.fixture(scope="module")
def facts() -> dict[str, TaggedFact]:
    """The fixture's facts by element id."""
    return {f.element_id or "": f for f in read_inline_xbrl(FIXTURE.encode("utf-8"))}


def test_reads_every_numeric_fact_in_document_order() -> None:
    ids = [f.element_id for f in read_inline_xbrl(FIXTURE.encode("utf-8"))]
    assert ids == [
        "f-hidden", "f-words", "f-rev23", "f-rev22", "f-other23", "f-other22", "f-zero23", "f-zero22",
        "f-eps23", "f-eps22", "f-seg", "f-assets", "f-nil", "f-rev23-again", "f-total",
        "f-in-label", "f-preferred",
    ]  # fmt: skip


def test_values_are_scaled_and_signed(facts: dict[str, TaggedFact]) -> None:
    rev = facts["f-rev23"]
    assert rev.value == 26_974_000_000.0
    assert (rev.printed, rev.scale, rev.decimals, rev.unit) == ("26,974", 6, "-6", "USD")
    assert facts["f-rev22"].value == 26_914_000_000.0  # the older "numdotdecimal" spelling
    assert facts["f-other23"].value == -48_000_000.0
    assert facts["f-other23"].printed == "48"  # the parentheses are outside the tag
    assert facts["f-other22"].value == 107_000_000.0  # no format attribute: plain digits
    assert facts["f-zero23"].value == 0.0 and facts["f-zero23"].printed == "—"
    assert facts["f-zero22"].value == 1_353_000_000.0
    eps = facts["f-eps23"]
    assert (eps.value, eps.scale, eps.decimals, eps.unit) == (1.74, 0, "2", "USD/shares")
    assert facts["f-words"].value == 2.0 and facts["f-words"].decimals == "INF"
    assert facts["f-nil"].value is None and facts["f-nil"].printed == ""
    assert facts["f-hidden"].value == 2_470_000_000.0 and facts["f-hidden"].unit == "shares"


def test_periods_dimensions_and_labels(facts: dict[str, TaggedFact]) -> None:
    rev = facts["f-rev23"]
    assert rev.period == XbrlPeriod(datetime.date(2022, 1, 31), datetime.date(2023, 1, 29))
    assert not rev.period.instant and rev.period.months == 12
    assert facts["f-rev22"].period.end == datetime.date(2022, 1, 30)
    assets = facts["f-assets"]
    assert assets.period.instant and assets.period.start is None and assets.period.months is None
    assert assets.period.end == datetime.date(2023, 1, 29)
    assert rev.dimensions == () and rev.context_id == "c-fy23"
    seg = facts["f-seg"]
    assert seg.dimensions == (("us-gaap:StatementBusinessSegmentsAxis", "nvda:ComputeAndNetworkingMember"),)
    assert (seg.concept, seg.label, seg.value) == ("us-gaap:Revenues", "Revenues", 15_068_000_000.0)
    assert facts["f-eps23"].label == "Earnings Per Share Diluted"
    assert facts["f-words"].unit == "segment"  # a unitRef with no declared unit is kept as written


def test_table_row_and_column(facts: dict[str, TaggedFact]) -> None:
    place = {key: (f.table_index, f.row_index, f.row_label, f.column) for key, f in facts.items()}
    # Table 0 is the cover table without facts: indices count every <table> of the document.
    assert place["f-rev23"] == (1, 2, "Revenue", 0)
    assert place["f-rev22"] == (1, 2, "Revenue", 1)
    assert place["f-other23"] == (1, 3, "Other income (expense), net", 0)
    assert place["f-other22"] == (1, 3, "Other income (expense), net", 1)
    assert place["f-zero23"] == (1, 4, "Acquisition termination cost", 0)
    assert place["f-eps22"] == (1, 5, "Diluted net income per share", 1)
    assert place["f-seg"] == (1, 6, "Compute & Networking", 0)
    assert place["f-assets"] == (2, 0, "Total assets", 0)
    assert place["f-nil"] == (2, 1, "Commitments and contingencies", 0)
    # A total row with no label: the bare "$" cell is not taken for one.
    assert place["f-total"] == (2, 3, "", 0)
    # A fact inside the label text gets no column, so the row's amount stays in column 0.
    label = "Preferred stock, $0.001 par value; 2 shares authorized"
    assert place["f-in-label"] == (2, 4, label, -1)
    assert place["f-preferred"] == (2, 4, label, 0)
    assert facts["f-in-label"].value == 2_000_000.0


def test_duplicate_fact_kept_in_each_row(facts: dict[str, TaggedFact]) -> None:
    first, again = facts["f-rev23"], facts["f-rev23-again"]
    assert (first.concept, first.context_id, first.value) == (again.concept, again.context_id, again.value)
    assert (again.table_index, again.row_index, again.row_label) == (2, 2, "Total revenue")


def test_hidden_and_text_facts_sit_in_no_table(facts: dict[str, TaggedFact]) -> None:
    for key in ("f-hidden", "f-words"):
        fact = facts[key]
        assert (fact.table_index, fact.row_index, fact.row_label, fact.column) == (-1, -1, "", -1)


def _one_fact(fmt: str | None, printed: str, extra: str = "") -> TaggedFact:
    attr = f' format="{fmt}"' if fmt else ""
    body = (
        f'<p><ix:nonFraction name="us-gaap:Cash" contextRef="c-i" unitRef="usd"{attr}{extra}>'
        f"{printed}</ix:nonFraction></p></body></html>"
    )
    hidden, fact = read_inline_xbrl((_HEADER + body).encode("utf-8"))
    assert hidden.element_id == "f-hidden"
    return fact


@pytest.mark.parametrize(
    ("fmt", "printed", "value"),
    [
        ("ixt:num-dot-decimal", "1,234.5", 1234.5),
        ("ixt:numdotdecimal", "1,234", 1234.0),
        (None, "1234.5", 1234.5),
        ("ixt:num-comma-decimal", "1.234,5", 1234.5),
        ("ixt:fixed-zero", "—", 0.0),
        ("ixt:zerodash", "–", 0.0),
        ("ixt-sec:numwordsen", "twenty-two", 22.0),
        ("ixt-sec:numwordsen", "one hundred fifty", 150.0),
        ("ixt-sec:numwordsen", "no", 0.0),
        ("ixt-sec:numwordsen", "None", 0.0),
    ],
)
def test_formats(fmt: str | None, printed: str, value: float) -> None:
    assert _one_fact(fmt, printed).value == value


def test_negative_scale_and_nested_tags() -> None:
    assert _one_fact("ixt:num-dot-decimal", "12.5", ' scale="-2"').value == pytest.approx(0.125)
    # A fact tagged twice: both concepts are facts, printed in the same place.
    nested = (
        '<table><tr><td>Cash</td><td><ix:nonFraction name="us-gaap:Cash" contextRef="c-i" unitRef="usd" '
        'scale="3" id="outer"><ix:nonFraction name="us-gaap:CashAndCashEquivalentsAtCarryingValue" '
        'contextRef="c-i" unitRef="usd" scale="3" id="inner">3,389</ix:nonFraction></ix:nonFraction>'
        "</td></tr></table></body></html>"
    )
    _, outer, inner = read_inline_xbrl((_HEADER + nested).encode("utf-8"))
    assert (outer.element_id, inner.element_id) == ("outer", "inner")
    assert outer.value == inner.value == 3_389_000.0
    assert (outer.row_label, outer.column) == (inner.row_label, inner.column) == ("Cash", 0)


def test_no_inline_xbrl_gives_nothing() -> None:
    assert (
        read_inline_xbrl(b"<html><body><table><tr><td>Revenue</td><td>5</td></tr></table></body></html>")
        == []
    )
    assert read_inline_xbrl(b"") == []


def test_concept_labels_and_months() -> None:
    assert concept_label("us-gaap:Revenues") == "Revenues"
    assert concept_label("us-gaap:DeferredRevenueCurrent") == "Deferred Revenue Current"
    assert (
        concept_label("us-gaap:NetCashProvidedByUsedInOperatingActivities")
        == "Net Cash Provided By Used In Operating Activities"
    )
    assert concept_label("nvda:NVDAStockAwards2023") == "NVDA Stock Awards 2023"
    d = datetime.date
    assert XbrlPeriod(d(2023, 1, 30), d(2024, 1, 28)).months == 12  # a 52-week year
    assert XbrlPeriod(d(2020, 1, 27), d(2021, 1, 31)).months == 12  # a 53-week year
    assert XbrlPeriod(d(2023, 10, 30), d(2024, 1, 28)).months == 3
    assert XbrlPeriod(d(2023, 1, 30), d(2023, 7, 30)).months == 6
    assert XbrlPeriod(d(2023, 1, 30), d(2023, 10, 29)).months == 9


# --- real filings --------------------------------------------------------------------------------------


def _read_real(name: str) -> list[TaggedFact]:
    data = shared_file("filings", name).read_bytes()
    started = time.perf_counter()
    facts = read_inline_xbrl(data)
    assert time.perf_counter() - started < 2.0, "a 10-K should be read in well under 2 s"
    return facts


def _find(facts: list[TaggedFact], concept: str, end: datetime.date, months: int | None) -> list[TaggedFact]:
    return [
        f
        for f in facts
        if f.concept == concept and not f.dimensions and f.period.end == end and f.period.months == months
    ]


@pytest.mark.slow
def test_nvidia_fy2023() -> None:
    facts = _read_real("NVDA_10K_FY2023.htm")
    assert 1000 <= len(facts) <= 2000
    assert sum(f.table_index >= 0 for f in facts) / len(facts) > 0.8
    revenue = _find(facts, "us-gaap:Revenues", datetime.date(2023, 1, 29), 12)
    income_statement = next(f for f in revenue if f.row_label == "Revenue")
    assert income_statement.value == 26_974_000_000.0
    assert (income_statement.printed, income_statement.unit, income_statement.column) == ("26,974", "USD", 0)
    assert income_statement.period.start == datetime.date(2022, 1, 31)
    assert all(f.value == 26_974_000_000.0 for f in revenue)  # printed again in the notes
    assert len(revenue) > 1
    (assets,) = _find(facts, "us-gaap:Assets", datetime.date(2023, 1, 29), None)
    assert (assets.value, assets.row_label) == (41_182_000_000.0, "Total assets")
    prior = _find(facts, "us-gaap:Revenues", datetime.date(2022, 1, 30), 12)
    assert {f.value for f in prior} == {26_914_000_000.0}
    segment = [
        f
        for f in facts
        if f.concept == "us-gaap:Revenues"
        and f.dimensions
        == (
            ("srt:ConsolidationItemsAxis", "us-gaap:OperatingSegmentsMember"),
            ("us-gaap:StatementBusinessSegmentsAxis", "nvda:ComputeAndNetworkingMember"),
        )
        and f.period.end == datetime.date(2023, 1, 29)
    ]
    assert segment and {f.value for f in segment} == {15_068_000_000.0}
    eps = _find(facts, "us-gaap:EarningsPerShareDiluted", datetime.date(2023, 1, 29), 12)
    assert eps and {(f.value, f.unit, f.decimals) for f in eps} == {(1.74, "USD/shares", "2")}


@pytest.mark.slow
def test_apple_fy2024() -> None:
    facts = _read_real("AAPL_10K_FY2024.htm")
    assert 500 <= len(facts) <= 2000
    sales = _find(
        facts, "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", datetime.date(2024, 9, 28), 12
    )
    assert sales and {f.value for f in sales} == {391_035_000_000.0}
    assert "Total net sales" in {f.row_label for f in sales}
    (assets,) = _find(facts, "us-gaap:Assets", datetime.date(2024, 9, 28), None)
    assert (assets.value, assets.row_label, assets.printed) == (364_980_000_000.0, "Total assets", "364,980")
    (prior_assets,) = _find(facts, "us-gaap:Assets", datetime.date(2023, 9, 30), None)
    assert (prior_assets.table_index, prior_assets.row_index) == (assets.table_index, assets.row_index)
    assert (assets.column, prior_assets.column) == (0, 1)
    # Other income/(expense), net: FY2024's "269" is income; FY2023's "(565)" is tagged sign="-".
    other = _find(facts, "us-gaap:NonoperatingIncomeExpense", datetime.date(2024, 9, 28), 12)
    assert "Other income/(expense), net" in {f.row_label for f in other}
    assert {f.value for f in other} == {269_000_000.0}
    earlier = _find(facts, "us-gaap:NonoperatingIncomeExpense", datetime.date(2023, 9, 30), 12)
    assert earlier and {(f.value, f.printed) for f in earlier} == {(-565_000_000.0, "565")}


@pytest.mark.slow
@pytest.mark.parametrize("name", ["NVDA_10K_FY2024.htm", "AAPL_10K_FY2023.htm"])
def test_other_filings_read_fast_with_hundreds_of_facts(name: str) -> None:
    facts = _read_real(name)
    assert len(facts) >= 500
    assert all(f.period.end.year >= 2000 for f in facts)
    assert all(f.value is not None for f in facts if f.concept != "us-gaap:CommitmentsAndContingencies")
