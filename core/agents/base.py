"""What every agent call receives besides its inputs, and where it reports fallbacks and token usage."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pydantic import BaseModel

from core.config import Settings
from core.models import Fallback, TokenUsage

if TYPE_CHECKING:
    import numpy as np

InT = TypeVar("InT", bound=BaseModel)
OutT = TypeVar("OutT", bound=BaseModel)


class SentenceEmbedder(Protocol):
    """The part of core.index.embeddings.Embedder the offline agents use."""

    def embed_documents(self, texts: list[str], on_batch: Any = None) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


@dataclass
class AgentDeps:
    """Per-call plumbing: settings, optional models, and sinks for fallbacks and token usage."""

    settings: Settings
    chat_model: Any | None = None
    embedder: SentenceEmbedder | None = None
    step_index: int | None = None
    on_partial_output: Callable[[str], None] | None = None  # the answer so far, while the model writes
    fallbacks: list[Fallback] = field(default_factory=list)
    usage: TokenUsage = field(default_factory=TokenUsage)

    def record_fallback(self, component: str, used: str, reason: str) -> Fallback:
        """Remember that a documented fallback ran instead of `component`."""
        fallback = Fallback(component=component, used=used, reason=reason[:500], step_index=self.step_index)
        self.fallbacks.append(fallback)
        return fallback
