"""Contextual passages: a context line (filing, Item, page heading) is indexed with each passage, never quoted."""

from __future__ import annotations

import pytest

from core.index.store import IndexStore
from core.ingest.context import add_context, page_headings
from core.ingest.document import Block, ParsedFiling, RawBlock, assemble
from core.ingest.pipeline import ingest_file
from core.models import Chunk
from core.text.tokens import tokenize
from tests.conftest import REPO_ROOT

SMALL = REPO_ROOT / "tests" / "fixtures" / "small_filing.txt"


def _parsed(pages: list[list[str]]) -> ParsedFiling:
    raw = [RawBlock("text", text, number) for number, page in enumerate(pages, start=1) for text in page]
    text, blocks = assemble(raw)
    return ParsedFiling("pdf", text, blocks, len(pages), company="Acme Corp", fiscal_year=2023)


STATEMENT = [
    "Table of Contents",
    "ACME CORP\nCONSOLIDATED STATEMENTS OF CASH FLOWS",
    "(in millions) 2023 2022 2021",
    "Net income 512 488 430 Depreciation and amortization 140 133 120 Purchases of property, plant and "
    "equipment (310) (280) (260) Net cash used in investing activities (355) (292) (260)",
]
NARRATIVE = [
    "Table of Contents",
    "Our business is designing industrial robots for factories, which we sell in forty countries worldwide.",
]


def test_page_heading_is_the_leading_short_blocks_without_running_headers() -> None:
    parsed = _parsed([NARRATIVE, STATEMENT, NARRATIVE])
    headings = page_headings(parsed.blocks)
    heading, _ = headings[2]
    assert heading == "ACME CORP CONSOLIDATED STATEMENTS OF CASH FLOWS (in millions) 2023 2022 2021"
    assert 1 not in headings and 3 not in headings, "a running header alone is no heading"


def test_context_names_filing_item_and_page_heading_for_passages_below_it() -> None:
    parsed = _parsed([NARRATIVE, STATEMENT, NARRATIVE])
    rows: Block = parsed.blocks[5]  # the statement page's rows
    below = Chunk(
        chunk_id="c1", filing_id="f", section="Item 8", section_title="Financial Statements", page=2,
        chunk_index=1, char_start=rows.char_start, char_end=rows.char_end, text=rows.text,
    )  # fmt: skip
    top = below.model_copy(update={"chunk_id": "c0", "char_start": parsed.blocks[3].char_start})
    with_context = add_context(parsed, [top, below])
    assert with_context[1].context == (
        "Acme Corp 10-K FY2023 | Item 8 Financial Statements | "
        "ACME CORP CONSOLIDATED STATEMENTS OF CASH FLOWS (in millions) 2023 2022 2021"
    )
    assert "CASH FLOWS" not in with_context[0].context, "a passage holding the heading does not repeat it"
    assert with_context[1].text == rows.text
    assert with_context[1].indexed_text.startswith(with_context[1].context + "\n")


@pytest.fixture
def store(settings):
    return IndexStore.open(settings)


def test_context_is_indexed_but_never_quoted(store) -> None:
    result = ingest_file(store, SMALL.read_bytes(), SMALL.name)
    assert result.ok
    parsed_text_chunks = store.catalog.list_chunks(result.filing.filing_id)
    assert all(c.context.startswith("Tailspin Freight Corp. 10-K FY2025 | ") for c in parsed_text_chunks)
    for chunk in parsed_text_chunks:
        assert chunk.context not in chunk.text
    # The company's name is in every passage's context, so keyword search finds passages that never name it.
    no_name = [c for c in parsed_text_chunks if "tailspin" not in c.text.lower()]
    assert no_name
    allowed = {c.chunk_id for c in no_name}
    hits = store.keywords.search(tokenize("Tailspin"), k=len(no_name), allowed_ids=allowed)
    assert {cid for cid, _ in hits} == allowed
