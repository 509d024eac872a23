"""BM25 keyword index: filters, persistence, removal, adding a filing without refitting the library."""

import math
import pickle
import random

from rank_bm25 import BM25Okapi

from core.index.keyword_index import KeywordIndex
from core.text.tokens import tokenize
from tests.conftest import make_chunk as _chunk


class _LuceneIdfBM25(BM25Okapi):
    """The reference: rank_bm25's BM25Okapi with Lucene's always-positive idf, log(1 + (N - n + 0.5) / (n + 0.5))."""

    def _calc_idf(self, nd):
        self.idf = {w: math.log(1.0 + (self.corpus_size - f + 0.5) / (f + 0.5)) for w, f in nd.items()}


CHUNKS_A = [
    _chunk("a", 0, "Item 1A", "Competition in the GPU market is intense and could reduce our margins."),
    _chunk("a", 1, "Item 7", "Data Center revenue was $15,005 million, up 41% from a year ago."),
    _chunk("a", 2, "Item 7", "Research and development expenses increased 39% to $7,339 million."),
]
CHUNKS_B = [
    _chunk("b", 0, "Item 1A", "Our competition includes large cloud providers with greater resources.")
]


def test_search_ranks_matching_chunks_and_applies_allowed_ids(tmp_path):
    index = KeywordIndex(tmp_path / "keywords")
    index.add_filing("a", CHUNKS_A)
    index.add_filing("b", CHUNKS_B)

    hits = index.search(["data", "center", "revenue"], k=5)
    assert hits[0][0] == "a-1"

    only_b = index.search(["competition"], k=5, allowed_ids={"b-0"})
    assert [cid for cid, _ in only_b] == ["b-0"]
    assert index.search(["competition"], k=5, allowed_ids=set()) == []


def test_numbers_match_across_formatting(tmp_path):
    index = KeywordIndex(tmp_path / "keywords")
    index.add_filing("a", CHUNKS_A)
    from core.text.tokens import tokenize

    hits = index.search(tokenize("15,005"), k=3)
    assert hits and hits[0][0] == "a-1"


def test_index_persists_and_removal_sticks(tmp_path):
    path = tmp_path / "keywords"
    index = KeywordIndex(path)
    index.add_filing("a", CHUNKS_A)
    index.add_filing("b", CHUNKS_B)
    index.remove_filing("a")

    reloaded = KeywordIndex(path)
    assert len(reloaded) == 1
    assert not reloaded.has_filing("a")
    assert [cid for cid, _ in reloaded.search(["competition"], k=5)] == ["b-0"]


def test_empty_index_returns_nothing(tmp_path):
    assert KeywordIndex(tmp_path / "keywords").search(["anything"], k=5) == []


def test_inverted_index_ranks_as_rank_bm25_scores(tmp_path):
    """The postings give rank_bm25's BM25 scores (Lucene idf) for every passage holding a query term."""
    rng = random.Random(7)
    words = [f"w{i}" for i in range(40)]
    texts = [" ".join(rng.choices(words, k=rng.randint(3, 30))) for _ in range(60)]
    index = KeywordIndex(tmp_path / "keywords")
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


def _corpus(rng: random.Random, n: int) -> list[str]:
    words = [f"w{i}" for i in range(40)]
    return [" ".join(rng.choices(words, k=rng.randint(3, 30))) for _ in range(n)]


def test_adding_a_filing_writes_only_that_filing_and_scores_as_one_fitted_library(tmp_path):
    """A new filing's postings are written alone (the others' files are not touched), and the library's
    scores are still those of BM25 fitted over every passage at once; so are they after a removal."""
    rng = random.Random(11)
    texts = {"f": _corpus(rng, 40), "g": _corpus(rng, 25), "h": _corpus(rng, 10)}
    directory = tmp_path / "keywords"
    index = KeywordIndex(directory)
    index.add_filing("f", [_chunk("f", i, "Item 7", t) for i, t in enumerate(texts["f"])])
    index.add_filing("g", [_chunk("g", i, "Item 7", t) for i, t in enumerate(texts["g"])])
    before = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in directory.iterdir()}
    index.add_filing("h", [_chunk("h", i, "Item 7", t) for i, t in enumerate(texts["h"])])
    after = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in directory.iterdir()}
    assert set(after) == set(before) | {"h.npz"} and all(after[name] == before[name] for name in before)

    def expect(filings: list[str], query: list[str]) -> list[tuple[str, float]]:
        ids = [f"{f}-{i}" for f in filings for i in range(len(texts[f]))]
        reference = _LuceneIdfBM25([t.split() for f in filings for t in texts[f]]).get_scores(query)
        order = sorted((i for i in range(len(ids)) if reference[i] > 0), key=lambda i: (-reference[i], i))
        return [(ids[i], round(float(reference[i]), 9)) for i in order]

    for filings, opened in ((["f", "g", "h"], index), (["f", "g", "h"], KeywordIndex(directory))):
        for query in (["w1"], ["w2", "w3", "w2"], ["w5", "absent", "w39"]):
            hits = opened.search(query, k=200)
            assert [(cid, round(s, 9)) for cid, s in hits] == expect(filings, query)
    index.remove_filing("g")
    assert sorted(p.name for p in directory.iterdir()) == ["f.npz", "h.npz"]
    for query in (["w1"], ["w7", "w8"]):
        assert [(cid, round(s, 9)) for cid, s in index.search(query, k=200)] == expect(["f", "h"], query)


