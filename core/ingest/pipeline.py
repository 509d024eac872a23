"""Ingest one upload end to end: validate → parse → sections → chunk → embed → index, all or nothing."""

from __future__ import annotations

import hashlib
import logging
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from core.failures import failure_message
from core.finance.facts import in_fiscal_calendar
from core.index.embedding_cache import CacheStats
from core.index.store import FilingAlreadyIngested, IndexStore
from core.ingest.chunker import chunk_sections
from core.ingest.context import add_context
from core.ingest.errors import IngestError
from core.ingest.parse import parse_filing
from core.ingest.sections import split_sections
from core.ingest.validate import check_upload, display_filename
from core.ingest.xbrl_join import filing_facts
from core.models import (
    UNKNOWN_COMPANY,
    Chunk,
    Fact,
    Filing,
    IngestProgress,
    IngestResult,
    SourceType,
    fiscal_calendar,
)

log = logging.getLogger(__name__)

ProgressCallback = Callable[[IngestProgress], None]

# Share of a filing's progress bar at the start of each stage (embedding dominates the time).
_STAGE_START = {
    "validate": 0.0,
    "parse": 0.03,
    "sections": 0.15,
    "chunk": 0.18,
    "facts": 0.2,
    "embed": 0.22,
    "index": 0.93,
}


def filing_id_for(data: bytes) -> str:
    """A filing's identity: the sha256 of its bytes."""
    return hashlib.sha256(data).hexdigest()


#: How passages are indexed; a filing indexed by an older version can be re-indexed from its stored original.
#: 1: passage text only. 2: each passage indexed with its context line (filing, Item, page heading).
#: 3: tables on PDF pages read as Markdown rows (caption and period header repeated in every part).
#: 4: PDF text read by PDFium, tables laid out from its character boxes.
#: 5: every table row kept as a fact (label, heading, values per period, unit), with the embedding of its name;
#:    content words of "R&D", "SG&A" kept whole by the tokenizer.
#: 6: facts of HTML filings with inline XBRL carry the tagged concept, members and value of each column, and
#:    where printed and tagged disagree, a sentence saying so.
#: 7: a fact's value carries its column's own unit where a table states units per column (scale, per share),
#:    and its column header; more table periods read (category columns, a table's stated date, schedules).
#: 8: a primary statement's row is embedded by its label (its section heading is not what it is).
#: 9: a primary statement continued on the next page without its period header keeps the page before's periods.
#: 10: 10-Qs, 8-Ks and earnings releases are read as what they are: their own sections (a 10-Q's Parts and
#:     Items, an 8-K's Items and furnished exhibit, a release's highlights, outlook, statements and non-GAAP
#:     reconciliations), fiscal quarter and period end from the company's own fiscal calendar.
#: 11: a fact's value carries how many months its column covers and the date it ends ("Three Months Ended
#:     April 1, 2023"); a quarterly report's columns are read in the company's fiscal years; "Condensed
#:     Consolidated" statements are statements.
#: 12: tables read for what they imply without printing it: an award table's weighted-average price is per
#:     share, a "—%" dash is a percentage, a count of awards under a per-share heading counts awards, and
#:     columns before a table's balance dates describe each row at the latest date.
INDEX_VERSION = 12


class _Progress:
    """Reports a filing's progress through the stages and times each stage."""

    def __init__(self, filename: str, on_progress: ProgressCallback | None) -> None:
        self.filename = filename
        self.on_progress = on_progress
        self.stage = "validate"
        self.stage_seconds: dict[str, float] = {}
        self.started = time.perf_counter()
        self._t = self.started

    def report(self, name: str, fraction_in_stage: float = 0.0, message: str = "") -> None:
        if self.on_progress is None:
            return
        start = _STAGE_START.get(name, 1.0)
        following = [v for v in _STAGE_START.values() if v > start]
        end = min(following) if following else 1.0
        fraction = min(1.0, start + (end - start) * fraction_in_stage)
        self.on_progress(
            IngestProgress(filename=self.filename, stage=name, fraction=fraction, message=message)
        )

    def begin(self, name: str) -> None:
        self.stage = name
        self._t = time.perf_counter()
        self.report(name, 0.0)

    def end(self) -> None:
        self.stage_seconds[self.stage] = time.perf_counter() - self._t

    def failed(self, message: str) -> IngestResult:
        if self.on_progress:
            self.on_progress(
                IngestProgress(filename=self.filename, stage="error", fraction=1.0, message=message)
            )
        return IngestResult(filename=self.filename, ok=False, error=message, stage_seconds=self.stage_seconds)

    def crashed(self, exc: Exception, what: str = "ingesting") -> IngestResult:
        log.exception("%s %r failed at stage %s", what, self.filename, self.stage)
        return self.failed(failure_message(f"The {self.stage} stage of {what} this file", exc) + ".")


@dataclass
class _Prepared:
    filing: Filing
    chunks: list[Chunk]
    vectors: np.ndarray
    reused: int
    facts: list[Fact]
    fact_vectors: np.ndarray | None


