"""Cut sections into token-bounded chunks that are verbatim slices of the filing text."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice

from core.ingest.document import ParsedFiling, Section
from core.models import Chunk, chunk_id_for
from core.text.sentences import sentence_starts

TokenCounter = Callable[[str], int]

_WORD = re.compile(r"\S+")
_ENDS_SENTENCE = re.compile(r"[.!?:;][\"”’)\]]*\s*$")


@dataclass(slots=True)
class _Unit:
    """A block, or a piece of an oversized block, located in the filing text."""

    start: int
    end: int
    tokens: int
    kind: str  # "text" | "table" | "heading"
    page: int


@dataclass(slots=True)
class _Draft:
    start: int
    end: int
    tokens: int
    page: int
    kind: str
    units: list[_Unit]


class _Words:
    """Word offsets of one text, so a slice's word count is two bisections.

    Every whitespace-separated word is at least one token of the embedding model's tokenizer, so a slice
    with more words than the limit cannot fit and is never sent to the tokenizer: each count stays within
    one chunk's worth of text and cutting a block is linear in its length.
    """

    def __init__(self, text: str) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        for match in _WORD.finditer(text):
            self.starts.append(match.start())
            self.ends.append(match.end())

    def between(self, start: int, stop: int) -> int:
        return bisect_left(self.starts, stop) - bisect_left(self.starts, start)

    def ends_between(self, start: int, stop: int) -> tuple[int, int]:
        """Index range of the words that start at or after start and end at or before stop."""
        return bisect_left(self.starts, start), bisect_right(self.ends, stop)


def _more_words_than(text: str, n: int) -> bool:
    return next(islice(_WORD.finditer(text), n, None), None) is not None


def _fits(text: str, start: int, stop: int, words: _Words, count: TokenCounter, cap: int) -> bool:
    return words.between(start, stop) <= cap and count(text[start:stop].rstrip()) <= cap


def _split_long(
    text: str,
    base: int,
    count: TokenCounter,
    limits: tuple[int, int, int | None],
    kind: str,
    page: int,
) -> list[_Unit]:
    """Pieces of an oversized block: whole sentences (or table rows) up to the limit, words as a last resort.

    limits = (limit, limit for later pieces, limit for the first piece or None): later pieces leave room for the
    overlap repeated from the piece before, the first for headings that precede the block.
    """
    limit, rest_limit, first_limit = limits
    words = _Words(text)
    # Tables split between rows, prose between sentences.
    bounds = [0, *(m.end() for m in re.finditer(r"\n", text))] if kind == "table" else sentence_starts(text)
    bounds.append(len(text))
    units: list[_Unit] = []
    start = 0
    k = 1
    while start < len(text):
        end = start
        cap = (first_limit or limit) if not units else rest_limit
        # Grow the piece sentence by sentence while it fits.
        while k < len(bounds) and _fits(text, start, bounds[k], words, count, cap):
            end = bounds[k]
            k += 1
        if end == start:  # one sentence longer than the limit: cut it at word boundaries
            end = _word_cut(text, start, bounds[k] if k < len(bounds) else len(text), words, count, cap)
            if end >= bounds[k]:
                k += 1
        piece = text[start:end]
        stripped_end = start + len(piece.rstrip())
        if stripped_end > start:
            units.append(
                _Unit(base + start, base + stripped_end, count(text[start:stripped_end]), kind, page)
            )
        start = end
        while start < len(text) and text[start].isspace():
            start += 1
        while k < len(bounds) and bounds[k] <= start:
            k += 1
    return units


def _word_cut(text: str, start: int, stop: int, words: _Words, count: TokenCounter, limit: int) -> int:
    """The furthest word boundary after start (before stop) whose slice fits the limit; at least one word.

    A longer prefix never has fewer tokens, so the boundary is found by bisection over at most `limit`
    words (no more can fit), with a handful of tokenizer calls.
    """
    first, last = words.ends_between(start, stop)
    if first >= last:
        return stop
    lo, hi = first, min(last, first + limit) - 1  # word indexes; the answer is at least `first`
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(text[start : words.ends[mid]]) <= limit:
            lo = mid
        else:
            hi = mid - 1
    return words.ends[lo]


def _units(
    parsed: ParsedFiling, section: Section, count: TokenCounter, limit: int, overlap: int
) -> list[_Unit]:
    units: list[_Unit] = []
    for block in parsed.blocks[section.start_block : section.end_block]:
        # More words than the limit cannot fit (a word is at least one token): skip counting a huge block.
        tokens = None if _more_words_than(block.text, limit) else count(block.text)
        if tokens is not None and tokens <= limit:
            units.append(_Unit(block.char_start, block.char_end, tokens, block.kind, block.page))
        else:
            # Leave room for headings right before the block so they can share its first chunk.
            heads = 0
            for previous in reversed(units):
                if previous.kind != "heading" or previous.page != block.page:
                    break
                heads += previous.tokens
            first = limit - heads if 0 < heads < limit // 3 else None
            limits = (limit, max(1, limit - overlap), first)
            units.extend(_split_long(block.text, block.char_start, count, limits, block.kind, block.page))
    return units


def _overlap_start(text: str, draft: _Draft, count: TokenCounter, overlap: int) -> int | None:
    """Where the next chunk should start to repeat the draft's last whole sentences (≤ overlap tokens)."""
    if overlap <= 0 or not draft.units or draft.units[-1].kind != "text":
        return None
    last = draft.units[-1]
    body = text[last.start : last.end]
    best = None
    for offset in reversed(sentence_starts(body)):
        if offset == 0 and len(draft.units) == 1:
            break  # repeating the whole chunk is not an overlap
        if count(body[offset:]) > overlap:
            break
        best = offset
    if best is None:
        best = _overlap_words(body, count, overlap)
    return None if best is None else last.start + best


