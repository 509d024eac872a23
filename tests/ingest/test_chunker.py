"""Chunk invariants on real and sample filings: verbatim slices, bounded, overlapping, within one Item."""

from __future__ import annotations

import itertools

import pytest

from core.ingest.chunker import chunk_sections
from core.ingest.parse import parse_filing
from core.ingest.sections import split_sections
from core.text.sentences import sentence_starts
from tests.conftest import SAMPLE_DOCS
from tests.ingest.conftest import word_count

MAX, OVERLAP = 120, 25


def _chunks(parsed, sections, max_tokens=MAX, overlap=OVERLAP):
    return chunk_sections(
        parsed,
        sections,
        filing_id="f" * 64,
        count_tokens=word_count,
        max_tokens=max_tokens,
        overlap_tokens=overlap,
    )


def _check_invariants(parsed, sections, chunks, max_tokens=MAX):
    assert chunks
    item_of_block = {}
    for s in sections:
        for i in range(s.start_block, s.end_block):
            item_of_block[i] = s.item
    block_starts = [b.char_start for b in parsed.blocks]
    for index, chunk in enumerate(chunks):
        assert chunk.chunk_index == index and chunk.chunk_id == f"{'f' * 16}-{index:05d}"
        assert parsed.text[chunk.char_start : chunk.char_end] == chunk.text, "text is a verbatim slice"
        assert chunk.text == chunk.text.strip() and chunk.text
        assert word_count(chunk.text) <= max_tokens
        # Never cross an Item: every block the chunk touches belongs to the chunk's section.
        first = max(i for i, start in enumerate(block_starts) if start <= chunk.char_start)
        last = max(i for i, start in enumerate(block_starts) if start < chunk.char_end)
        assert {item_of_block[i] for i in range(first, last + 1)} == {chunk.section}
        assert chunk.page == parsed.blocks[first].page, "page is where the chunk starts"
        assert chunk.company == parsed.company and chunk.fiscal_year == parsed.fiscal_year
    # Every character of every block is in some chunk: nothing dropped.
    covered = sorted((c.char_start, c.char_end) for c in chunks)
    reach = 0
    for block in parsed.blocks:
        assert _covered(parsed.text, block, covered), block.text[:80]
        reach = max(reach, block.char_end)
    assert reach == len(parsed.text)


def _covered(text, block, covered) -> bool:
    """The union of the chunks covers the block, except whitespace between pieces of a split block."""
    position = block.char_start
    for start, end in covered:
        while position < block.char_end and text[position].isspace():
            position += 1
        if start <= position < end:
            position = end
    return position >= block.char_end


def test_sample_filing_chunk_invariants():
    data = (SAMPLE_DOCS / "northwind_10k_fy2025.html").read_bytes()
    parsed = parse_filing(data, "html")
    sections = split_sections(parsed)
    chunks = _chunks(parsed, sections)
    _check_invariants(parsed, sections, chunks)
    tables = [c for c in chunks if c.kind == "table"]
    assert tables and all(c.text.rstrip().endswith("|") for c in tables)
    assert sum("|---|" in c.text for c in tables) >= len(tables) * 0.7, "most table chunks carry their header"
    assert any(c.section == "Item 8" for c in tables)


def test_real_filing_chunk_invariants(real_filing):
    parsed, sections = real_filing("filings", "NVDA_10K_FY2023.htm")
    chunks = _chunks(parsed, sections)
    _check_invariants(parsed, sections, chunks)
    same_section = [(a, b) for a, b in itertools.pairwise(chunks) if a.section == b.section]
    overlapping = [(a, b) for a, b in same_section if b.char_start < a.char_end]
    assert len(overlapping) > len(same_section) * 0.2, "consecutive chunks of a section overlap"
    for a, b in overlapping:
        shared = parsed.text[b.char_start : a.char_end]
        assert 0 < word_count(shared) <= OVERLAP
    # Overlap by whole sentences where possible: a mid-sentence start only when the sentence that ends the
    # previous chunk is itself longer than the overlap allows.
    block_starts = {block.char_start for block in parsed.blocks}
    for a, b in overlapping:
        if b.char_start in block_starts or b.char_start in {
            a.char_start + s for s in sentence_starts(a.text)
        }:
            continue
        last_block = a.text.rsplit("\n\n", 1)[-1]
        last_sentence = last_block[sentence_starts(last_block)[-1] :]
        assert word_count(last_sentence) > OVERLAP, (last_sentence, b.text[:60])
    # No tiny useless chunks: short paragraphs are merged up to the bound.
    tiny = [c for c in chunks if word_count(c.text) < 15 and c.kind == "text"]
    assert len(tiny) < 0.08 * len(chunks), [c.text for c in tiny][:10]
    assert sum(word_count(c.text) for c in chunks) / len(chunks) > MAX * 0.5


