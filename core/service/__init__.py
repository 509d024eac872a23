"""The one API that the pages and the command line call."""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable, Iterable
from functools import cached_property
from pathlib import Path
from typing import Any

from core.config import ServiceUnavailable, Settings, save_settings
from core.failures import WorkbenchError, failure_message
from core.finance.statement_tables import statement_tables
from core.graph.background import BackgroundRuns, LiveRun, RunBusy
from core.graph.deps import EventCallback, build_deps
from core.graph.plan_diff import diff_plans
from core.graph.runner import ResearchRunner, RunNotFound, RunStateError
from core.index.store import IndexStore
from core.ingest.pipeline import INDEX_VERSION, ProgressCallback, ingest_file, reindex_filing
from core.llm import check_connection
from core.models import (
    Chunk,
    Citation,
    Filing,
    FinancialStatements,
    IngestResult,
    Plan,
    RunRecord,
    RunSummary,
    SearchResult,
    SectionSummary,
    TableKind,
)
from core.report.cited_passage import CitedPassage, locate_citation
from core.report.labels import clip
from core.retrieval.facts import FactIndex
from core.retrieval.retriever import Retriever, StrategyChoice
from core.service.evaluation import EvaluationMethods

log = logging.getLogger(__name__)

#: The fictional 10-K bundled with the app (the Research page offers its sample question while it is in
#: the library).
SAMPLE_FILING = Path(__file__).resolve().parents[2] / "sample_docs" / "northwind_10k_fy2025.html"


# What pages catch from this API (every error it raises on purpose is a WorkbenchError, with a message a
# person may be shown) and how they say a failure, re-exported so they need not import the packages below.
__all__ = [
    "SAMPLE_FILING",
    "CitedPassage",
    "FilingNotFound",
    "LiveRun",
    "RunBusy",
    "RunNotFound",
    "RunStateError",
    "ServiceUnavailable",
    "Workbench",
    "WorkbenchError",
    "failure_message",
    "get_workbench",
]


class FilingNotFound(WorkbenchError, KeyError):
    """No filing with the id asked for is in the library."""


