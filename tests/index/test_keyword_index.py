"""BM25 keyword index: filters, persistence, removal."""

from core.index.keyword_index import KeywordIndex
from tests.conftest import make_chunk as _chunk

CHUNKS_A = [
    _chunk("a", 0, "Item 1A", "Competition in the GPU market is intense and could reduce our margins."),
    _chunk("a", 1, "Item 7", "Data Center revenue was $15,005 million, up 41% from a year ago."),
    _chunk("a", 2, "Item 7", "Research and development expenses increased 39% to $7,339 million."),
]
CHUNKS_B = [
    _chunk("b", 0, "Item 1A", "Our competition includes large cloud providers with greater resources.")
]


def test_search_ranks_matching_chunks_and_applies_allowed_ids(tmp_path):
    index = KeywordIndex(tmp_path / "bm25.pkl")
    index.add_filing("a", CHUNKS_A)
    index.add_filing("b", CHUNKS_B)

    hits = index.search(["data", "center", "revenue"], k=5)
    assert hits[0][0] == "a-1"

    only_b = index.search(["competition"], k=5, allowed_ids={"b-0"})
    assert [cid for cid, _ in only_b] == ["b-0"]
    assert index.search(["competition"], k=5, allowed_ids=set()) == []


def test_numbers_match_across_formatting(tmp_path):
    index = KeywordIndex(tmp_path / "bm25.pkl")
    index.add_filing("a", CHUNKS_A)
    from core.text.tokens import tokenize

    hits = index.search(tokenize("15,005"), k=3)
    assert hits and hits[0][0] == "a-1"


def test_index_persists_and_removal_sticks(tmp_path):
    path = tmp_path / "bm25.pkl"
    index = KeywordIndex(path)
    index.add_filing("a", CHUNKS_A)
    index.add_filing("b", CHUNKS_B)
    index.remove_filing("a")

    reloaded = KeywordIndex(path)
    assert len(reloaded) == 1
    assert not reloaded.has_filing("a")
    assert [cid for cid, _ in reloaded.search(["competition"], k=5)] == ["b-0"]


def test_empty_index_returns_nothing(tmp_path):
    assert KeywordIndex(tmp_path / "bm25.pkl").search(["anything"], k=5) == []


def test_inverted_index_ranks_as_rank_bm25_scores(tmp_path):
    """The postings give rank_bm25's BM25 scores (Lucene idf) for every passage holding a query term."""
    import random

    from core.index.keyword_index import _LuceneIdfBM25

    rng = random.Random(7)
    words = [f"w{i}" for i in range(40)]
    texts = [" ".join(rng.choices(words, k=rng.randint(3, 30))) for _ in range(60)]
    index = KeywordIndex(tmp_path / "bm25.pkl")
    index.add_filing("f", [_chunk("f", i, "Item 7", t) for i, t in enumerate(texts)])
    reference = _LuceneIdfBM25([t.split() for t in texts])
    for query in (["w1"], ["w2", "w3", "w2"], ["w5", "absent", "w39"], ["absent"]):
        expected = reference.get_scores(query)
        order = sorted((i for i in range(len(texts)) if expected[i] > 0), key=lambda i: (-expected[i], i))
        hits = index.search(query, k=len(texts))
        assert [cid for cid, _ in hits] == [f"f-{i}" for i in order]
        assert [round(s, 9) for _, s in hits] == [round(float(expected[i]), 9) for i in order]
        subset = {f"f-{i}" for i in range(0, 60, 3)}
        assert [cid for cid, _ in index.search(query, k=5, allowed_ids=subset)] == [
            f"f-{i}" for i in order if f"f-{i}" in subset
        ][:5]
