"""Ingest one upload end to end: validate → parse → sections → chunk → embed → index, all or nothing."""

from __future__ import annotations

import hashlib
import logging
import time
from collections import Counter
from collections.abc import Callable

from core.index.store import IndexStore
from core.ingest.chunker import chunk_sections
from core.ingest.errors import IngestError
from core.ingest.parse import parse_filing, split_sections
from core.ingest.validate import check_upload
from core.models import Filing, IngestProgress, IngestResult

log = logging.getLogger(__name__)

ProgressCallback = Callable[[IngestProgress], None]

# Share of a filing's progress bar at the start of each stage (embedding dominates the time).
_STAGE_START = {"validate": 0.0, "parse": 0.03, "sections": 0.15, "chunk": 0.18, "embed": 0.22, "index": 0.93}


def filing_id_for(data: bytes) -> str:
    """A filing's identity: the sha256 of its bytes."""
    return hashlib.sha256(data).hexdigest()


def ingest_file(
    store: IndexStore, data: bytes, filename: str, on_progress: ProgressCallback | None = None
) -> IngestResult:
    """Ingest one file; never raises for bad input, returns a result with a readable error instead."""
    started = time.perf_counter()
    stage_seconds: dict[str, float] = {}
    stage = "validate"

    def report(name: str, fraction_in_stage: float = 0.0, message: str = "") -> None:
        if on_progress is None:
            return
        start = _STAGE_START.get(name, 1.0)
        following = [v for v in _STAGE_START.values() if v > start]
        end = min(following) if following else 1.0
        fraction = min(1.0, start + (end - start) * fraction_in_stage)
        on_progress(IngestProgress(filename=filename, stage=name, fraction=fraction, message=message))

    def timed(name: str) -> float:
        nonlocal stage
        stage = name
        report(name, 0.0, name)
        return time.perf_counter()

    try:
        t = timed("validate")
        settings = store.settings
        source_type = check_upload(data, filename, settings.max_upload_bytes)
        filing_id = filing_id_for(data)
        existing = store.catalog.get_filing(filing_id)
        if existing is not None:
            report("duplicate", 1.0, "Already in the library: nothing changed.")
            return IngestResult(filename=filename, ok=True, filing=existing, duplicate=True)
        stage_seconds["validate"] = time.perf_counter() - t

        t = timed("parse")
        parsed = parse_filing(data, source_type)
        stage_seconds["parse"] = time.perf_counter() - t

        t = timed("sections")
        sections = split_sections(parsed)
        stage_seconds["sections"] = time.perf_counter() - t

        t = timed("chunk")
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
        stage_seconds["chunk"] = time.perf_counter() - t

        t = timed("embed")
        vectors = store.embedder.embed_documents(
            [c.text for c in chunks],
            on_batch=lambda done, total: report("embed", done / total, f"embedded {done}/{total} chunks"),
        )
        stage_seconds["embed"] = time.perf_counter() - t

        t = timed("index")
        filing = Filing(
            filing_id=filing_id,
            filename=filename,
            company=parsed.company or "Unknown company",
            form=parsed.form or "10-K",
            fiscal_year=parsed.fiscal_year,
            source_type=source_type,
            pages=parsed.pages,
            chunks=len(chunks),
            sections=dict(Counter(c.section for c in chunks)),
            section_titles={s.item: s.title for s in sections},
            size_bytes=len(data),
        )
        _write_all_or_nothing(store, filing, chunks, vectors, data)
        stage_seconds["index"] = time.perf_counter() - t
        filing.seconds = round(time.perf_counter() - started, 3)
        with store.catalog.transaction() as conn:
            conn.execute(
                "UPDATE filings SET record = ? WHERE filing_id = ?",
                (filing.model_dump_json(), filing.filing_id),
            )
        report("done", 1.0, f"{len(chunks)} chunks indexed")
        return IngestResult(filename=filename, ok=True, filing=filing, stage_seconds=stage_seconds)
    except IngestError as exc:
        return _failed(filename, str(exc), stage_seconds, on_progress)
    except Exception as exc:
        log.exception("ingesting %r failed at stage %s", filename, stage)
        message = (
            f"Could not ingest this file ({stage} failed: {type(exc).__name__}). Details are in the log."
        )
        return _failed(filename, message, stage_seconds, on_progress)


def _failed(
    filename: str, message: str, stage_seconds: dict[str, float], on_progress: ProgressCallback | None
) -> IngestResult:
    if on_progress:
        on_progress(IngestProgress(filename=filename, stage="error", fraction=1.0, message=message))
    return IngestResult(filename=filename, ok=False, error=message, stage_seconds=stage_seconds)


def _write_all_or_nothing(store: IndexStore, filing: Filing, chunks, vectors, data: bytes) -> None:
    """Write catalog rows, vectors, BM25 postings and the original; undo every store on any failure."""
    upload = store.settings.uploads_dir / f"{filing.filing_id}.{filing.source_type}"
    with store.write_lock:
        try:
            with store.catalog.transaction() as conn:
                store.catalog.insert_filing(conn, filing, chunks)
                store.vectors.add(chunks, vectors)
                store.keywords.add_filing(filing.filing_id, chunks)
                upload.parent.mkdir(parents=True, exist_ok=True)
                upload.write_bytes(data)
        except BaseException:
            # The catalog transaction rolled back by itself; undo the stores that have no transactions.
            for undo in (
                lambda: store.vectors.delete_filing(filing.filing_id),
                lambda: store.keywords.remove_filing(filing.filing_id),
                lambda: upload.unlink(missing_ok=True),
            ):
                try:
                    undo()
                except Exception:
                    log.exception("rollback step failed for %s", filing.filing_id)
            raise
