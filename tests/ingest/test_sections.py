"""Item detection: real filings (table of contents skipped) and the heading variants filings use."""

from __future__ import annotations

import itertools

import pytest

from core.ingest.parse import parse_filing
from core.ingest.sections import match_item_heading, match_part_heading, split_sections
from core.models import FRONT_MATTER, ITEM_TITLES, UNSECTIONED

REAL = [
    ("filings", "NVDA_10K_FY2023.htm"),
    ("filings", "AAPL_10K_FY2023.htm"),
    pytest.param(("filings", "UBER_10K_FY2021.pdf"), marks=pytest.mark.slow),
    pytest.param(("filings", "LYFT_10K_FY2021.pdf"), marks=pytest.mark.slow),
]
RISK_WORDS = ("could", "adversely", "may")


def _section_text(parsed, section) -> str:
    return "\n\n".join(b.text for b in parsed.blocks[section.start_block : section.end_block])


@pytest.mark.parametrize("parts", REAL)
def test_real_filing_items_found_past_the_table_of_contents(real_filing, parts):
    parsed, sections = real_filing(*parts)
    by_item = {s.item: s for s in sections}
    assert {"Item 1", "Item 1A", "Item 7", "Item 7A"} <= set(by_item), sorted(by_item)
    order = list(dict.fromkeys(s.item for s in sections if s.item in ITEM_TITLES))
    assert order == sorted(order, key=list(ITEM_TITLES).index), "Items first appear in filing order"
    # Sections tile the blocks: nothing dropped, nothing twice.
    assert sections[0].start_block == 0 and sections[-1].end_block == len(parsed.blocks)
    assert all(a.end_block == b.start_block for a, b in itertools.pairwise(sections))
    assert sections[0].item == FRONT_MATTER
    risk = _section_text(parsed, by_item["Item 1A"])
    assert len(risk) > 30_000 and all(word in risk for word in RISK_WORDS)
    assert len(_section_text(parsed, by_item["Item 1"])) > 8_000
    assert len(_section_text(parsed, by_item["Item 7"])) > 10_000
    assert len(_section_text(parsed, by_item["Item 7A"])) > 300
    # The contents page is front matter: the real Item 1A starts pages after it.
    toc_pages = [b.page for b in parsed.blocks[: by_item["Item 1"].start_block] if "Risk Factors" in b.text]
    assert toc_pages, "the table of contents (which lists Risk Factors) is in the front matter"
    start_page = parsed.blocks[by_item["Item 1A"].start_block].page
    assert start_page > max(toc_pages)
    assert by_item["Item 1A"].start_block > by_item["Item 1"].start_block
    assert "Risk" in by_item["Item 1A"].title or "RISK" in by_item["Item 1A"].title
    assert by_item["Item 7"].part == "Part II" and by_item["Item 1A"].part == "Part I"


def test_statements_printed_after_item_15_are_item_8_and_signatures_are_unsectioned(real_filing):
    parsed, sections = real_filing("filings", "NVDA_10K_FY2023.htm")
    item8 = [s for s in sections if s.item == "Item 8"]
    assert len(item8) == 2, "Item 8 points to the statements; the statements themselves are Item 8 too"
    statements = _section_text(parsed, item8[1])
    assert statements.startswith("Report of Independent Registered Public Accounting Firm")
    assert "CONSOLIDATED BALANCE SHEETS" in statements and "Note 17 - Segment Information" in statements
    assert "EXHIBIT INDEX" not in statements
    assert sections[-1].item == UNSECTIONED and _section_text(parsed, sections[-1]).startswith("SIGNATURES")
    assert sections[-2].item == "Item 16"


@pytest.mark.parametrize(
    ("line", "item"),
    [
        ("ITEM 7. MANAGEMENT’S DISCUSSION AND ANALYSIS OF FINANCIAL CONDITION", "Item 7"),
        ("Item 7 — Management's Discussion and Analysis", "Item 7"),
        ("Item 7: Management's Discussion and Analysis", "Item 7"),
        ("Item 1A.", "Item 1A"),
        ("Item\u00a01A.\u00a0Risk Factors", "Item 1A"),
        ("ITEM 1A—RISK FACTORS", "Item 1A"),
        ("Items 1 and 2. Business and Properties", "Item 1"),
        ("Item 9C. Disclosure Regarding Foreign Jurisdictions that Prevent Inspections", "Item 9C"),
        ("Item 16. Form 10-K Summary", "Item 16"),
    ],
)
def test_heading_variants(line, item):
    heading = match_item_heading(line.replace("\u00a0", " "))
    assert heading is not None and heading.item == item


