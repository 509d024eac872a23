"""The pages of retrieved passages and a filing's statement pages, read as table rows with their sources."""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass

from core.finance.lookup import SourcedRow
from core.finance.page_text import PageText, build_page
from core.finance.rows import FigureRow, in_fiscal_years, read_rows
from core.finance.vocabulary import statement_title_kind
from core.index.catalog import Catalog
from core.models import Chunk, Evidence


@dataclass(frozen=True)
class RowSource:
    """Where a table row was read: the passage holding it, the quote to cite, the evidence whose page it is."""

    chunk: Chunk
    quote: str
    page_evidence_id: str


def _source(page: PageText, row: FigureRow, evidence_id: str) -> RowSource | None:
    """The passage that holds the row (or, when a passage boundary cuts it, the one with its values)."""
    found = page.passage_of(row.start, row.end)
    if found is None:
        return None
    chunk, part = found
    return RowSource(chunk, part or row.text, evidence_id)


#: A statement's title sits at the top of its page, after the running header and the company's name.
_TITLE_WINDOW = 400
#: A page is a statement page when it holds at least this many rows whose columns are tied to years.
_MIN_STATEMENT_ROWS = 5
#: How far from the end of the previous page's last passage a title may sit and still title this page.
_LEAD_WINDOW = 600
#: Name under which a filing's statement pages are kept in the catalog (bump the version when the rule
#: that finds them changes, so that they are found again).
_STATEMENT_PAGES_KEY = "statement_pages.v3"
_INDEX_RE = re.compile(r"\bindex to\b|table of contents\s*\n.*\bpage\b", re.I)


class PageReader:
    """Reads the pages of retrieved passages, and finds a filing's statement pages, from the catalog."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._statements: dict[str, dict[str, list[PageText]]] = {}
        self._lock = threading.Lock()

    def page(self, filing_id: str, page: int) -> PageText | None:
        return build_page(filing_id, page, self.catalog.page_chunks(filing_id, page))

    def page_with_lead(self, filing_id: str, page: int) -> PageText | None:
        """The page, preceded by the previous page's last passage: a passage that crosses a page break
        may carry the title and period header of the table the page continues."""
        chunks = self.catalog.page_chunks(filing_id, page)
        if not chunks:
            return None
        before = self.catalog.page_chunks(filing_id, page - 1) if page > 1 else []
        lead = [max(before, key=lambda c: c.char_start)] if before else []
        return build_page(filing_id, page, [*lead, *chunks])

    def statement_pages(self, filing_id: str, kind: str) -> list[PageText]:
        """Pages of a filing that present a primary statement ('income', 'balance', 'cash_flow'), best first:
        titled with it and full of rows with year columns. When a passage that starts on the page before
        carries the statement's title and header (passages can cross a page break), the page text begins
        with that passage, so that its rows get their years."""
        with self._lock:
            index = self._statements.get(filing_id)
        if index is not None and self.catalog.derived(filing_id, _STATEMENT_PAGES_KEY) is None:
            index = None  # re-indexed (or deleted) since: its saved statement pages went with its rows
        if index is None:
            index = {
                k: [p for p in (self._statement_page(filing_id, n, lead) for n, lead in pages) if p]
                for k, pages in self._statement_page_numbers(filing_id).items()
            }
            with self._lock:
                self._statements[filing_id] = index
                while len(self._statements) > 16:
                    self._statements.pop(next(iter(self._statements)))
        return index.get(kind, [])

    def _statement_page(self, filing_id: str, number: int, with_lead: bool) -> PageText | None:
        return self.page_with_lead(filing_id, number) if with_lead else self.page(filing_id, number)

    def _statement_page_numbers(self, filing_id: str) -> dict[str, list[tuple[int, bool]]]:
        """Statement page numbers by kind (and whether the page begins with its lead passage), found once
        per filing and kept in the catalog."""
        saved = self.catalog.derived(filing_id, _STATEMENT_PAGES_KEY)
        if saved is not None:
            return {
                kind: [(int(n), bool(lead)) for n, lead in pages] for kind, pages in json.loads(saved).items()
            }
        found = {
            kind: [(page.page, page.spans[0][0].page != page.page) for page in pages]
            for kind, pages in self._index_statements(filing_id).items()
        }
        self.catalog.set_derived(filing_id, _STATEMENT_PAGES_KEY, json.dumps(found))
        return found

    def _index_statements(self, filing_id: str) -> dict[str, list[PageText]]:
        by_page: dict[int, list[Chunk]] = {}
        for chunk in self.catalog.list_chunks(filing_id):
            by_page.setdefault(chunk.page, []).append(chunk)
        scored: dict[str, list[tuple[int, int, PageText]]] = {}
        previous: Chunk | None = None
        for number, chunks in sorted(by_page.items()):
            page = build_page(filing_id, number, chunks)
            if page is None:
                continue
            lead = previous
            previous = max(chunks, key=lambda c: c.char_start)
            if _INDEX_RE.search(page.text[:200]):
                continue  # a list of the statements, not a statement
            kind = statement_title_kind(page.text[:_TITLE_WINDOW])
            if kind is None and lead is not None:
                # The title at the end of the previous page's last passage titles this page.
                kind = statement_title_kind(lead.text[-_LEAD_WINDOW:], last=True)
                page = build_page(filing_id, number, [lead, *chunks]) if kind else page
            if kind is None or page is None:
                continue
            # Only rows on this page count: the lead passage's rows belong to the page before.
            own = page.own_start()
            dated = sum(
                1
                for row in read_rows(page.text)
                if row.start >= own and any(y is not None for y in row.years)
            )
            if dated >= _MIN_STATEMENT_ROWS:
                scored.setdefault(kind, []).append((dated, number, page))
        return {
            kind: [p for _, _, p in sorted(pages, key=lambda x: (-x[0], x[1]))]
            for kind, pages in scored.items()
        }

    def statement_rows(self, filing_id: str, kinds: list[str], *, rank: int) -> list[SourcedRow]:
        """Rows of the filing's statement pages of the given kinds (cited as the passages that hold them)."""
        out: list[SourcedRow] = []
        for kind in kinds:
            for page in self.statement_pages(filing_id, kind)[:2]:
                for row in self._fiscal_rows(filing_id, page.text):
                    source = _source(page, row, "")
                    if source is not None:
                        out.append(SourcedRow(row, source, rank))
        return out

    def _fiscal_rows(self, filing_id: str, text: str) -> list[FigureRow]:
        """The table rows of a page of the filing, their columns read in the company's fiscal years."""
        filing = self.catalog.get_filing(filing_id)
        return in_fiscal_years(read_rows(text), filing.calendar if filing is not None else None)

    def rows(self, evidence: list[Evidence], *, filing_id: str | None = None) -> list[SourcedRow]:
        """Table rows of every page the filing evidence sits on, best-ranked evidence first."""
        out: list[SourcedRow] = []
        seen: set[tuple[str, int]] = set()
        for rank, ev in enumerate(e for e in evidence if e.kind == "filing" and e.filing_id and e.page):
            assert ev.filing_id is not None and ev.page is not None
            if filing_id and ev.filing_id != filing_id:
                continue
            key = (ev.filing_id, ev.page)
            if key in seen:
                continue
            seen.add(key)
            page = self.page_with_lead(*key)
            if page is None:
                continue
            for row in self._fiscal_rows(ev.filing_id, page.text):
                source = _source(page, row, ev.evidence_id)
                if source is not None:
                    out.append(SourcedRow(row, source, rank))
        return out
