"""Finding a figure among a filing's facts by meaning: words and the embedding model, the lexicon as a prior,
the period asked, the whole company unless a part is named."""

from __future__ import annotations

import pytest

from core.config import Settings
from core.finance.facts import read_facts
from core.finance.formula import Operand
from core.finance.vocabulary import line_item_named
from core.index.catalog import Catalog
from core.models import Chunk
from core.retrieval.facts import FactIndex, fact_lookup
from tests.conftest import shared_file

FILING = "a" * 64
TEXT = """CONSOLIDATED STATEMENTS OF CASH FLOWS (In millions)
|  | 2023 | 2022 |
|---|---|---|
| Cash flows from operating activities: |  |  |
| Net income | $ 4,368 | $ 9,752 |
| Stock-based compensation expense | 2,709 | 2,004 |
| Net cash provided by operating activities | 5,641 | 9,108 |
| Supplemental disclosures of cash flow information: |  |  |
| Cash paid for income taxes, net | $ 1,404 | $ 396 |
| Cash paid for interest | $ 254 | $ 246 |

Income Taxes
The tax effects of temporary differences (in millions).
|  | 2023 | 2022 |
|---|---|---|
| Deferred tax assets: |  |  |
| Stock-based compensation | 99 | 93 |"""


def _catalog_with(tmp_path, filing_id: str, text: str, page: int = 70, **filing: object) -> Catalog:
    """A catalog holding one filing (an annual report unless `filing` says otherwise) of one passage,
    `text`, with its facts read."""
    from core.models import Filing

    chunk = Chunk(
        chunk_id=f"{filing_id[:8]}-0", filing_id=filing_id, section="Item 8", page=page, chunk_index=0,
        char_start=0, char_end=len(text), kind="table", text=text,
    )  # fmt: skip
    catalog = Catalog(Settings(data_dir=tmp_path).catalog_path)
    record = Filing(
        filing_id=filing_id, filename="s.htm", company="Acme", source_type="html", pages=1, chunks=1, **filing
    )
    with catalog.transaction() as conn:
        catalog.insert_filing(conn, record, [chunk], read_facts(filing_id, [chunk]))
    return catalog


@pytest.fixture
def index(tmp_path) -> FactIndex:
    # Without name embeddings the index ranks by words alone (meaning counts zero).
    return FactIndex(_catalog_with(tmp_path, FILING, TEXT, page=58), embed_query=lambda text: [])


def test_a_phrase_the_lexicon_does_not_list_finds_its_row(index):
    best = index.search("cash pay in income taxes", FILING, 2023)[0]
    assert best.fact.label == "Cash paid for income taxes, net" and best.value.number == 1404


def test_a_heading_the_phrase_does_not_name_makes_a_row_something_else(index):
    best = index.search("stock-based compensation expense", FILING, 2023)[0]
    assert best.fact.label == "Stock-based compensation expense" and best.fact.kind == "cash_flow"


def test_the_period_asked_must_be_a_column(index):
    assert index.search("cash paid for interest", FILING, 2019) == []
    assert index.search("cash paid for interest", FILING, 2022)[0].value.number == 246


def test_the_lookup_cites_the_row_and_keeps_the_unit(index):
    found = fact_lookup(index, [FILING])(Operand("cash paid for interest", None, (2023,)), 2023)
    assert found is not None and found.value == 254 and found.scale == 1e6
    assert (
        found.source.chunk.chunk_id == f"{FILING[:8]}-0"
        and found.source.quote == "| Cash paid for interest | $ 254 | $ 246 |"
    )
    # A phrase nothing in the filing is close to is not answered by a nearby figure.
    assert fact_lookup(index, [FILING])(Operand("insurance reserves", None, (2023,)), 2023) is None