def _overlap_words(body: str, count: TokenCounter, overlap: int) -> int | None:
    """Where the longest run of whole last words (not the first) within `overlap` tokens starts, if any.

    A shorter tail never has more tokens, so it is found by bisection over the last `overlap` words."""
    starts = _Words(body).starts
    lo, hi = max(1, len(starts) - overlap), len(starts)  # hi: no word fits
    while lo < hi:
        mid = (lo + hi) // 2
        if count(body[starts[mid] :]) <= overlap:
            hi = mid
        else:
            lo = mid + 1
    return starts[lo] if lo < len(starts) else None


def chunk_sections(
    parsed: ParsedFiling,
    sections: list[Section],
    *,
    filing_id: str,
    count_tokens: TokenCounter,
    max_tokens: int,
    overlap_tokens: int,
) -> list[Chunk]:
    """Chunks following paragraphs inside each section: bounded, overlapping, never crossing an Item."""
    if max_tokens <= 0:
        raise ValueError("max_tokens must be positive")
    overlap_tokens = max(0, min(overlap_tokens, max_tokens // 2))
    min_tokens = max(8, max_tokens // 6)
    text = parsed.text
    drafts: list[tuple[Section, _Draft]] = []
    for section in sections:
        for draft in _pack(text, _units(parsed, section, count_tokens, max_tokens, overlap_tokens), count_tokens,
                           max_tokens, overlap_tokens, min_tokens):  # fmt: skip
            drafts.append((section, draft))
    chunks: list[Chunk] = []
    for index, (section, draft) in enumerate(drafts):
        chunks.append(
            Chunk(
                chunk_id=chunk_id_for(filing_id, index),
                filing_id=filing_id,
                company=parsed.company,
                form=parsed.form,
                fiscal_year=parsed.fiscal_year,
                section=section.item,
                section_title=section.title,
                part=section.part,
                page=draft.page,
                chunk_index=index,
                char_start=draft.start,
                char_end=draft.end,
                kind="table" if draft.kind == "table" else "text",
                text=text[draft.start : draft.end],
            )
        )
    return chunks


def _pack(
    text: str, units: list[_Unit], count: TokenCounter, limit: int, overlap: int, min_tokens: int
) -> list[_Draft]:
    """Greedy packing of one section's units into drafts."""
    drafts: list[_Draft] = []
    current: _Draft | None = None

    def close(with_overlap: bool) -> None:
        nonlocal current
        if current is None:
            return
        drafts.append(current)
        previous, current = current, None
        if with_overlap:
            start = _overlap_start(text, previous, count, overlap)
            if start is not None:
                tail = _Unit(
                    start, previous.end, count(text[start : previous.end]), "text", previous.units[-1].page
                )
                current = _Draft(start, previous.end, tail.tokens, tail.page, "text", [tail])

    for unit in units:
        if unit.kind == "table":
            # A table is a chunk of its own so it is retrieved and cited whole.
            if current is not None and _only_overlap(current, drafts):
                current = None
            close(False)
            drafts.append(_Draft(unit.start, unit.end, unit.tokens, unit.page, "table", [unit]))
            continue
        if current is not None and _only_overlap(current, drafts) and unit.page != current.page:
            current = None  # do not carry an overlap across a page break: the chunk would cite the wrong page
        if current is None:
            current = _Draft(unit.start, unit.end, unit.tokens, unit.page, unit.kind, [unit])
            continue
        new_page = unit.page != current.page
        fits = current.tokens + unit.tokens <= limit and count(text[current.start : unit.end]) <= limit
        # A page break ends the chunk, so its page stays right, unless the new page only finishes the sentence
        # (a short carry-over) or the chunk so far is nothing but headings.
        carry = fits and (
            all(u.kind == "heading" for u in current.units)
            or (
                current.units[-1].page != unit.page
                and unit.tokens < min_tokens
                and not _ENDS_SENTENCE.search(text[current.units[-1].start : current.units[-1].end])
            )
        )
        if new_page and not carry:
            heads = _pop_heading(current)
            close(False)
            current = _Draft(unit.start, unit.end, unit.tokens, unit.page, unit.kind, [unit])
            if heads is not None:
                # A heading at the foot of a page travels with its paragraph on the next page.
                current = _join(text, heads, unit, count, limit, drafts)
            continue
        if fits:
            current.end, current.tokens = unit.end, current.tokens + unit.tokens
            current.units.append(unit)
            continue
        heads = _pop_heading(current)
        if heads is not None:
            # The heading belongs with the paragraph that follows it, not at the end of this chunk.
            close(False)
            current = _join(text, heads, unit, count, limit, drafts)
            continue
        close(True)
        if current is not None and count(text[current.start : unit.end]) <= limit:
            current.end, current.tokens = unit.end, current.tokens + unit.tokens
            current.units.append(unit)
        else:
            # The repeated tail and this unit do not fit together: start afresh without the overlap.
            current = _Draft(unit.start, unit.end, unit.tokens, unit.page, unit.kind, [unit])
    if current is not None and not _only_overlap(current, drafts):
        drafts.append(current)
    return _merge_tiny_tail(text, drafts, count, limit, min_tokens)


def _pop_heading(draft: _Draft) -> _Draft | None:
    """Remove the draft's trailing headings (if it has other content) and return them as a new draft."""
    count = 0
    while count < len(draft.units) - 1 and draft.units[-1 - count].kind == "heading":
        count += 1
    if count == 0:
        return None
    heads = draft.units[-count:]
    del draft.units[-count:]
    draft.end = draft.units[-1].end
    draft.tokens -= sum(u.tokens for u in heads)
    return _Draft(
        heads[0].start, heads[-1].end, sum(u.tokens for u in heads), heads[0].page, "heading", heads
    )


def _join(
    text: str, heads: _Draft, unit: _Unit, count: TokenCounter, limit: int, drafts: list[_Draft]
) -> _Draft:
    """Headings plus the unit after them as one draft, or the headings closed alone when both do not fit."""
    if count(text[heads.start : unit.end]) <= limit:
        heads.units.append(unit)
        heads.end, heads.tokens, heads.kind = unit.end, heads.tokens + unit.tokens, "text"
        return heads
    drafts.append(heads)
    return _Draft(unit.start, unit.end, unit.tokens, unit.page, unit.kind, [unit])


def _only_overlap(draft: _Draft, drafts: list[_Draft]) -> bool:
    """True if the draft holds nothing but text repeated from the previous chunk."""
    return bool(drafts) and draft.end <= drafts[-1].end


def _merge_tiny_tail(
    text: str, drafts: list[_Draft], count: TokenCounter, limit: int, min_tokens: int
) -> list[_Draft]:
    """Fold a section's last tiny chunk into the one before it when the result still fits."""
    if len(drafts) >= 2:
        last, before = drafts[-1], drafts[-2]
        if (
            last.tokens < min_tokens
            and last.kind != "table"
            and before.kind != "table"
            and last.start >= before.start
            and count(text[before.start : last.end]) <= limit
        ):
            before.end = last.end
            before.tokens = count(text[before.start : before.end])
            drafts.pop()
    return drafts
