"""Plain-text filings: decoding, whitespace normalisation and paragraph blocks (form feeds are page breaks)."""

from __future__ import annotations

import re
import unicodedata

from core.ingest.document import RawBlock
from core.ingest.errors import IngestError
from core.ingest.sections import is_heading_line, is_page_number, match_item_heading, title_matches
from core.models import ITEM_NUMBER

# Unicode spaces (NBSP, thin, em…) and zero-width characters that EDGAR documents are full of.
_SPACES = re.compile(r"[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\t\v]")
_ZERO_WIDTH = re.compile(r"[\u200b-\u200d\u2060\ufeff\u00ad\x00-\x08\x0e-\x1f\x7f]")
_BLANK_RUNS = re.compile(r" {2,}")
# PDF extraction sometimes glues a heading onto the previous sentence: "…MN 55423.Item 1A. Risk Factors."
_GLUED_HEADING = re.compile(
    r"(?:(?<=[A-Za-z0-9)”][.:])|(?<=Contents))[ \t\u00a0]*"
    rf"(?=(?:ITEM|Item)[ \u00a0]+{ITEM_NUMBER}(?:[.:—–]\s*|[ \u00a0]{{2,}})[A-Z])"
)
# Contents pages flattened into one line: "Business 5 Item 1A. Risk Factors 15 Item 1B. …".
_TOC_GLUE = re.compile(rf"(?<=\d)[ \t\u00a0]+(?=(?:Item|ITEM)[ \u00a0]+{ITEM_NUMBER}\.|PART[ \u00a0]+I)")
# "Item" and its number on separate lines, as some PDFs print every word on its own line.
_SPLIT_ITEM = re.compile(rf"(?im)^([ \t\u00a0]*items?)[ \t\u00a0]*\n[ \t\u00a0]*({ITEM_NUMBER}[.:—–])")


def decode_text(data: bytes) -> str:
    """Decode text bytes: UTF-8 (with or without BOM), UTF-16 with BOM, else cp1252 / latin-1."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise IngestError("The text file looks like UTF-16 but cannot be decoded.") from exc
    if _looks_utf16_without_bom(data):
        codec = "utf-16-le" if data[1:2] == b"\x00" else "utf-16-be"
        try:
            return data.decode(codec)
        except UnicodeDecodeError:
            pass
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        # cp1252 leaves five bytes undefined; latin-1 maps every byte, so this cannot fail.
        return data.decode("latin-1")


def _looks_utf16_without_bom(data: bytes) -> bool:
    sample = data[:2000]
    if len(sample) < 8:
        return False
    even_nuls = sample[0::2].count(0) / max(1, len(sample[0::2]))
    odd_nuls = sample[1::2].count(0) / max(1, len(sample[1::2]))
    return max(even_nuls, odd_nuls) > 0.6 and min(even_nuls, odd_nuls) < 0.1


def control_char_ratio(text: str) -> float:
    """Share of characters that are control codes other than whitespace: high for binary data."""
    sample = text[:20000]
    if not sample:
        return 0.0
    bad = sum(1 for ch in sample if unicodedata.category(ch) == "Cc" and ch not in "\n\r\t\f")
    return bad / len(sample)


def normalise_line(line: str) -> str:
    """One line with exotic spaces made plain, zero-width marks removed and space runs collapsed."""
    line = _ZERO_WIDTH.sub("", _SPACES.sub(" ", line))
    return _BLANK_RUNS.sub(" ", line).strip()


def paragraph_blocks(page_text: str, page: int) -> list[RawBlock]:
    """Split one page of text into paragraphs at blank lines; Item / Part heading lines become own blocks."""
    blocks: list[RawBlock] = []
    current: list[str] = []
    previous: str | None = None
    page_text = page_text.replace("\r\n", "\n").replace("\r", "\n")
    page_text = _SPLIT_ITEM.sub(r"\1 \2", _TOC_GLUE.sub("\n", _GLUED_HEADING.sub("\n", page_text)))
    lines = [normalise_line(line) for line in page_text.split("\n")]

    def flush() -> None:
        if current:
            blocks.append(RawBlock("text", "\n".join(current), page))
            current.clear()

    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line:
            flush()
            previous = None
            continue
        if is_heading_line(line, previous):
            flush()
            heading = [line]
            item = match_item_heading(line)
            if item is not None and not item.rest:
                # "Item 1." with its title on the next line(s), sometimes split ("Busines" / "s.").
                index = _take_title_lines(lines, index, item.item, heading)
            blocks.append(RawBlock("heading", "\n".join(heading), page))
            previous = None
            continue
        current.append(line)
        previous = line
    flush()
    return blocks


def _take_title_lines(lines: list[str], index: int, item: str, heading: list[str]) -> int:
    """Append the following short lines that spell the Item's title; return the next unread index."""
    taken: list[str] = []
    matched_at = 0
    probe = index
    while probe < len(lines) and len(taken) < 6:
        line = lines[probe]
        probe += 1
        if not line:
            continue
        if len(line) > 120 or is_page_number(line):
            break
        taken.append(line)
        joined = " ".join(taken)
        if not title_matches(item, joined):
            taken.pop()
            break
        matched_at = probe
        if title_matches(item, joined, complete=True) or len(taken) >= 4:
            break  # a title may be broken over several lines ("RISK" / "FACTORS"), but no further
    if matched_at:
        heading.extend(taken)
        return matched_at
    return index


_REFLOW_LINE_CHARS = 5000
_FLAT_HEADING = re.compile(rf"\s+(?=(?:ITEM\s+{ITEM_NUMBER}\.|PART\s+I{{1,3}}V?\b)\s+[A-Z][A-Z’',]{{2,}}\b)")


def split_pages(text: str) -> list[str]:
    """Pages of a plain-text filing: form feeds separate them."""
    return text.split("\f")


def load_txt(data: bytes) -> tuple[list[RawBlock], int]:
    """Blocks of a plain-text filing and its page count; pages are numbered from 1."""
    text = decode_text(data)
    if control_char_ratio(text) > 0.02:
        raise IngestError("This file is not readable text (it contains binary data).", stage="parse")
    pages = split_pages(text)
    blocks: list[RawBlock] = []
    for number, page_text in enumerate(pages, start=1):
        if max((len(line) for line in page_text.split("\n")), default=0) > _REFLOW_LINE_CHARS:
            # Text flattened onto one line (a scraped copy) still has its all-caps Item headings: break there.
            page_text = _FLAT_HEADING.sub("\n\n", page_text)
        blocks.extend(paragraph_blocks(page_text, number))
    return blocks, len(pages)