@pytest.mark.slow
def test_real_filing_facts_are_found_by_meaning(tmp_path):
    filing = shared_file("filings", "NVDA_10K_FY2023.htm")
    from core.service import Workbench

    bench = Workbench(Settings(data_dir=tmp_path))
    result = bench.ingest_paths([filing])[0]
    assert result.ok and result.filing is not None and result.filing.facts > 300
    store = bench.store
    index = FactIndex(store.catalog, store.embedder.embed_query)
    fid = result.filing.filing_id
    assert index.search("goodwill", fid, 2023)[0].value.number == 4372
    assert index.search("cash paid for income taxes", fid, 2023)[0].value.number == 1404
    assert index.search("gross unrecognized tax benefits", fid, 2023)[0].value.number == 1238


def test_a_count_the_filing_states_in_prose_is_read_with_its_sentence(tmp_path):
    """A headcount is rarely in a table: the sentence that states it for the year asked is read and cited."""
    text = (
        "Human Capital. As of January 29, 2022, we had approximately 22,473 employees. "
        "As of January 28, 2023, we had approximately 26,196 employees in 35 countries. "
        "Our 2023 employee survey had 2023 respondents."
    )
    chunk = Chunk(
        chunk_id="p1", filing_id=FILING, section="Item 1", page=9, chunk_index=0, char_start=0,
        char_end=len(text), kind="text", text=text,
    )  # fmt: skip
    from core.models import Filing

    catalog = Catalog(Settings(data_dir=tmp_path).catalog_path)
    filing = Filing(
        filing_id=FILING, filename="acme.htm", company="Acme", source_type="html", pages=1, chunks=1
    )
    with catalog.transaction() as conn:
        catalog.insert_filing(conn, filing, [chunk], [])
    lookup = fact_lookup(FactIndex(catalog, embed_query=lambda text: []), [FILING])
    found = lookup(Operand("number of employees", None, (2023,)), 2023)
    assert found is not None and found.value == 26196 and found.count
    assert "26,196 employees" in found.source.quote and found.source.chunk.chunk_id == "p1"
    assert lookup(Operand("number of employees", None, (2022,)), 2022).value == 22473
    assert lookup(Operand("number of stores", None, (2023,)), 2023) is None


PRODUCTS = """Note 2 – Revenue
Net sales disaggregated by significant products and services were as follows (in millions):
|  | 2023 | 2022 |
|---|---|---|
| iPhone | $ 39,669 | $ 40,665 |
| Mac | 6,840 | 7,382 |
| Services | 21,213 | 19,604 |
| Total net sales | $ 81,797 | $ 82,959 |
| Marketable securities | 1,250 | 1,100 |"""


def test_a_products_figure_is_its_row_in_a_table_of_the_line_item(tmp_path):
    from core.finance.vocabulary import LINE_ITEM_BY_KEY
    from core.models import Filing

    other = "b" * 64
    chunk = Chunk(
        chunk_id="p1", filing_id=other, section="Part I Item 1", page=10, chunk_index=0, char_start=0,
        char_end=len(PRODUCTS), kind="table", text=PRODUCTS,
    )  # fmt: skip
    catalog = Catalog(Settings(data_dir=tmp_path).catalog_path)
    filing = Filing(filing_id=other, filename="q.pdf", company="Acme", source_type="pdf", pages=1, chunks=1)
    with catalog.transaction() as conn:
        catalog.insert_filing(conn, filing, [chunk], read_facts(other, [chunk]))
    index = FactIndex(catalog, embed_query=lambda text: [])
    revenue = LINE_ITEM_BY_KEY["revenue"]
    iphone = next(f for f in catalog.list_facts(other) if f.label == "iPhone")
    assert index.table_reports(iphone, revenue)  # "Total net sales" is a row of its table
    operand = Operand("iPhone revenue", revenue, (2023,), qualifier="iPhone")
    found = fact_lookup(index, [other])(operand, 2023)
    assert found is not None and found.value == 39669


