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


def test_word_by_word_counts_equal_the_tokenizers_own_for_any_slice():
    import random

    embedder = get_embedder()
    tokenizer = embedder._counting_tokenizer
    text = (
        "Net revenue increased $1,234.5 million (12.3%) year-over-year; naïve café — “quoted” text. "
        "Line\tbreaks\r\nand\u00a0non-breaking\u3000spaces, a\u2028separator, a\x0bvertical tab, 漢字テスト, "
        + "x" * 150
        + " 10-K Item 7. Management’s Discussion and Analysis"
    ) * 3
    rng = random.Random(5)
    for _ in range(400):
        start = rng.randrange(len(text))
        stop = rng.randrange(start, len(text) + 1)
        piece = text[start:stop]
        assert embedder.count_tokens(piece) == len(tokenizer.encode(piece, add_special_tokens=False).ids)


def test_a_tokenizer_that_is_not_bert_wordpiece_counts_whole_texts():
    from tokenizers import Tokenizer, models, pre_tokenizers

    from core.index.token_count import TokenCounter

    tokenizer = Tokenizer(models.WordLevel({"[UNK]": 0, "net": 1, "revenue": 2}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    counter = TokenCounter(tokenizer)
    assert not counter._by_word
    assert counter("net revenue rose, again") == len(tokenizer.encode("net revenue rose, again").ids) == 5
