"""What graph nodes get from outside the state: settings, index, retriever, agents, event callback."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from core.agents.base import AgentDeps
from core.agents.registry import Agents, llm_agents, offline_agents
from core.config import Settings
from core.models import Fallback, RunEvent

if TYPE_CHECKING:  # type hints only: the index and the retriever load models, imported when built
    from langchain_core.language_models import BaseChatModel

    from core.index.store import IndexStore
    from core.retrieval.facts import FactIndex
    from core.retrieval.pages import PageReader
    from core.retrieval.retriever import Retriever

log = logging.getLogger(__name__)

EventCallback = Callable[[RunEvent], None]


@dataclass
class ResearchDeps:
    """Passed to the graph as its runtime context (`graph.invoke(..., context=deps)`)."""

    settings: Settings
    agents: Agents
    store: IndexStore | None = None
    retriever: Retriever | None = None  # tests pass a fake with the same search()
    chat_model: BaseChatModel | None = None
    on_event: EventCallback | None = None
    web_search: Callable[[str, int], list[dict[str, Any]]] | None = None  # test seam for ddgs
    filing_labels: dict[str, str] = field(default_factory=dict)
    pages: PageReader | None = None  # whole pages of retrieved passages
    facts: FactIndex | None = None  # the filings' table rows, found by meaning
    should_stop: Callable[[], bool] | None = None  # True once the analyst cancelled the run
    run_id: str = ""  # the run these deps serve (its events carry it)

    def stop_requested(self) -> bool:
        """True when the run should stop before its next node (the analyst cancelled it)."""
        return self.should_stop is not None and self.should_stop()

    def emit(self, event: RunEvent) -> None:
        """Send an event to the UI/CLI; a failing callback never stops the run."""
        if self.on_event is None:
            return
        try:
            self.on_event(event)
        except Exception:
            log.exception("on_event callback failed")

    def agent_deps(self, step_index: int | None = None) -> AgentDeps:
        """Fresh per-call agent plumbing (its fallbacks and usage are collected by the node)."""
        embedder = getattr(self.store, "reader", None) if self.store is not None else None
        writing = None
        if self.on_event is not None and self.chat_model is not None:

            def writing(text: str) -> None:
                self.emit(
                    RunEvent(run_id=self.run_id, kind="model_writing", step_index=step_index, message=text)
                )

        return AgentDeps(
            settings=self.settings,
            chat_model=self.chat_model,
            embedder=embedder,
            step_index=step_index,
            on_partial_output=writing,
        )

    def reranker_fallback(self) -> Fallback | None:
        """The retriever's reranker fallback (cross-encoder unavailable), if one happened."""
        return getattr(self.retriever, "fallback", None) if self.retriever is not None else None


def build_deps(
    settings: Settings, *, chat_model: BaseChatModel | None = None, store: IndexStore | None = None
) -> ResearchDeps:
    """Deps for real runs: the index under settings.data_dir, its retriever, and the configured agents."""
    from core.index.store import IndexStore
    from core.retrieval.retriever import Retriever

    store = store or IndexStore.open(settings)
    if settings.llm_provider == "offline":
        agents, model = offline_agents(), None
    else:
        from core.llm import build_chat_model

        model = chat_model or build_chat_model(settings)
        agents = llm_agents(settings.llm_model)
    from core.retrieval.facts import FactIndex
    from core.retrieval.pages import PageReader

    return ResearchDeps(
        settings=settings,
        agents=agents,
        store=store,
        retriever=Retriever(store, settings),
        chat_model=model,
        pages=PageReader(store.catalog),
        facts=FactIndex(store.catalog, store.embedder.embed_query),
    )