SEGMENT_TABLES = """Segment Information
Segment revenue and operating income were as follows (in millions):
|  | 2023 | 2022 |
|---|---|---|
| Revenue |  |  |
| Fleet Software | $ 1,250 | $ 1,100 |
| Robotics Systems | 2,410 | 2,005 |
| Services | 640 | 595 |
| Total | $ 4,300 | $ 3,700 |

Net sales and operating income by geographic segment (in millions):
|  | 2023 | 2022 |
|---|---|---|
| Americas: |  |  |
| Net sales | $ 2,900 | $ 2,500 |
| Operating income | 410 | 350 |
| Europe: |  |  |
| Net sales | 1,400 | 1,200 |
| Operating income | 150 | 120 |
| Consolidated: |  |  |
| Net sales | $ 4,300 | $ 3,700 |
| Operating income | 560 | 470 |"""


def test_a_line_items_parts_are_the_rows_of_a_table_that_add_up_to_it(tmp_path):
    from core.finance.vocabulary import LINE_ITEM_BY_KEY
    from core.retrieval.facts import parts_lookup

    filing = "c" * 64
    index = FactIndex(_catalog_with(tmp_path, filing, SEGMENT_TABLES), embed_query=lambda text: [])
    revenue = LINE_ITEM_BY_KEY["revenue"]
    # Rows just above the total that add up to it: the segments.
    found = parts_lookup(index, [filing])(revenue, 2023)
    assert [(f.label, f.value) for f in found] == [
        ("Fleet Software", 1250), ("Robotics Systems", 2410), ("Services", 640), ("Revenue — Total", 4300),
    ]  # fmt: skip
    assert all(f.source.chunk.chunk_id for f in found)  # every part cited
    # Rows labelled as the item under each part's heading: the regions.
    regions = index.parts(revenue, filing, 2022)
    assert {name for name, _, _ in regions} >= {"Fleet Software"} or {name for name, _, _ in regions} >= {
        "Americas"
    }
    operating = index.parts(LINE_ITEM_BY_KEY["operating_income"], filing, 2023)
    assert [(name, value.number) for name, _, value in operating] == [
        ("Americas", 410), ("Europe", 150), ("Consolidated — Operating income", 560),
    ]  # fmt: skip
    # A line item no table breaks down has no parts.
    assert index.parts(LINE_ITEM_BY_KEY["net_income"], filing, 2023) == []


def test_a_line_item_asked_by_segment_is_stated_part_by_part(tmp_path):
    from core.retrieval.facts import parts_lookup
    from core.tools.calculator import requests_in, state_figures

    filing = "d" * 64
    index = FactIndex(_catalog_with(tmp_path, filing, SEGMENT_TABLES), embed_query=lambda text: [])
    requests = requests_in("What was Acme's revenue across its business segments in 2023?", 2023)
    assert [r.by_part for r in requests] == [True]
    result = state_figures(
        requests, [], step_index=1, facts=fact_lookup(index, [filing]), parts=parts_lookup(index, [filing])
    )
    [card] = result.cards
    assert card.statement == (
        "Revenue in FY2023 was $4,300 million: Fleet Software $1,250 million, Robotics Systems $2,410 million "
        "and Services $640 million."
    )
    assert "Robotics Systems $2,410 million (56.0%)" in card.claim and len(card.evidence_ids) == 4
    # Asked plainly, the same figure is the whole company's.
    plain = state_figures(
        requests_in("What was Acme's revenue in 2023?", 2023), [], step_index=1,
        facts=fact_lookup(index, [filing]), parts=parts_lookup(index, [filing]),
    )  # fmt: skip
    assert "by part" not in plain.note


