"""The shared embedder under concurrent use (two uploads, or an upload beside a research run)."""

import threading
import time

import numpy as np

from core.index.embeddings import get_embedder


def test_counting_tokens_while_another_thread_embeds_breaks_neither():
    # Chunking one filing counts tokens while another filing's passages are being embedded.
    embedder = get_embedder()
    passages = [f"Net revenue for segment {i} was {'strong ' * (i % 30 + 3)}" for i in range(2000)]
    expected_count = embedder.count_tokens("Total debt rose " * 200)
    counted: list[int] = []
    failures: list[BaseException] = []
    embedding_done = threading.Event()

    def count_until_embedded():
        while not embedding_done.is_set():
            try:
                counted.append(embedder.count_tokens("Total debt rose " * 200))
                time.sleep(0.002)  # as often as a chunker asks, without starving the embedding thread
            except BaseException as error:  # the test reports whatever broke
                failures.append(error)
                return

    counter = threading.Thread(target=count_until_embedded)
    counter.start()
    try:
        vectors = embedder.embed_documents(passages)
    finally:
        embedding_done.set()
        counter.join(timeout=60)
    assert not failures
    assert counted and set(counted) == {expected_count}
    assert vectors.shape == (len(passages), embedder.dimension)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)


def test_count_tokens_excludes_special_tokens_and_never_truncates():
    embedder = get_embedder()
    long_text = "revenue " * (embedder.max_tokens * 2)
    assert embedder.count_tokens(long_text) > embedder.max_tokens
    assert embedder.count_tokens("") == 0
