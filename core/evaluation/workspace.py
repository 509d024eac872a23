"""What an evaluation uses of a data directory: its settings, index, retriever and research runner.

The service's Workbench has all four (each built on first use), so an evaluation is handed workbenches
without naming the service, which sits above it.
"""

from __future__ import annotations

from typing import Protocol

from core.config import Settings
from core.graph.runner import ResearchRunner
from core.index.store import IndexStore
from core.retrieval.retriever import Retriever


class Library(Protocol):
    """The analyst's library: the filings of an uploaded question set are taken from it by file name."""

    @property
    def store(self) -> IndexStore: ...


class Workspace(Library, Protocol):
    """A data directory an evaluation runs in: it ingests filings into its index, searches them and runs the
    research graph over them."""

    @property
    def settings(self) -> Settings: ...

    @property
    def retriever(self) -> Retriever: ...

    @property
    def runner(self) -> ResearchRunner: ...
