"""Chroma vector store with the bundled MiniLM embeddings: similarity order and metadata filters."""

import pytest

from core.index.embeddings import get_embedder
from core.index.vector_store import VectorStore
from tests.conftest import make_chunk as _chunk

CHUNKS = [
    _chunk("a", 0, "Item 1A", "Intense competition could erode our market share and pricing power."),
    _chunk("a", 1, "Item 7", "Revenue from the data center segment grew strongly this fiscal year."),
    _chunk("b", 0, "Item 1A", "Rivals with more resources may win customers from us."),
    _chunk("b", 1, "Item 2", "Our headquarters campus is located in Santa Clara, California."),
]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    from core.config import Settings

    settings = Settings(data_dir=tmp_path_factory.mktemp("data"))
    embedder = get_embedder(settings.embedding_model)
    vs = VectorStore(settings, embedder)
    vs.add(CHUNKS, embedder.embed_documents([c.text for c in CHUNKS]))
    return vs, embedder


def test_nearest_chunk_is_the_semantically_closest(store):
    vs, embedder = store
    hits = vs.query(embedder.embed_query("threats from competitors"), k=4)
    assert hits[0][0] in {"a-0", "b-0"}
    assert hits[0][1] > hits[-1][1]
    assert all(-1.0 <= score <= 1.0 for _, score in hits)


def test_filters_restrict_filing_and_section(store):
    vs, embedder = store
    query = embedder.embed_query("competition risk")
    assert {cid for cid, _ in vs.query(query, k=10, filing_ids=["b"])} == {"b-0", "b-1"}
    assert {cid for cid, _ in vs.query(query, k=10, section="Item 1A")} == {"a-0", "b-0"}
    assert [cid for cid, _ in vs.query(query, k=10, filing_ids=["a"], section="Item 7")] == ["a-1"]
    assert vs.count(filing_ids=["a"]) == 2


def test_stored_embeddings_round_trip(store):
    vs, embedder = store
    got = vs.get_embeddings(["a-0"])
    expected = embedder.embed_documents([CHUNKS[0].text])[0]
    assert got["a-0"] == pytest.approx(expected, abs=1e-5)