class Workbench(EvaluationMethods):
    """Library, retrieval and research operations over one data directory."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._cancel_requests: set[str] = set()  # run ids cancelled; shared by every runner built here
        self.repair_notes: list[str] = []  # what the start-up check of the index repaired, in sentences
        self.warming: list[threading.Thread] = []  # reader-vector fills of uploads to a static index

    @cached_property
    def store(self) -> IndexStore:
        store = IndexStore.open(self.settings)
        # A process killed mid-write (kill -9, power loss) leaves stores that disagree with the catalog.
        self.repair_notes = store.repair()
        for note in self.repair_notes:
            log.warning("start-up check: %s", note)
        return store

    def startup_repairs(self) -> list[str]:
        """Open the index and the run checkpoints (raises ServiceUnavailable, in a sentence, when a
        configured server cannot be reached); returns what the start-up check of the index repaired, in
        sentences (it runs once per process), empty when every store agreed with the catalog."""
        _ = self.store
        _ = self.runner
        return self.repair_notes

    # --- Library -----------------------------------------------------------------------------

    def ingest(
        self, uploads: Iterable[tuple[str, bytes]], on_progress: ProgressCallback | None = None
    ) -> list[IngestResult]:
        """Ingest (filename, bytes) uploads one after another; bad files report errors, others go on.

        With a static index model, each new filing is searchable at once, and a background thread then
        embeds its passages with MiniLM into the embedding cache, so the searches that rescore them need
        not (see IndexStore.warm_reader)."""
        results = [ingest_file(self.store, data, name, on_progress) for name, data in uploads]
        if self.store.rescores:
            for result in results:
                if result.ok and result.filing is not None and not result.duplicate:
                    self._warm_in_background(result.filing.filing_id)
        return results

    def _warm_in_background(self, filing_id: str) -> None:
        def warm() -> None:
            try:
                self.store.warm_reader(filing_id)
            except Exception:  # a deleted filing or a closed store: searches embed what they need
                log.warning("could not prepare the rescoring vectors of %s", filing_id, exc_info=True)

        thread = threading.Thread(target=warm, name=f"warm-{filing_id[:12]}", daemon=True)
        self.warming = [t for t in self.warming if t.is_alive()] + [thread]
        thread.start()

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

    def filings(self) -> list[Filing]:
        return self.store.catalog.list_filings()

    def filing(self, filing_id: str) -> Filing | None:
        return self.store.catalog.get_filing(filing_id)

    def require_filings(self, filing_ids: Iterable[str] | None) -> None:
        """Raise FilingNotFound naming every id that is not in the library: a search or a run over a filing
        that is not there would otherwise read nothing and say only that nothing was found."""
        unknown = [f for f in dict.fromkeys(filing_ids or []) if self.filing(f) is None]
        if unknown:
            listed = ", ".join(unknown)
            raise FilingNotFound(
                f"No filing with id {listed} is in the library; list the filings to see their ids."
                if len(unknown) == 1
                else f"No filings with ids {listed} are in the library; list the filings to see their ids."
            )

    def chunks(self, filing_id: str | None = None) -> list[Chunk]:
        return self.store.catalog.list_chunks(filing_id)

    def sections(self, filing_id: str) -> list[SectionSummary]:
        """A filing's sections in filing order, with chunk counts, page range and a preview."""
        return self.store.catalog.section_summaries(filing_id, preview=lambda text: clip(text, 400))

    def statements(
        self, filing_id: str, *, statement: TableKind | None = None, query: str | None = None
    ) -> FinancialStatements:
        """A filing's tables built from its facts (periods as columns, rows in printed order, each with its page
        and passage): one kind of table when `statement` is given, and the rows a `query` finds — by the words
        of their labels, or, when words find none, by meaning. Raises FilingNotFound for an unknown id."""
        if self.filing(filing_id) is None:
            raise FilingNotFound(f"No filing with id {filing_id} is in the library.")
        # Built per call, so a re-indexed filing shows its new facts; the query embedding is the retriever's.
        facts = FactIndex(self.store.catalog, self.retriever.embed_query)
        return statement_tables(
            filing_id,
            facts.facts(filing_id),
            statement=statement,
            query=query,
            meaning=lambda text: facts.similarity(text, filing_id),
        )

    def cited_passage(self, citation: Citation) -> CitedPassage | None:
        """Where a citation's quote is printed: the passage that holds it, and for a PDF its page with the quote
        highlighted (None for a web source or a filing no longer in the library)."""
        return locate_citation(self.store, citation)

    def delete_filing(self, filing_id: str) -> bool:
        return self.store.delete_filing(filing_id)

    def outdated_filings(self) -> list[Filing]:
        """Filings indexed by an older version of the indexing (re-indexing them improves search)."""
        return [f for f in self.filings() if f.index_version < INDEX_VERSION]

    def reindex(
        self, filing_ids: Iterable[str], on_progress: ProgressCallback | None = None
    ) -> list[IngestResult]:
        """Index filings again from their stored originals with the current indexing, one after another."""
        return [reindex_filing(self.store, filing_id, on_progress) for filing_id in filing_ids]

    # --- Retrieval ---------------------------------------------------------------------------

    @cached_property
    def retriever(self) -> Retriever:
        return Retriever(self.store, self.settings)

    def retrieve(
        self,
        query: str,
        *,
        strategy: StrategyChoice = "auto",
        section: str | None = None,
        filing_ids: list[str] | None = None,
        k: int | None = None,
        top_n: int | None = None,
        route: bool | None = None,
    ) -> SearchResult:
        """One pass of the retrieval funnel: routing to named filings, strategy, Item-filtered search, rerank.
        Raises FilingNotFound for an id not in the library."""
        self.require_filings(filing_ids)
        return self.retriever.search(
            query, strategy=strategy, section=section, filings=filing_ids, k=k, top_n=top_n, route=route
        )

    # --- Research ----------------------------------------------------------------------------

    @cached_property
    def runner(self) -> ResearchRunner:
        settings = self.settings
        return ResearchRunner(settings, lambda: build_deps(settings, store=self.store), self._cancel_requests)

    def start_research(
        self,
        question: str,
        filing_ids: list[str],
        *,
        step_mode: bool = False,
        max_steps: int | None = None,
        run_id: str | None = None,
        on_event: EventCallback | None = None,
        started_by: str | None = None,
    ) -> RunRecord:
        """Plan a question and stop at the plan review; `started_by` names the signed-in analyst. Raises
        FilingNotFound for an id not in the library."""
        self.require_filings(filing_ids)
        return self.runner.start(
            question,
            filing_ids,
            step_mode=step_mode,
            max_steps=max_steps,
            run_id=run_id,
            on_event=on_event,
            started_by=started_by,
        )

    def approve_plan(
        self, run_id: str, plan: Plan | None = None, on_event: EventCallback | None = None
    ) -> RunRecord:
        """Approve the plan (as proposed, or as the analyst edited it) and run."""
        return self.runner.approve_plan(run_id, plan, on_event=on_event)

    def continue_run(
        self, run_id: str, remaining_plan: Plan | None = None, on_event: EventCallback | None = None
    ) -> RunRecord:
        """Continue after a step pause (optionally with an edited remaining plan) or after a crash."""
        return self.runner.continue_run(run_id, remaining_plan, on_event=on_event)

    def finish_early(self, run_id: str, on_event: EventCallback | None = None) -> RunRecord:
        """Skip the remaining steps and write the report."""
        return self.runner.finish_early(run_id, on_event=on_event)

    def override_strategy(
        self, run_id: str, step_index: int, strategy: str, on_event: EventCallback | None = None
    ) -> RunRecord:
        """Re-run one step with the analyst's retrieval strategy."""
        return self.runner.override_strategy(run_id, step_index, strategy, on_event=on_event)

    def get_run(self, run_id: str) -> RunRecord:
        return self.runner.get(run_id)

    @staticmethod
    def plan_edits(proposed: Plan, edited: Plan) -> list[str]:
        """The analyst's edits of a plan, in plain words (as the plan history will record them)."""
        return diff_plans(proposed, edited)

    # --- Research in the background (the app) -------------------------------------------------

    @cached_property
    def background(self) -> BackgroundRuns:
        return BackgroundRuns(self.settings.max_concurrent_runs)

    def start_research_in_background(
        self,
        question: str,
        filing_ids: list[str],
        *,
        step_mode: bool = False,
        max_steps: int | None = None,
        started_by: str | None = None,
    ) -> str:
        """Queue the planning of a question on a worker; returns the new run's id at once. Raises
        FilingNotFound at once for an id not in the library."""
        self.require_filings(filing_ids)
        run_id = uuid.uuid4().hex[:12]
        self.background.submit(
            run_id,
            "Planning the research…",
            1,
            self.start_research,
            question,
            filing_ids,
            step_mode=step_mode,
            max_steps=max_steps,
            run_id=run_id,
            started_by=started_by,
        )
        return run_id

    def run_in_background(
        self, run_id: str, label: str, total_steps: int, call: Callable[..., RunRecord], *args: Any
    ) -> LiveRun:
        """Queue one of this workbench's run actions (approve_plan, continue_run, finish_early,
        override_strategy) on a worker; raises RunBusy if the run already has one queued or running."""
        return self.background.submit(run_id, label, total_steps, call, *args)

    def live_run(self, run_id: str) -> LiveRun | None:
        """The run's latest background action in this app (None if it had none)."""
        return self.background.get(run_id)

    def active_runs(self) -> dict[str, LiveRun]:
        """Runs with a background action queued or running."""
        return self.background.active()

    def cancel_run(self, run_id: str) -> bool:
        """Stop a run's background action before its next stage (a queued one stops at once); the run keeps
        its checkpoints and can be resumed. False when the run has no action queued or running."""
        if run_id not in self.background.active():
            return False
        self.runner.cancel(run_id)
        return True

    def close(self) -> None:
        """Stop the background workers (waiting for running actions), close the run checkpoints and the
        library database's connections (an embedded library's files need no closing)."""
        if "background" in self.__dict__:
            self.background.shutdown()
        if "runner" in self.__dict__:
            self.runner.close()
        if "store" in self.__dict__ and self.store.library is not None:
            self.store.library.close()

    def list_runs(self) -> list[RunSummary]:
        return self.runner.list_runs()

    # --- Evaluation (the methods are in core/service/evaluation.py) ---------------------------------

    def evaluation_workspace(self, data_dir: Path) -> Workbench:
        """The workbench of the data directory evaluations run in (these settings, that directory; its library
        is that directory's own, never the shared library of WORKBENCH_LIBRARY_URL)."""
        own = {"data_dir": data_dir, "library_url": None, "originals_dir": None}
        return get_workbench(self.settings.model_copy(update=own))

    # --- Settings ----------------------------------------------------------------------------

    def apply_settings(self, settings: Settings) -> None:
        """Use new settings from now on; components built from the old ones are rebuilt lazily."""
        index_fields = (
            "embedding_model",
            "chroma_host",
            "chroma_port",
            "chroma_namespace",
            "data_dir",
            "library_url",
            "originals_dir",
        )
        index_changed = any(getattr(settings, f) != getattr(self.settings, f) for f in index_fields)
        with self._lock:
            self.settings = settings
            # A run in progress keeps the objects it holds; the next call builds fresh ones.
            for name in ("retriever", "runner") + (("store",) if index_changed else ()):
                self.__dict__.pop(name, None)
            if "store" in self.__dict__:
                self.store.settings = settings  # the same index; ingestion reads the new limits

    def save_settings(self, settings: Settings) -> None:
        """Apply new settings and keep them in the data directory for the next start (never the API key)."""
        save_settings(settings)
        self.apply_settings(settings)

    # --- LLM connection check (the Settings page) ---------------------------------------------

    @staticmethod
    def test_llm_connection(settings: Settings, timeout_s: float = 10.0) -> tuple[bool, str]:
        """One tiny chat call with `settings` (not yet applied); (ok, a message a person understands)."""
        return check_connection(settings, timeout_s)


_WORKBENCHES: dict[tuple, Workbench] = {}
_WORKBENCHES_LOCK = threading.Lock()


def get_workbench(settings: Settings) -> Workbench:
    """One Workbench per data directory and index configuration in this process."""
    library = settings.library_url.get_secret_value() if settings.library_url else None
    key = (str(settings.data_dir.resolve()), settings.chroma_host, settings.embedding_model, library)
    with _WORKBENCHES_LOCK:
        bench = _WORKBENCHES.get(key)
        if bench is None:
            bench = _WORKBENCHES[key] = Workbench(settings)
        elif bench.settings != settings:
            bench.apply_settings(settings)
        return bench
