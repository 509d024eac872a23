"""A library in a Postgres database several app servers share (WORKBENCH_LIBRARY_URL), vectors on a Chroma
server, originals on a shared path: two app-server processes see each other's filings at once, by keyword and
by vector; a delete on one removes it everywhere; a process killed mid-ingest leaves nothing half-ingested
for either (the repair runs against the servers and leaves another server's write under way alone); the
keyword index in SQL ranks as the embedded BM25 index does. Real Postgres (pgserver), real Chroma server."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading

import pytest

from core.config import Settings
from core.index.keyword_index import KeywordIndex
from core.index.postgres_library import LibraryDatabaseUnavailable, PostgresKeywordIndex, PostgresLibrary
from core.index.store import PENDING_WRITES_DIR, IndexStore
from core.service import Workbench
from tests.conftest import REPO_ROOT, SAMPLE_DOCS, free_port
from tests.conftest import make_chunk as _chunk
from tests.index.test_keyword_index import _corpus, _LuceneIdfBM25

pytestmark = pytest.mark.slow

SAMPLE = SAMPLE_DOCS / "northwind_10k_fy2025.html"


def _app_server_env(library_url: str, chroma: tuple[str, int], originals) -> dict[str, str]:
    """The environment of one app server of the shared library (each has its own data directory)."""
    return {
        "WORKBENCH_LIBRARY_URL": library_url,
        "WORKBENCH_CHROMA_HOST": chroma[0],
        "WORKBENCH_CHROMA_PORT": str(chroma[1]),
        "WORKBENCH_ORIGINALS_DIR": str(originals),
    }


def _settings(tmp_path, name: str, library_url: str, chroma: tuple[str, int]) -> Settings:
    return Settings(
        data_dir=tmp_path / name,
        library_url=library_url,
        chroma_host=chroma[0],
        chroma_port=chroma[1],
        originals_dir=tmp_path / "originals",
        web_search_enabled=False,
    )


def _python(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    """`python ARGS` from the repository: a process of its own, an app server's environment added."""
    return subprocess.run(
        [sys.executable, *args],
        cwd=REPO_ROOT,
        env={**os.environ, "HF_HUB_OFFLINE": "1", **env},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _cli(args: list[str], env: dict[str, str], data_dir) -> subprocess.CompletedProcess:
    return _python(["-m", "core.cli", *args, "--data-dir", str(data_dir), "--quiet"], env)


def test_the_keyword_index_in_sql_ranks_as_the_embedded_bm25_after_adds_and_removes(tmp_path, library_url):
    rng = random.Random(7)
    names = [f"f{n:02d}" for n in range(8)]
    texts = {name: _corpus(rng, rng.randint(1, 12)) for name in names}
    library = PostgresLibrary(library_url)
    shared, embedded = PostgresKeywordIndex(library), KeywordIndex(tmp_path / "keywords")
    for index in (shared, embedded):
        for name in names:
            index.add_filing(name, [_chunk(name, i, "Item 7", t) for i, t in enumerate(texts[name])])
        index.remove_filing("f03")
        index.add_filing("f01", [_chunk("f01", i, "Item 7", t) for i, t in enumerate(texts["f00"])])
    texts["f01"] = texts["f00"]
    left = [n for n in names if n != "f03"]
    ids = [f"{f}-{i}" for f in left for i in range(len(texts[f]))]
    assert len(shared) == len(embedded) == len(ids)
    assert shared.ids_by_filing() == embedded.ids_by_filing()
    assert shared.has_filing("f01") and not shared.has_filing("f03")
    for query in (["w1"], ["w2", "w3", "w2"], ["w5", "absent", "w39"]):
        reference = _LuceneIdfBM25([t.split() for f in left for t in texts[f]]).get_scores(query)
        order = sorted((i for i in range(len(ids)) if reference[i] > 0), key=lambda i: (-reference[i], i))
        expected = [(ids[i], round(float(reference[i]), 9)) for i in order]
        assert [(cid, round(s, 9)) for cid, s in shared.search(query, k=500)] == expected
        assert shared.search(query, k=3) == [(c, pytest.approx(s)) for c, s in embedded.search(query, k=3)]
        subset = set(ids[::4])
        in_subset = [cid for cid, _ in expected if cid in subset][:4]
        assert [cid for cid, _ in shared.search(query, k=4, allowed_ids=subset)] == in_subset
        their_filings = sorted({cid.split("-")[0] for cid in subset})
        assert [
            cid for cid, _ in shared.search(query, k=4, allowed_ids=subset, filing_ids=their_filings)
        ] == (in_subset)
        only_f00 = [cid for cid, _ in expected if cid.startswith("f00-")][:3]
        assert [cid for cid, _ in shared.search(query, k=3, filing_ids=["f00"])] == only_f00
    assert shared.search(["w1"], k=5, allowed_ids=set()) == [] and shared.search(["absent"], k=5) == []
    library.close()


def test_two_app_servers_share_one_library(tmp_path, library_url, chroma_server):
    originals = tmp_path / "originals"
    env = _app_server_env(library_url, chroma_server, originals)
    # App server one ingests (a process of its own, with its own data directory).
    done = _cli(["ingest", str(SAMPLE)], env, tmp_path / "one")
    assert done.returncode == 0, done.stderr[-2000:]
    assert not (tmp_path / "one" / "catalog.sqlite").exists() and not (tmp_path / "one" / "keywords").exists()
    (stored,) = originals.iterdir()

    # App server two, started after, finds it at once by keyword and by vector.
    two = Workbench(_settings(tmp_path, "two", library_url, chroma_server))
    (filing,) = two.filings()
    assert stored.name.startswith(filing.filing_id)
    for strategy in ("keyword", "vector"):
        hits = two.retrieve("Fleet Software subscription revenue", strategy=strategy, k=5).chunks
        assert hits and all(h.chunk.filing_id == filing.filing_id for h in hits), strategy
    question = "How did Northwind's Fleet Software revenue change in FY2025?"
    run = two.approve_plan(two.start_research(question, [filing.filing_id]).run_id)
    assert run.status == "finished" and "112.5" in (run.answer or ""), run.error

    # Deleted on app server one (a new process), it is gone from app server two's searches and lists.
    done = _cli(["delete", filing.filing_id], env, tmp_path / "one")
    assert done.returncode == 0, done.stderr[-2000:]
    assert two.filings() == [] and not list(originals.iterdir())
    assert not two.retrieve("Fleet Software subscription revenue", strategy="keyword", k=5).chunks
    assert not two.retrieve("Fleet Software subscription revenue", strategy="vector", k=5).chunks
    assert len(two.store.keywords) == 0
    two.close()


KILLED_CHILD = """
import os, sys
from pathlib import Path
from core.config import Settings
from core.index.postgres_library import PostgresKeywordIndex
from core.service import Workbench

add_filing = PostgresKeywordIndex.add_filing

def add_then_die(self, filing_id, chunks):
    add_filing(self, filing_id, chunks)
    os.kill(os.getpid(), 9)

PostgresKeywordIndex.add_filing = add_then_die
Workbench(Settings(data_dir=Path(sys.argv[1]))).ingest_paths([Path(sys.argv[2])])
print("survived")
"""


def test_an_app_server_killed_mid_ingest_leaves_nothing_for_either(tmp_path, library_url, chroma_server):
    env = _app_server_env(library_url, chroma_server, tmp_path / "originals")
    other = Workbench(_settings(tmp_path, "two", library_url, chroma_server))
    assert other.startup_repairs() == []
    done = _python(["-c", KILLED_CHILD, str(tmp_path / "one"), str(SAMPLE)], env)
    assert done.returncode == -9 and "survived" not in done.stdout, done.stderr[-2000:]
    assert not (tmp_path / "one" / PENDING_WRITES_DIR).exists()  # the mark is in the database
    # Meanwhile, the other app server lists nothing and finds nothing of the half-written filing.
    assert other.filings() == []
    assert not other.retrieve("Fleet Software subscription revenue", strategy="keyword", k=5).chunks

    # The next start of either app server repairs the shared stores.
    restarted = Workbench(_settings(tmp_path, "one", library_url, chroma_server))
    notes = restarted.startup_repairs()
    assert len(notes) == 1 and notes[0].startswith("Removed ") and "did not finish" in notes[0], notes
    store = restarted.store
    assert store.vectors.ids_by_filing() == {} and store.keywords.ids_by_filing() == {}
    assert len(store.keywords) == 0
    assert Workbench(_settings(tmp_path, "three", library_url, chroma_server)).startup_repairs() == []
    (result,) = restarted.ingest_paths([SAMPLE])
    assert result.ok and not result.duplicate
    assert [f.filing_id for f in other.filings()] == [result.filing.filing_id]
    restarted.close()
    other.close()


def test_the_repair_leaves_a_write_under_way_on_another_app_server_alone(
    tmp_path, library_url, chroma_server
):
    writer = IndexStore.open(_settings(tmp_path, "one", library_url, chroma_server))
    chunks = [_chunk("underway", i, "Item 7", f"passage {i} about fleet revenue") for i in range(3)]
    holding, release = threading.Event(), threading.Event()

    def write() -> None:
        with writer.writing("underway"):
            writer.keywords.add_filing("underway", chunks)
            holding.set()
            release.wait(60)

    thread = threading.Thread(target=write)
    thread.start()
    assert holding.wait(60)
    # Another app server starts while the write is under way: its mark's lock is held, so it is left alone.
    repairing = IndexStore.open(_settings(tmp_path, "two", library_url, chroma_server))
    assert repairing.marks.elsewhere() == {"underway"} and repairing.marks.interrupted() == set()
    assert repairing.repair() == []
    assert repairing.keywords.has_filing("underway")
    release.set()
    thread.join()
    assert repairing.marks.elsewhere() == set() == repairing.marks.interrupted()
    writer.close()
    repairing.close()


def test_both_app_servers_name_the_library_alike_on_the_chroma_server(tmp_path, library_url, chroma_server):
    one = IndexStore.open(_settings(tmp_path, "one", library_url, chroma_server))
    two = IndexStore.open(_settings(tmp_path, "two", library_url, chroma_server))
    assert one.vectors.collection_name == two.vectors.collection_name
    assert not (tmp_path / "one" / "library-id").exists()
    one.close()
    two.close()


def test_an_unreachable_library_database_is_one_sentence(tmp_path):
    url = f"postgresql://workbench:secret@localhost:{free_port()}/library?connect_timeout=1"
    with pytest.raises(LibraryDatabaseUnavailable) as caught:
        IndexStore.open(Settings(data_dir=tmp_path / "data", library_url=url))
    message = str(caught.value)
    assert message.startswith("The library database (Postgres at localhost:")
    assert "secret" not in message and "WORKBENCH_LIBRARY_URL" in message
    assert json.dumps(message).count("\\n") == 0