def test_headings_go_with_the_following_paragraph(real_filing):
    parsed, sections = real_filing("filings", "AAPL_10K_FY2023.htm")
    chunks = _chunks(parsed, sections)
    # A heading right before a table is repeated as the table's caption, so it may end the previous chunk.
    before_table = {
        a.char_start for a, b in zip(parsed.blocks, parsed.blocks[1:], strict=False) if b.kind == "table"
    }
    headings = {
        b.char_start for b in parsed.blocks if b.kind == "heading" and b.char_start not in before_table
    }
    ending_in_heading = [
        c for c in chunks if "\n\n" in c.text and c.char_end - len(c.text.rsplit("\n\n", 1)[-1]) in headings
    ]
    assert len(ending_in_heading) <= 0.02 * len(chunks), [c.text[-80:] for c in ending_in_heading]


def test_long_paragraph_is_split_at_sentences_with_overlap():
    sentence = "The Company sells widgets to customers in many countries around the world."  # 13 words
    text = "Item 1. Business\n\n" + " ".join([sentence] * 40)
    parsed = parse_filing(text.encode(), "txt")
    sections = split_sections(parsed)
    chunks = _chunks(parsed, sections, max_tokens=60, overlap=15)
    assert len(chunks) >= 9
    for chunk in chunks[1:]:
        assert chunk.text.startswith("The Company sells"), "pieces start at a sentence"
    for a, b in itertools.pairwise(chunks):
        assert b.char_start < a.char_end
    _check_invariants(parsed, sections, chunks, max_tokens=60)


def test_one_enormous_sentence_is_cut_at_words():
    text = "Item 7. Management's Discussion and Analysis\n\n" + " ".join(f"w{i}" for i in range(500))
    parsed = parse_filing(text.encode(), "txt")
    sections = split_sections(parsed)
    chunks = _chunks(parsed, sections, max_tokens=50, overlap=10)
    _check_invariants(parsed, sections, chunks, max_tokens=50)
    assert {c.section for c in chunks} == {"Item 7"}


def test_cutting_a_huge_one_line_text_is_linear_in_its_length():
    """A 10 MB line with no sentence end must not be re-tokenized from every cut to its end."""
    words = " ".join(f"word{i % 97}" for i in range(20_000))
    text = "Item 1. Business\n\n" + words
    parsed = parse_filing(text.encode(), "txt")
    sections = split_sections(parsed)
    counted = []

    def two_tokens_a_word(piece: str) -> int:  # like a subword tokenizer: never fewer tokens than words
        counted.append(len(piece))
        return 2 * word_count(piece)

    chunks = chunk_sections(
        parsed,
        sections,
        filing_id="f" * 64,
        count_tokens=two_tokens_a_word,
        max_tokens=100,
        overlap_tokens=20,
    )
    assert all(two_tokens_a_word(c.text) <= 100 for c in chunks)
    assert sum(counted) < 30 * len(text), "each character is tokenized a bounded number of times"
    assert len(counted) < 30 * len(chunks), "a bounded number of tokenizer calls per chunk"


def test_chunks_do_not_cross_pages_except_short_carry_overs():
    pages = [f"Item 1. Business\n\nPage {p} starts. " + "Words fill this page. " * 30 for p in range(1, 4)]
    parsed = parse_filing("\f".join(pages).encode(), "txt")
    chunks = _chunks(parsed, split_sections(parsed), max_tokens=400, overlap=20)
    assert [c.page for c in chunks] == [1, 1, 2, 2, 3, 3] or len({c.page for c in chunks}) == 3
    for chunk in chunks:
        assert f"Page {chunk.page} starts" in chunk.text or "Page" not in chunk.text.replace(
            f"Page {chunk.page}", ""
        )


@pytest.mark.parametrize("max_tokens", [40, 220])
def test_bounds_hold_for_any_setting(real_filing, max_tokens):
    parsed, sections = real_filing("filings", "AAPL_10K_FY2023.htm")
    chunks = _chunks(parsed, sections, max_tokens=max_tokens, overlap=max_tokens // 5)
    assert max(word_count(c.text) for c in chunks) <= max_tokens
    assert all(parsed.text[c.char_start : c.char_end] == c.text for c in chunks)