PRODUCTS_AND_SEGMENTS = """Net sales by groups of similar products and services is as follows (in millions):
|  | 2023 | 2022 |
|---|---|---|
| Online stores | $ 2,000 | $ 1,800 |
| Physical stores | 400 | 380 |
| Subscription services | 900 | 800 |
| Advertising services | 1,000 | 720 |
| Consolidated | $ 4,300 | $ 3,700 |

Information on reportable segments is as follows (in millions):
|  | 2023 | 2022 |
|---|---|---|
| North America | $ 2,600 | $ 2,300 |
| International | 1,700 | 1,400 |
| Total net sales | $ 4,300 | $ 3,700 |"""


def _products_and_segments_index(tmp_path, filing: str) -> FactIndex:
    """The products-and-services and segments tables on two pages, each introduced by its sentence, with the
    bundled embedding model."""
    from core.index.embeddings import get_embedder
    from core.models import Filing

    # Two pages: each table introduced by the sentence before it.
    first, second = PRODUCTS_AND_SEGMENTS.split("\n\n")
    start = len(first) + 2
    chunks = [
        Chunk(
            chunk_id=f"e-{k}", filing_id=filing, section="Part I Item 1", page=12 + k, chunk_index=k,
            char_start=at, char_end=at + len(text), kind="table", text=text,
        )
        for k, (at, text) in enumerate([(0, first), (start, second)])
    ]  # fmt: skip
    catalog = Catalog(Settings(data_dir=tmp_path).catalog_path)
    record = Filing(filing_id=filing, filename="q.pdf", company="Acme", source_type="pdf", pages=1, chunks=2)
    with catalog.transaction() as conn:
        catalog.insert_filing(conn, record, chunks, read_facts(filing, chunks))
    return FactIndex(catalog, get_embedder().embed_query)


def test_the_parts_asked_for_choose_the_table_by_what_the_filing_says_it_is(tmp_path):
    from core.finance.vocabulary import LINE_ITEM_BY_KEY

    filing = "e" * 64
    index = _products_and_segments_index(tmp_path, filing)
    revenue = LINE_ITEM_BY_KEY["revenue"]

    def parts(asked: str) -> list[str]:
        return [name for name, _, _ in index.parts(revenue, filing, 2023, None, asked)][:-1]

    # Asked for no parts in particular, a segment table is preferred.
    assert parts("") == parts("segments") == ["North America", "International"]
    # Asked for its offerings, the table the filing introduces as its products and services: a "Consolidated"
    # row worth the company's net sales is that table's whole.
    offerings = ["Online stores", "Physical stores", "Subscription services", "Advertising services"]
    assert parts("products and services") == parts("service offerings") == offerings


def test_a_part_in_the_analysts_words_is_the_row_of_the_filings_breakdown_closest_in_meaning(tmp_path):
    """ "online retail services revenue": the filing calls that part "Online stores", a row of the table whose
    rows add up to its net sales; found by meaning, cited as printed."""
    from core.finance.formula import operands, parse_formula

    filing = "e" * 64
    lookup = fact_lookup(_products_and_segments_index(tmp_path, filing), [filing])
    online = operands(parse_formula("online retail services revenue"))[0]
    assert online.item is None and online.named_part() is not None
    assert online.named_part()[0] == "online retail services"
    found = lookup(online, 2023)
    assert found is not None and found.value == 2000 and found.label == "Online stores"
    assert lookup(online, 2022).value == 1800
    # A line item the vocabulary knows is no part of itself.
    assert operands(parse_formula("net sales"))[0].named_part() is None


SEGMENT_INCOME = """Operating Income by Reportable Segments
|  | 2024 | 2023 |
|---|---|---|
| Graphics | $ 5,846 | $ 4,552 |
| Compute & Networking | 32,016 | 5,083 |
| All Other | (4,890) | (5,411) |

Deferred Revenue
|  | 2024 | 2023 |
|---|---|---|
| Deferred revenue | $ 1,337 | $ 572 |"""