def test_a_single_file_index_of_an_earlier_version_is_split_per_filing(tmp_path):
    """An existing library keeps its keyword search: the old file's token lists become per-filing postings."""
    legacy = tmp_path / "bm25.pkl"
    token_lists = {
        "a": ([c.chunk_id for c in CHUNKS_A], [tokenize(c.indexed_text) for c in CHUNKS_A]),
        "b": ([c.chunk_id for c in CHUNKS_B], [tokenize(c.indexed_text) for c in CHUNKS_B]),
    }
    legacy.write_bytes(pickle.dumps({"version": 1, "filings": token_lists}))
    migrated = KeywordIndex(tmp_path / "keywords", legacy=legacy)
    fresh = KeywordIndex(tmp_path / "fresh")
    fresh.add_filing("a", CHUNKS_A)
    fresh.add_filing("b", CHUNKS_B)
    assert not legacy.exists() and len(migrated) == 4
    assert migrated.ids_by_filing() == {"a": {"a-0", "a-1", "a-2"}, "b": {"b-0"}}
    for query in (["competition"], tokenize("data center revenue 15,005")):
        assert migrated.search(query, k=5) == fresh.search(query, k=5)


def test_adds_and_removes_across_merged_segments_rank_as_a_fresh_build(tmp_path, monkeypatch):
    """Filings merged into segments (four at most here), some removed (masked, then merged out), give the
    rankings and scores of an index built afresh from the filings left, and of BM25 fitted over them."""
    import core.index.keyword_index as keyword_index

    monkeypatch.setattr(keyword_index, "SEGMENT_FILINGS", 4)
    rng = random.Random(5)
    names = [f"f{n:02d}" for n in range(11)]
    texts = {name: _corpus(rng, rng.randint(1, 12)) for name in names}
    index = KeywordIndex(tmp_path / "keywords")
    for name in names:
        index.add_filing(name, [_chunk(name, i, "Item 7", t) for i, t in enumerate(texts[name])])
    assert len(index._segments) < len(names)  # merged, not one array per filing
    for name in ("f03", "f04", "f05", "f09"):  # f04 and f05 empty their segment past half: merged again
        index.remove_filing(name)
    index.add_filing("f01", [_chunk("f01", i, "Item 7", t) for i, t in enumerate(texts["f00"])])  # replaced
    texts["f01"] = texts["f00"]
    left = sorted(set(names) - {"f03", "f04", "f05", "f09"})
    fresh = KeywordIndex(tmp_path / "fresh")
    for name in left:
        fresh.add_filing(name, [_chunk(name, i, "Item 7", t) for i, t in enumerate(texts[name])])
    ids = [f"{f}-{i}" for f in left for i in range(len(texts[f]))]
    assert len(index) == len(ids) and index.ids_by_filing() == fresh.ids_by_filing()
    for query in (["w1"], ["w2", "w3", "w2"], ["w5", "absent", "w39"]):
        reference = _LuceneIdfBM25([t.split() for f in left for t in texts[f]]).get_scores(query)
        order = sorted((i for i in range(len(ids)) if reference[i] > 0), key=lambda i: (-reference[i], i))
        expected = [(ids[i], round(float(reference[i]), 9)) for i in order]
        for opened in (index, fresh, KeywordIndex(tmp_path / "keywords")):
            assert [(cid, round(s, 9)) for cid, s in opened.search(query, k=500)] == expected
            assert [cid for cid, _ in opened.search(query, k=3)] == [cid for cid, _ in expected[:3]]
        subset = set(ids[::4])
        assert [cid for cid, _ in index.search(query, k=4, allowed_ids=subset)] == [
            cid for cid, _ in expected if cid in subset
        ][:4]