@pytest.mark.parametrize(
    "line",
    [
        "Item 1A, Risk Factors, of this report describes the risks",
        "Item 7 of this Annual Report on Form 10-K",
        "Item 17. Something that is not a 10-K Item",
        "items in transit are recorded at cost",
        "Item 7A in Part II describes market risk",
    ],
)
def test_not_headings(line):
    assert match_item_heading(line) is None


def test_part_headings():
    assert match_part_heading("PART II") == "Part II"
    assert match_part_heading("Part IV — Other Information") == "Part IV"
    assert match_part_heading("Part II, Item 7 of this report") is None


TOC_TEXT = """ACME CORP
FORM 10-K
For the fiscal year ended December 31, 2024

TABLE OF CONTENTS
PART I
Item 1. Business 3
Item 1A. Risk Factors 5
Item 1B. Unresolved Staff Comments 9
Item 2. Properties 9
Item 3. Legal Proceedings 9
Item 4. Mine Safety Disclosures 9
PART II
Item 5. Market for Registrant's Common Equity 10
Item 7. Management's Discussion and Analysis 11
Item 7A. Quantitative and Qualitative Disclosures About Market Risk 14
\f
PART I

ITEM 1.
BUSINESS

We make anvils. {filler}

ITEM 1A. RISK FACTORS

Our results could suffer if steel prices rise, as described in
Item 7. Management's Discussion and Analysis below. {filler}

Item 1B. Unresolved Staff Comments

None.

PART II

Item 7 — Management's Discussion and Analysis of Financial Condition

Revenue grew. See Item 1A, Risk Factors. {filler}

Item 7A: Quantitative and Qualitative Disclosures About Market Risk

We are exposed to interest rates. {filler}

SIGNATURES
"""


def test_toc_and_cross_references_are_not_sections():
    text = TOC_TEXT.replace("{filler}", "This sentence pads the section with ordinary prose. " * 40)
    parsed = parse_filing(text.encode(), "txt")
    sections = split_sections(parsed)
    items = [s.item for s in sections]
    assert items == [FRONT_MATTER, "Item 1", "Item 1A", "Item 1B", "Item 7", "Item 7A", UNSECTIONED]
    by_item = {s.item: s for s in sections}
    assert all(parsed.blocks[s.start_block].page == 2 for s in sections[1:])
    assert _section_text(parsed, sections[-1]) == "SIGNATURES"
    assert by_item["Item 1"].title == "Business"
    assert "steel prices" in _section_text(parsed, by_item["Item 1A"])
    assert "Management's Discussion and Analysis below" in _section_text(parsed, by_item["Item 1A"])
    assert _section_text(parsed, by_item["Item 7"]).startswith("PART II\n\nItem 7 —")
    assert "Item 14" not in text and "TABLE OF CONTENTS" in _section_text(parsed, sections[0])


def test_filing_without_items_is_one_bucket():
    # An annual report without Item headings (it names the form, so it is accepted as a filing).
    memo = "Annual report of Widgets Ltd.\n\n" + "We make widgets and sell them. " * 80
    parsed = parse_filing(memo.encode(), "txt")
    sections = split_sections(parsed)
    assert len(sections) == 1 and sections[0].end_block == len(parsed.blocks)


def test_flattened_text_copy_still_has_its_items(real_filing):
    # A scraped copy of the NVIDIA 10-K with every line break removed and XBRL noise in front.
    parsed, sections = real_filing("filings", "NVDA_10K_FY2023_deepthinkingrag_clean.txt")
    by_item = {s.item: s for s in sections}
    assert {"Item 1", "Item 1A", "Item 7", "Item 7A"} <= set(by_item)
    assert len(_section_text(parsed, by_item["Item 1A"])) > 100_000
    assert parsed.company == "NVIDIA Corporation" and parsed.fiscal_year == 2023


def test_html_heading_split_over_two_blocks_with_nbsp_and_caps():
    filler = "<p>" + "Ordinary prose fills this part of the filing. " * 60 + "</p>"
    html = (
        "<html><body><p>FORM 10-K</p>"
        "<table><tr><td>Item&#160;1.</td><td>Business</td><td>3</td></tr>"
        "<tr><td>Item&#160;7.</td><td>Management's Discussion and Analysis</td><td>9</td></tr></table>"
        f"<p><b>ITEM&#160;1.</b></p><p><b>BUSINESS</b></p>{filler}"
        "<p>As discussed in Item 7. Management's Discussion and Analysis, revenue grew.</p>"
        f"<p><b>Item&#160;7.</b></p><p><b>Management&#8217;s Discussion and Analysis</b></p>{filler}"
        "</body></html>"
    )
    parsed = parse_filing(html.encode(), "html")
    sections = split_sections(parsed)
    assert [s.item for s in sections] == [FRONT_MATTER, "Item 1", "Item 7"]
    by_item = {s.item: s for s in sections}
    assert by_item["Item 1"].title == "Business"
    assert by_item["Item 7"].title == "Management’s Discussion and Analysis"
    assert "revenue grew" in _section_text(parsed, by_item["Item 1"])


