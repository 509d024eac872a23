"""The one API that the pages and the command line call."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path

from core.config import Settings
from core.index.store import IndexStore
from core.ingest.pipeline import ProgressCallback, ingest_file
from core.models import Chunk, Filing, IngestResult, SectionSummary, section_rank

log = logging.getLogger(__name__)

SAMPLE_FILING = Path(__file__).resolve().parents[1] / "sample_docs" / "northwind_10k_fy2025.html"


class Workbench:
    """Library, retrieval and research operations over one data directory."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.Lock()

    @cached_property
    def store(self) -> IndexStore:
        return IndexStore.open(self.settings)

    # --- Library -----------------------------------------------------------------------------

    def ingest(
        self, uploads: Iterable[tuple[str, bytes]], on_progress: ProgressCallback | None = None
    ) -> list[IngestResult]:
        """Ingest (filename, bytes) uploads one after another; bad files report errors, others go on."""
        return [ingest_file(self.store, data, name, on_progress) for name, data in uploads]

    def ingest_paths(
        self, paths: Iterable[Path], on_progress: ProgressCallback | None = None
    ) -> list[IngestResult]:
        """Ingest files from disk (command line and first start)."""
        results = []
        for path in paths:
            try:
                data = path.read_bytes()
            except OSError as exc:
                results.append(
                    IngestResult(filename=path.name, ok=False, error=f"Cannot read file: {exc.strerror}")
                )
                continue
            results.append(ingest_file(self.store, data, path.name, on_progress))
        return results

    def ensure_sample_filing(self) -> IngestResult | None:
        """Ingest the bundled sample filing when the library is empty (first start)."""
        if self.store.catalog.list_filings() or not SAMPLE_FILING.exists():
            return None
        return self.ingest_paths([SAMPLE_FILING])[0]

    def filings(self) -> list[Filing]:
        return self.store.catalog.list_filings()

    def filing(self, filing_id: str) -> Filing | None:
        return self.store.catalog.get_filing(filing_id)

    def chunks(self, filing_id: str | None = None) -> list[Chunk]:
        return self.store.catalog.list_chunks(filing_id)

    def sections(self, filing_id: str) -> list[SectionSummary]:
        """A filing's sections in filing order, with chunk counts, page range and a preview."""
        filing = self.filing(filing_id)
        by_section: dict[str, list[Chunk]] = {}
        for chunk in self.chunks(filing_id):
            by_section.setdefault(chunk.section, []).append(chunk)
        summaries = []
        for name, chunks in by_section.items():
            title = chunks[0].section_title or (filing.section_titles.get(name, "") if filing else "")
            summaries.append(
                SectionSummary(
                    section=name,
                    title=title,
                    chunks=len(chunks),
                    first_page=min(c.page for c in chunks),
                    last_page=max(c.page for c in chunks),
                    preview=" ".join(chunks[0].text.split())[:400],
                )
            )
        return sorted(summaries, key=lambda s: (section_rank(s.section), s.first_page))

    def delete_filing(self, filing_id: str) -> bool:
        return self.store.delete_filing(filing_id)


_WORKBENCHES: dict[tuple, Workbench] = {}
_WORKBENCHES_LOCK = threading.Lock()


def get_workbench(settings: Settings) -> Workbench:
    """One Workbench per data directory and index configuration in this process."""
    key = (str(settings.data_dir.resolve()), settings.chroma_host, settings.embedding_model)
    with _WORKBENCHES_LOCK:
        bench = _WORKBENCHES.get(key)
        if bench is None:
            bench = _WORKBENCHES[key] = Workbench(settings)
        else:
            bench.settings = settings  # settings that need no re-indexing apply at once
        return bench