def test_a_name_opening_a_phrase_is_a_part_where_a_table_of_the_line_item_says_so(tmp_path):
    """ "Graphics operating income": the Graphics row of a table whose title names operating income. The same
    reading of "Deferred revenue" finds no table of revenue with a "Deferred" row: the phrase's own row is it."""
    from core.finance.formula import operands, parse_formula

    other = "c" * 64
    index = FactIndex(_catalog_with(tmp_path, other, SEGMENT_INCOME), embed_query=lambda text: [])
    lookup = fact_lookup(index, [other])
    graphics = operands(parse_formula("Graphics operating income"))[0]
    assert graphics.item is None  # a lone capital may only open the phrase: the filing decides
    assert graphics.as_part() is not None and graphics.as_part().qualifier == "Graphics"
    found = lookup(graphics, 2024)
    assert found is not None and found.value == 5846 and found.label == "Graphics"
    deferred = lookup(operands(parse_formula("Deferred revenue"))[0], 2024)
    assert deferred is not None and deferred.value == 1337 and deferred.label == "Deferred revenue"


PART_UNDER_HEADINGS = """CONSOLIDATED STATEMENTS OF OPERATIONS (In millions)
|  | 2023 | 2022 |
|---|---|---|
| Net sales: |  |  |
| Services | $ 85,200 | $ 78,129 |
| Cost of sales: |  |  |
| Services | 24,855 | 22,075 |
| Gross margin | 169,148 | 170,782 |

Gross Margin
|  | 2023 | 2022 |
|---|---|---|
| Gross margin: |  |  |
| Services | $ 60,345 | $ 56,054 |"""


def test_a_parts_row_under_another_line_items_heading_is_not_the_part_of_the_item_asked(tmp_path):
    """ "Services gross profit": the Services row under "Gross margin", never the one under "Net sales"."""
    from core.finance.formula import operands, parse_formula

    other = "d" * 64
    index = FactIndex(_catalog_with(tmp_path, other, PART_UNDER_HEADINGS), embed_query=lambda text: [])
    found = fact_lookup(index, [other])(operands(parse_formula("Services gross profit"))[0], 2023)
    assert found is not None and found.value == 60345


RENAMED = """Operating expenses (in millions)
|  | 2023 | 2022 |
|---|---|---|
| Fulfillment | 22,000 | 20,500 |
| Technology and infrastructure | 21,203 | 19,485 |
| Total operating expenses | 43,203 | 39,985 |"""
DEFINITION = (
    "Technology and Infrastructure\nTechnology and infrastructure costs include payroll and related expenses "
    "for employees involved in the research and development of new and existing products and services, and "
    "infrastructure costs."
)


def test_a_line_item_the_company_names_otherwise_is_the_row_its_definition_says_includes_it(tmp_path):
    """Amazon prints no "Research and development" row: its "Technology and infrastructure costs include …
    the research and development of …" says which row holds it."""
    from core.finance.formula import operands, parse_formula
    from core.models import Filing
    from core.retrieval.facts import defined_label

    filing = "d" * 64
    chunks = [
        Chunk(
            chunk_id=f"d-{k}", filing_id=filing, section="Part I Item 2", page=30 + k, chunk_index=k,
            char_start=0, char_end=len(text), kind=kind, text=text,
        )
        for k, (kind, text) in enumerate([("table", RENAMED), ("text", DEFINITION)])
    ]  # fmt: skip
    catalog = Catalog(Settings(data_dir=tmp_path).catalog_path)
    record = Filing(filing_id=filing, filename="q.pdf", company="Acme", source_type="pdf", pages=2, chunks=2)
    with catalog.transaction() as conn:
        catalog.insert_filing(conn, record, chunks, read_facts(filing, chunks))
    lookup = fact_lookup(FactIndex(catalog, embed_query=lambda text: []), [filing])
    rd = operands(parse_formula("research and development expense"))[0]
    assert rd.item is not None and rd.item.key == "rd_expense"
    found = lookup(rd, 2023)
    assert found is not None and found.value == 21203 and found.label == "Technology and infrastructure"
    assert lookup(rd, 2022).value == 19485
    # A definition that does not name the item says nothing about it.
    assert (
        defined_label(chunks, operands(parse_formula("selling, general and administrative expense"))[0].item)
        is None
    )