def _prepare(
    store: IndexStore,
    progress: _Progress,
    data: bytes,
    filename: str,
    source_type: SourceType,
    filing_id: str,
) -> _Prepared:
    """Parse, split into Items, chunk with context and embed, touching no store."""
    settings = store.settings
    progress.begin("parse")
    parsed = parse_filing(data, source_type)
    progress.end()

    progress.begin("sections")
    sections = split_sections(parsed)
    progress.end()

    progress.begin("chunk")
    chunks = chunk_sections(
        parsed,
        sections,
        filing_id=filing_id,
        count_tokens=store.embedder.count_tokens,
        max_tokens=settings.chunk_tokens,
        overlap_tokens=settings.chunk_overlap_tokens,
    )
    if not chunks:
        raise IngestError("No text could be extracted from this file.", stage="chunk")
    chunks = add_context(parsed, chunks)
    progress.end()

    progress.begin("facts")
    calendar = fiscal_calendar(
        parsed.form or "10-K", parsed.fiscal_year, parsed.fiscal_quarter, parsed.period_end
    )
    facts = in_fiscal_calendar(filing_facts(filing_id, chunks, data, source_type), calendar)
    names = [f.search_name for f in facts]
    # Names repeat within a filing and across filings ("Total revenues"): the cache embeds each once.
    fact_vectors = store.embedding_cache.embed(store.embedder, names) if names else None
    progress.end()

    progress.begin("embed")
    stats = CacheStats()
    vectors = store.embedding_cache.embed(
        store.embedder,
        [c.indexed_text for c in chunks],
        on_batch=lambda done, total: progress.report(
            "embed", done / total, f"embedded {done}/{total} chunks"
        ),
        stats=stats,
    )
    progress.end()
    filing = Filing(
        filing_id=filing_id,
        filename=filename,
        company=parsed.company or UNKNOWN_COMPANY,
        form=parsed.form or "10-K",
        fiscal_year=parsed.fiscal_year,
        fiscal_quarter=parsed.fiscal_quarter,
        period_end=parsed.period_end,
        event_items=parsed.event_items,
        source_type=source_type,
        pages=parsed.pages,
        chunks=len(chunks),
        facts=len(facts),
        sections=dict(Counter(c.section for c in chunks)),
        section_titles={s.item: s.title for s in sections},
        size_bytes=len(data),
        index_version=INDEX_VERSION,
    )
    return _Prepared(filing, chunks, vectors, stats.reused, facts, fact_vectors)


def _finish(store: IndexStore, progress: _Progress, prepared: _Prepared) -> IngestResult:
    filing = prepared.filing
    filing.seconds = round(time.perf_counter() - progress.started, 3)
    store.catalog.update_filing(filing)
    progress.report("done", 1.0, f"{len(prepared.chunks)} chunks indexed")
    return IngestResult(
        filename=progress.filename,
        ok=True,
        filing=filing,
        stage_seconds=progress.stage_seconds,
        reused_embeddings=prepared.reused,
    )


def _already_in_library(progress: _Progress, filename: str, filing: Filing | None) -> IngestResult:
    progress.report("duplicate", 1.0, "Already in the library: nothing changed.")
    return IngestResult(filename=filename, ok=True, filing=filing, duplicate=True)


def ingest_file(
    store: IndexStore, data: bytes, filename: str, on_progress: ProgressCallback | None = None
) -> IngestResult:
    """Ingest one file; never raises for bad input, returns a result with a readable error instead."""
    filename = display_filename(filename)
    progress = _Progress(filename, on_progress)
    try:
        progress.begin("validate")
        source_type = check_upload(data, filename, store.settings.max_upload_bytes)
        filing_id = filing_id_for(data)
        existing = store.catalog.get_filing(filing_id)
        if existing is not None:
            return _already_in_library(progress, filename, existing)
        progress.end()
        prepared = _prepare(store, progress, data, filename, source_type, filing_id)
        progress.begin("index")
        try:
            store.add_filing(
                prepared.filing,
                prepared.chunks,
                prepared.vectors,
                data,
                facts=prepared.facts,
                fact_vectors=prepared.fact_vectors,
            )
        except FilingAlreadyIngested:
            # The same file, uploaded twice at once: the other ingestion wrote it first.
            return _already_in_library(progress, filename, store.catalog.get_filing(filing_id))
        progress.end()
        return _finish(store, progress, prepared)
    except IngestError as exc:
        return progress.failed(exc.message)
    except Exception as exc:  # noqa: BLE001 - any failure becomes a readable result; details go to the log
        return progress.crashed(exc)


def reindex_filing(
    store: IndexStore, filing_id: str, on_progress: ProgressCallback | None = None
) -> IngestResult:
    """Index a filing again from its stored original, with the current INDEX_VERSION.

    Parsing, chunking and embedding happen first, touching nothing; then the old passages are replaced in
    every store at once. The name and the time it was first added are kept.
    """
    old = store.catalog.get_filing(filing_id)
    if old is None:
        return IngestResult(filename=filing_id, ok=False, error="This filing is no longer in the library.")
    progress = _Progress(old.filename, on_progress)
    original = store.original_path(old)
    try:
        data = original.read_bytes()
    except OSError:
        return progress.failed(
            "The original file is no longer in the data directory, so it cannot be re-indexed: "
            "delete the filing and upload the file again."
        )
    try:
        prepared = _prepare(store, progress, data, old.filename, old.source_type, filing_id)
        prepared.filing.ingested_at = old.ingested_at
        progress.begin("index")
        store.add_filing(
            prepared.filing,
            prepared.chunks,
            prepared.vectors,
            data,
            replacing=True,
            facts=prepared.facts,
            fact_vectors=prepared.fact_vectors,
        )
        progress.end()
        return _finish(store, progress, prepared)
    except IngestError as exc:
        return progress.failed(exc.message)
    except Exception as exc:  # noqa: BLE001 - as in ingest_file
        return progress.crashed(exc, what="re-indexing")
