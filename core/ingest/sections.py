"""Find a filing's sections, skipping the table of contents: a 10-K's Items (and Parts), a 10-Q's Parts and
Items, an 8-K's Items and the exhibit it furnishes, an earnings release's highlights, outlook, statements
and non-GAAP reconciliations."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from core.ingest.document import Block, ParsedFiling, Section
from core.models import (
    ALL_SECTION_TITLES,
    CURRENT_REPORT_SECTION_TITLES,
    EARNINGS_RELEASE,
    FRONT_MATTER,
    ITEM_TITLES,
    QUARTERLY_SECTION_TITLES,
    UNSECTIONED,
)

ITEM_ORDER: dict[str, int] = {key: index for index, key in enumerate(ITEM_TITLES)}

#: Other titles real filings use for an Item (older forms, common wordings).
_ALT_TITLES: dict[str, tuple[str, ...]] = {
    "Item 2": ("Description of Property",),
    "Item 4": ("Submission of Matters to a Vote of Security Holders", "Removed and Reserved", "Reserved"),
    "Item 6": ("Selected Financial Data", "Reserved", "Selected Consolidated Financial Data"),
    "Item 7": ("MD&A",),
    "Item 8": ("Consolidated Financial Statements and Supplementary Data", "Financial Statements"),
    "Item 9A": ("Controls and Procedures",),
    "Item 10": ("Directors and Executive Officers of the Registrant",),
    "Item 15": ("Exhibits, Financial Statement Schedules", "Exhibits"),
    "Part I Item 1": ("Condensed Consolidated Financial Statements", "Consolidated Financial Statements"),
    "Part I Item 2": ("MD&A",),
    "Part II Item 1A": ("Risk Factors",),
    "Part II Item 2": ("Unregistered Sales of Equity Securities", "Issuer Purchases of Equity Securities"),
    "Part II Item 4": ("Removed and Reserved", "Reserved", "Not applicable"),
    "Exhibit 99": ("Press Release",),
}

# Headings are the one place an Item number may be printed with a space before its letter ("Item 1 A"),
# so this pattern spells the number itself instead of using models.ITEM_NUMBER.
_ITEM_RE = re.compile(
    r"^\s*items?\s*(\d{1,2}(?:\.\d{2})?)\s?([a-c])?(?![\w])"  # "Item 7", "ITEM 1A", "Items 1", "Item 2.02"
    r"(?:\s*(?:and|&|,|through|to|-|–)\s*(?:items?\s*)?\d{1,2}[a-c]?(?![\w]))?"  # "Items 1 and 2"
    r"\s*(?:[.:\-–—]\s*)?"
    r"(.*)$",
    re.IGNORECASE | re.DOTALL,
)
_PART_RE = re.compile(r"^\s*part\s+(iv|i{1,3})(?![\w])\s*(?:[.:\-–—]\s*)?(.*)$", re.IGNORECASE | re.DOTALL)
_TRAILING_PAGE_RE = re.compile(
    r"[\s.·…_]*(?:page\s*)?(?:\d{1,3}|[ivx]{1,5}|[A-Z]-\d{1,3})\s*$", re.IGNORECASE
)
_PAGE_ONLY_RE = re.compile(r"^\s*(?:page\s*)?(?:\d{1,3}|[A-Z]-\d{1,3})\s*$", re.IGNORECASE)
# A line that ends like this continues into the next one, so an "Item 7" starting the next line is a citation.
_CONTINUES_RE = re.compile(
    r"(?:[,;(“\"'’-]|\b(?:see|in|and|of|to|under|our|the|this|within|at|with|from|by|Part\s+I{1,3}V?))\s*$",
    re.IGNORECASE,
)

_MAX_CANDIDATES = 1500
_CITATION_TAIL = re.compile(
    r"\b(?:sections?|of this|in this|of our|herein|below|above)\b|Form 10-K(?! Summary)", re.I
)


def _letters(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower().replace("&", "and"))


def _title_length(item: str) -> int:
    return max(len(title) for title in _titles_for(item))


def _titles_for(item: str) -> tuple[str, ...]:
    return (ALL_SECTION_TITLES[item], *_ALT_TITLES.get(item, ()))


@dataclass(frozen=True, slots=True)
class _Schema:
    """A form's sections: their keys in filing order, how an Item number names them, and the keys a table
    of contents spans (a dense run of headings reaching from the first to the second is a contents list)."""

    order: dict[str, int]
    toc_span: tuple[str, str]
    quarterly: bool = False

    def keys(self, number: str) -> list[str]:
        """The section keys an "Item <number>" heading can start (a 10-Q's Item 1 is in Part I or II)."""
        if self.quarterly:
            return [k for k in (f"Part I Item {number}", f"Part II Item {number}") if k in self.order]
        return [f"Item {number}"] if f"Item {number}" in self.order else []

    def part_of(self, key: str) -> str | None:
        if self.quarterly:
            return key.rsplit(" Item", 1)[0]
        return part_of(key) if key in ITEM_ORDER else None


def _order(titles: dict[str, str]) -> dict[str, int]:
    return {key: index for index, key in enumerate(titles)}


ANNUAL = _Schema(ITEM_ORDER, ("Item 2", "Item 7"))
QUARTERLY = _Schema(_order(QUARTERLY_SECTION_TITLES), ("Part I Item 2", "Part II Item 1"), quarterly=True)
CURRENT_REPORT = _Schema(_order(CURRENT_REPORT_SECTION_TITLES), ("Item 2.02", "Item 9.01"))


_SCHEMAS: dict[str, _Schema | None] = {"10-Q": QUARTERLY, "8-K": CURRENT_REPORT, EARNINGS_RELEASE: None}


def schema_for(form: str) -> _Schema | None:
    """The section schema of a form (a 10-K's for 10-K/A, 20-F and 40-F); None for an earnings release, whose
    sections are found by heading."""
    return _SCHEMAS.get(form.removesuffix("/A"), ANNUAL)


def title_matches(item: str, text: str, *, complete: bool = False) -> bool:
    """True if text starts like one of the Item's known titles (letters only, tolerant of split words).

    With complete=True the whole title must be present, not just its beginning.
    """
    got = _letters(text)
    if not got:
        return False
    for title in _titles_for(item):
        want = _letters(title)
        if got.startswith(want):
            return True
        if complete:
            continue
        common = len(_common_prefix(got, want))
        if common >= min(10, len(want)) or (common == len(got) and len(got) >= 4):
            return True
    return False


def _common_prefix(a: str, b: str) -> str:
    size = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        size += 1
    return a[:size]


@dataclass(slots=True)
class ItemHeading:
    """An Item heading found at the start of a line or block."""

    item: str
    rest: str  # text after "Item 7." on the same line (title, maybe a ToC page number)
    titled: bool  # rest matches a known title of that Item
    page_number_after: bool  # rest ends with a page number, as table-of-contents lines do


def match_item_heading(line: str, schema: _Schema | None = None) -> ItemHeading | None:
    """Recognise "Item 7. Management's Discussion…", "ITEM 1A:", "Items 1 and 2.", "Item 2.02" at the start of
    a line; without a schema, an Item of a 10-K or an 8-K."""
    headings = item_headings(line, schema)
    return headings[0] if headings else None


def item_headings(line: str, schema: _Schema | None = None) -> list[ItemHeading]:
    """Every section an Item heading can start under the schema (one, except an untitled 10-Q Item that
    may be in Part I or Part II); a heading whose title names one of them starts only that one."""
    match = _ITEM_RE.match(line)
    if match is None:
        return []
    number = match.group(1)
    number = number if "." in number else str(int(number))
    number += (match.group(2) or "").upper()
    keys = schema.keys(number) if schema is not None else ANNUAL.keys(number) or CURRENT_REPORT.keys(number)
    if not keys:
        return []
    rest = " ".join(match.group(3).split())
    if rest[:1] in {",", ")", "(", "’", "'"} or rest.lower().startswith(("of ", "in ", "and ", "to ")):
        return []  # "Item 7, Management's…", "Item 7 of this report": running text
    stripped = _TRAILING_PAGE_RE.sub("", rest) if rest else rest
    page_after = bool(rest) and stripped != rest and bool(_letters(stripped))
    found: list[ItemHeading] = []
    for item in keys:
        titled = bool(stripped) and title_matches(item, stripped)
        if titled and len(stripped) > _title_length(item) + 8 and _CITATION_TAIL.search(stripped):
            continue  # "Item 1A. Risk Factors—Pricing section in this Form 10-K": a citation, not a heading
        # An unknown title is accepted only when it looks like a heading, not a sentence.
        if rest and not titled and (len(rest) > 90 or rest[:1].islower() or rest.endswith((",", ";"))):
            continue
        found.append(ItemHeading(item, stripped, titled, page_after))
    if any(h.titled for h in found):
        found = [h for h in found if h.titled]
    return found


def match_part_heading(line: str) -> str | None:
    """Recognise "PART II", "Part II — Other Information" at the start of a line; returns "Part II"."""
    match = _PART_RE.match(line)
    if match is None:
        return None
    rest = match.group(2).strip()
    if rest[:1] in {",", ";"} or len(rest) > 80 or rest[:1].islower():
        return None
    return f"Part {match.group(1).upper()}"


def is_heading_line(line: str, previous: str | None) -> bool:
    """True for a line that starts an Item or Part heading (not a citation wrapped onto a new line)."""
    if previous is not None and previous.strip() and _CONTINUES_RE.search(previous.strip()):
        return False
    return match_item_heading(line) is not None or match_part_heading(line) is not None


def is_page_number(line: str) -> bool:
    """True for a bare printed page number such as "12", "Page 12" or "F-3"."""
    return bool(_PAGE_ONLY_RE.match(line))


@dataclass(slots=True)
class _Candidate:
    block: int
    item: str
    title: str
    weight: float
    char_start: int


def _first_line(text: str) -> str:
    return text.split("\n", 1)[0]


_EXHIBIT_RE = re.compile(r"^\s*(?:exhibit|ex-)\s*99(?:\.\d{1,2})?(?![\d.]\d)", re.IGNORECASE)


def _candidates(blocks: list[Block], schema: _Schema = ANNUAL) -> list[_Candidate]:
    found: list[_Candidate] = []
    for index, block in enumerate(blocks):
        if block.kind == "table":
            continue
        first = _first_line(block.text)
        if schema is CURRENT_REPORT and _EXHIBIT_RE.match(first):
            found.append(_Candidate(index, "Exhibit 99", first.strip()[:120], 1.0, block.char_start))
            continue
        for heading in item_headings(first, schema):
            found.append(_candidate(blocks, index, heading))
    return found


def _candidate(blocks: list[Block], index: int, heading: ItemHeading) -> _Candidate:
    block = blocks[index]
    title = heading.rest
    weight = 1.0 if heading.titled else 0.6
    if not heading.rest:
        # Title on the next line or block ("Item 7." / "Management's Discussion…").
        following = block.text.split("\n", 1)[1] if "\n" in block.text else ""
        if not following and index + 1 < len(blocks):
            following = _first_line(blocks[index + 1].text)
        if following and title_matches(heading.item, following):
            title, weight = " ".join(following.split())[:120], 1.0
            if _TRAILING_PAGE_RE.search(following) and not following.rstrip().endswith("."):
                weight -= 0.5  # "Risk Factors 15": a contents line
        else:
            weight = 0.5
    if heading.page_number_after:
        weight -= 0.5  # "Risk Factors ..... 12" is a table-of-contents line
    return _Candidate(index, heading.item, title, weight, block.char_start)


def _toc_like(cands: list[_Candidate], schema: _Schema = ANNUAL) -> list[bool]:
    """Mark candidates that sit in a dense run of different Items: a table of contents or index."""
    flags = [False] * len(cands)
    window = 2500  # characters; a contents page lists a dozen Items in less than this
    for i, cand in enumerate(cands):
        near = {c.item for c in cands if abs(c.char_start - cand.char_start) <= window}
        if len(near) < 5:
            continue
        # A run of short real Items (Part III "incorporated by reference") is dense too, but a contents list
        # spans from Part I Items to Part II+ Items within the window.
        orders = [schema.order[c.item] for c in cands if abs(c.char_start - cand.char_start) <= window]
        first, second = schema.toc_span
        if min(orders) <= schema.order[first] and max(orders) >= schema.order[second]:
            flags[i] = True
    return flags


def _choose(cands: list[_Candidate], flags: list[bool], schema: _Schema = ANNUAL) -> list[_Candidate]:
    """Heaviest chain of candidates in increasing Item order; ties go to the earliest body heading."""
    weights = [c.weight - (0.8 if flag else 0.0) for c, flag in zip(cands, flags, strict=True)]
    best: list[float] = []
    back: list[int] = []
    for j, cand in enumerate(cands):
        score, prev = weights[j], -1
        for i in range(j):
            if schema.order[cands[i].item] < schema.order[cand.item] and cands[i].block < cand.block:
                candidate_score = best[i] + weights[j]
                if candidate_score > score + 1e-9:
                    score, prev = candidate_score, i
        best.append(score)
        back.append(prev)
    if not cands:
        return []
    # Among equally heavy chains prefer the one ending earliest (later ones are usually citations).
    end = max(range(len(cands)), key=lambda k: (round(best[k], 6), -k))
    chain: list[_Candidate] = []
    while end != -1:
        chain.append(cands[end])
        end = back[end]
    chain.reverse()
    return [c for c in chain if c.weight > 0 or math.isclose(c.weight, 0.0)]


def part_of(item: str) -> str:
    """The 10-K Part an Item belongs to."""
    order = ITEM_ORDER[item]
    if order < ITEM_ORDER["Item 5"]:
        return "Part I"
    if order < ITEM_ORDER["Item 10"]:
        return "Part II"
    if order < ITEM_ORDER["Item 15"]:
        return "Part III"
    return "Part IV"


def split_sections(parsed: ParsedFiling) -> list[Section]:
    """Cover the filing's blocks with its form's sections, in order; text before the first is front matter."""
    blocks = parsed.blocks
    if not blocks:
        return []
    schema = schema_for(parsed.form)
    if schema is None:
        return _release_sections(blocks)
    cands = _candidates(blocks, schema)
    if len(cands) > _MAX_CANDIDATES:
        # The choice below is quadratic; a document with thousands of "Item" lines keeps only titled ones.
        cands = [c for c in cands if c.weight >= 1.0][:_MAX_CANDIDATES]
    chain = _choose(cands, _toc_like(cands, schema), schema)
    sections: list[Section] = []
    starts: list[tuple[int, _Candidate]] = []
    for cand in chain:
        start = cand.block
        # Pull a "PART II" heading that directly precedes the Item into that Item's section.
        if (
            start > 0
            and match_part_heading(_first_line(blocks[start - 1].text))
            and len(blocks[start - 1].text) < 100
        ):
            start -= 1
        if starts and start <= starts[-1][0]:
            start = cand.block
        starts.append((start, cand))
    first_start = starts[0][0] if starts else len(blocks)
    if first_start > 0:
        label = FRONT_MATTER if starts else UNSECTIONED
        sections.append(Section(label, label, None, 0, first_start))
    for k, (start, cand) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(blocks)
        title = _display_title(cand.item, cand.title)
        sections.append(Section(cand.item, title, schema.part_of(cand.item), start, end))
    if schema is ANNUAL:
        sections = _relocate_statements(blocks, sections)
    return sections if schema is CURRENT_REPORT else _split_off_signatures(blocks, sections)


#: An earnings release's headings, by the section they start.
_RELEASE_HEADINGS: list[tuple[str, re.Pattern[str]]] = [
    ("Forward-looking", re.compile(r"^(?:cautionary\b.{0,40}|forward[- ]looking\s+statements?\b)", re.I)),
    ("Non-GAAP", re.compile(r"^.{0,60}\b(?:non-gaap|reconciliations?\s+of)\b", re.I)),
    (
        "Statements",
        re.compile(
            r"^(?:\S+\s+){0,6}?(?:unaudited\s+)?(?:condensed\s+)?consolidated\s+"
            r"(?:statements?\s+of|balance\s+sheets?)",
            re.I,
        ),
    ),
    ("Outlook", re.compile(r"^(?:\S+\s+){0,4}?(?:outlook|guidance)\b", re.I)),
]
_RELEASE_HEADING_CHARS = 120
#: A footnote ("1 Non-GAAP financial measure; …") or a sentence is not a heading.
_NOT_A_HEADING = re.compile(r"^\d+\s|.*[;,.]$")


def _release_sections(blocks: list[Block]) -> list[Section]:
    """An earnings release: its opening (headline, highlights, results) up to the first heading of another
    part, then each part from its heading to the next one of another kind."""
    sections = [Section("Highlights", "Highlights and results", None, 0, len(blocks))]
    for index, block in enumerate(blocks):
        first = _first_line(block.text).strip()
        if block.kind == "table" or len(first) > _RELEASE_HEADING_CHARS or _NOT_A_HEADING.match(first):
            continue
        kind = next((key for key, pattern in _RELEASE_HEADINGS if pattern.match(first)), None)
        if kind is None or kind == sections[-1].item:
            continue
        sections[-1].end_block = index
        sections.append(Section(kind, _clean_title(first) or kind, None, index, len(blocks)))
    return [s for s in sections if s.end_block > s.start_block]


_STATEMENTS_START = re.compile(
    r"^(?:report\s+of\s+independent\s+registered\s+public\s+accounting\s+firm"
    r"|index\s+to\s+(?:the\s+)?consolidated\s+financial\s+statements)",
    re.IGNORECASE,
)
_STATEMENTS_END = re.compile(r"^(?:exhibit\s+index|signatures?)\s*$", re.IGNORECASE)
_SIGNATURES = re.compile(r"^signatures?\s*$", re.IGNORECASE)


def _section_chars(blocks: list[Block], section: Section) -> int:
    return sum(len(b.text) for b in blocks[section.start_block : section.end_block])


def _split(section: Section, at: int, end: int, item: str, title: str, part: str | None) -> list[Section]:
    """Replace blocks [at, end) of a section by a new section, keeping what is left on either side."""
    pieces = [Section(section.item, section.title, section.part, section.start_block, at)]
    pieces.append(Section(item, title, part, at, end))
    pieces.append(Section(section.item, section.title, section.part, end, section.end_block))
    return [p for p in pieces if p.end_block > p.start_block]


def _relocate_statements(blocks: list[Block], sections: list[Section]) -> list[Section]:
    """Label financial statements printed after Item 15 (Item 8 only points to them) as Item 8."""
    item8 = next((k for k, s in enumerate(sections) if s.item == "Item 8"), None)
    if item8 is None or _section_chars(blocks, sections[item8]) > 3000:
        return sections
    for k in range(item8 + 1, len(sections)):
        section = sections[k]
        start = next(
            (i for i in range(section.start_block, section.end_block)
             if blocks[i].kind != "table" and _STATEMENTS_START.match(blocks[i].text)),
            None,
        )  # fmt: skip
        if start is None:
            continue
        end = next(
            (
                i
                for i in range(start + 1, section.end_block)
                if _STATEMENTS_END.match(_first_line(blocks[i].text))
            ),
            section.end_block,
        )
        title = sections[item8].title
        return [*sections[:k], *_split(section, start, end, "Item 8", title, "Part II"), *sections[k + 1 :]]
    return sections


def _split_off_signatures(blocks: list[Block], sections: list[Section]) -> list[Section]:
    """Signatures and whatever follows them after the last Item belong to no Item."""
    if not sections or sections[-1].item in (FRONT_MATTER, UNSECTIONED):
        return sections
    last = sections[-1]
    at = next(
        (i for i in range(last.start_block + 1, last.end_block) if _SIGNATURES.match(blocks[i].text.strip())),
        None,
    )
    if at is None:
        return sections
    return [*sections[:-1], *_split(last, at, last.end_block, UNSECTIONED, UNSECTIONED, None)]


def _display_title(item: str, raw: str) -> str:
    """The heading's own title, or the known title when extraction ran the heading into the body text."""
    title = _clean_title(raw)
    if not title:
        return ALL_SECTION_TITLES[item]
    got = _letters(title)
    for known in _titles_for(item):
        # "Business This Annual Report on Form 10-K ..." starts with the whole known title and goes on;
        # "Propertie s" is the known title with a word split by PDF extraction.
        if got.startswith(_letters(known)) and (len(title) > len(known) + 3 or got == _letters(known)):
            return known
    return title


def _clean_title(title: str) -> str:
    title = " ".join(title.split()).strip(" .:-–—")
    if title.isupper():
        # All-caps headings read better in sentence case; "'S" must not become capitalised.
        small = {"and", "of", "in", "on", "for", "the", "with", "about", "to", "that", "a", "an", "or"}
        words = title.lower().split()
        title = " ".join(w if (i and w in small) else w[:1].upper() + w[1:] for i, w in enumerate(words))
    return title[:160]