def test_title_run_into_body_text_is_cut_back_to_the_known_title():
    from core.ingest.sections import _display_title

    assert (
        _display_title("Item 1", "Business This Annual Report on Form 10-K and the documents") == "Business"
    )
    assert _display_title("Item 1A", "RISK FACTORS") == "Risk Factors"
    # A word split by PDF extraction is the known title.
    assert _display_title("Item 2", "Propertie s") == "Properties"
    assert _display_title("Item 1A", "Ris k Factors") == "Risk Factors"
    assert _display_title("Item 7", "") == ITEM_TITLES["Item 7"]


def _sections_of(text: str) -> list[tuple[str, str | None]]:
    parsed = parse_filing(text.encode(), "txt")
    return [(s.item, s.part) for s in split_sections(parsed)]


_BODY = "The company discussed this topic at length in this part of the report. " * 12


def test_quarterly_report_parts_and_items():
    contents = (
        "PART I. FINANCIAL INFORMATION\nItem 1. Financial Statements 3\nItem 2. Management's Discussion and "
        "Analysis of Financial Condition and Results of Operations 15\nItem 3. Quantitative and Qualitative "
        "Disclosures About Market Risk 22\nItem 4. Controls and Procedures 22\nPART II. OTHER INFORMATION\n"
        "Item 1. Legal Proceedings 23\nItem 1A. Risk Factors 23\nItem 6. Exhibits 25\n"
    )
    body = "".join(
        f"\n{heading}\n{_BODY}\n"
        for heading in (
            "PART I — FINANCIAL INFORMATION", "Item 1. Financial Statements",
            "Item 2. Management's Discussion and Analysis of Financial Condition and Results of Operations",
            "Item 3. Quantitative and Qualitative Disclosures About Market Risk", "Item 4. Controls and Procedures",
            "PART II — OTHER INFORMATION", "Item 1. Legal Proceedings", "Item 1A. Risk Factors", "Item 6. Exhibits",
        )
    )  # fmt: skip
    text = (
        "UNITED STATES SECURITIES AND EXCHANGE COMMISSION\nFORM 10-Q\nFor the quarterly period ended June 30, 2023"
        f"\nAcme Corp\n(Exact name of registrant as specified in its charter)\n{contents}{body}"
    )
    found = [(item, part) for item, part in _sections_of(text) if item != FRONT_MATTER]
    assert found == [
        ("Part I Item 1", "Part I"), ("Part I Item 2", "Part I"), ("Part I Item 3", "Part I"),
        ("Part I Item 4", "Part I"), ("Part II Item 1", "Part II"), ("Part II Item 1A", "Part II"),
        ("Part II Item 6", "Part II"),
    ]  # fmt: skip


def test_current_report_items_and_furnished_release():
    text = (
        "UNITED STATES SECURITIES AND EXCHANGE COMMISSION\nFORM 8-K\nCURRENT REPORT\n"
        "Date of Report (Date of earliest event reported): July 20, 2023\nAcme Corp\n(Exact name of registrant)\n"
        f"Item 2.02 Results of Operations and Financial Condition.\n{_BODY}\n"
        f"Item 9.01 Financial Statements and Exhibits.\n{_BODY}\nSIGNATURES\nAcme Corp\n"
        # The furnished release starts on a page of its own.
        f"\fExhibit 99.1\nAcme Reports Second-Quarter 2023 Results\n{_BODY}\n"
    )
    items = [item for item, _ in _sections_of(text)]
    assert items == [FRONT_MATTER, "Item 2.02", "Item 9.01", "Exhibit 99"]


def test_earnings_release_parts_found_by_their_headings():
    headings = [
        "Full-Year 2023 Guidance",
        "Acme Corp and Subsidiaries Condensed Consolidated Statements of Earnings",
        "Reconciliation of Non-GAAP Financial Measures",
        "Cautionary Note Regarding Forward-Looking Statements",
    ]
    text = (
        "Acme Reports Second-Quarter 2023 Results\nNEW YORK (July 20, 2023) – Acme Corp (NYSE: ACM) today "
        f"announced results.\n{_BODY}\n\n" + "".join(f"{heading}\n\n{_BODY}\n\n" for heading in headings)
    )
    items = [item for item, _ in _sections_of(text)]
    assert items == ["Highlights", "Outlook", "Statements", "Non-GAAP", "Forward-looking"]