# A 10-Q's statements as Intel prints them: the quarter beside the nine months in the statement of income, the
# nine months only in the cash flow statement, whose "Income taxes" row is a change in a balance.
Q3_10Q = {"form": "10-Q", "fiscal_year": 2023, "fiscal_quarter": 3}
QUARTERLY = """CONSOLIDATED CONDENSED STATEMENTS OF INCOME (In millions) Three Months Ended Nine Months Ended
|  | Sep 30, 2023 | Oct 1, 2022 | Sep 30, 2023 | Oct 1, 2022 |
|---|---|---|---|---|
| Income (loss) before taxes | (52) | (188) | (2,026) | 8,564 |
| Provision for (benefit from) taxes | (362) | (1,207) | (1,041) | (114) |
| Net income (loss) | 310 | 1,019 | (985) | 8,678 |

CONSOLIDATED CONDENSED STATEMENTS OF CASH FLOWS (In millions) Nine Months Ended
|  | Sep 30, 2023 | Oct 1, 2022 |
|---|---|---|
| Changes in assets and liabilities: |  |  |
| Income taxes | (2,676) | (4,062) |
| Purchases of property, plant, and equipment | (18,100) | (17,500) |"""


def test_a_quarters_line_item_is_the_statements_row_not_a_change_or_another_item(tmp_path):
    index = FactIndex(_catalog_with(tmp_path, FILING, QUARTERLY, **Q3_10Q), embed_query=lambda text: [])
    ranked = index.search("income tax expense", FILING, 2023)
    # Labelled with the sign's alternative, the provision is the tax expense; the cash flow statement's change
    # in taxes payable (a nine months' figure) and the pre-tax income (another line item) are not.
    assert ranked[0].fact.label == "Provision for (benefit from) taxes" and ranked[0].value.number == -362
    assert all(m.fact.label not in ("Income taxes", "Income (loss) before taxes") for m in ranked)
    lookup = fact_lookup(index, [FILING])
    tax = lookup(Operand("income tax expense", line_item_named("income tax expense"), (2023,)), 2023)
    # A benefit printed in parentheses under a label that names it stays a benefit ...
    assert tax is not None and tax.value == -362 and tax.months == 3
    capex = lookup(Operand("capital expenditure", line_item_named("capital expenditure"), (2023,)), 2023)
    # ... while an outflow printed in parentheses is the amount spent.
    assert capex is not None and capex.value == 18100


def test_a_row_that_prints_only_the_year_to_date_ranks_below_one_that_prints_the_quarter(tmp_path):
    income, cash_flows = QUARTERLY.replace("Net income (loss)", "Widget royalties").split("\n\n")
    cash_flows = cash_flows.replace("| Changes in assets and liabilities: |  |  |\n", "").replace(
        "Income taxes", "Widget royalties"
    )
    # The year to date's row comes first in the filing: in a 10-Q only its period puts it second.
    text = f"{cash_flows}\n\n{income}"
    index = FactIndex(_catalog_with(tmp_path / "q", FILING, text, **Q3_10Q), embed_query=lambda text: [])
    ranked = index.search("widget royalties", FILING, 2023)
    assert [(m.value.number, m.value.months) for m in ranked[:2]] == [(310, 3), (-2676, 9)]
    assert index.search("widget royalties", FILING, 2023, months=9)[0].value.number in (-985, -2676)
    # In an annual report the longer period is the report's own: no row is put behind for it.
    annual = FactIndex(_catalog_with(tmp_path / "k", FILING, text), embed_query=lambda text: [])
    assert annual.search("widget royalties", FILING, 2023)[0].value.number == -2676
