"""The catalog's list of filings is read once and again after any commit, this process's or another's."""

from __future__ import annotations

from core.index.catalog import Catalog
from core.models import Filing
from tests.conftest import make_chunk


def _filing(filing_id: str, company: str) -> Filing:
    return Filing(
        filing_id=filing_id,
        filename=f"{filing_id}.pdf",
        company=company,
        source_type="pdf",
        pages=1,
        chunks=1,
    )


def test_the_list_of_filings_follows_every_commit_of_this_connection_and_of_another(tmp_path):
    path = tmp_path / "catalog.sqlite"
    here, elsewhere = Catalog(path), Catalog(path)  # two connections: as two app servers on one file
    assert here.list_filings() == []
    with here.transaction() as conn:
        here.insert_filing(conn, _filing("a", "Acme Corp"), [make_chunk("a", 0, "Item 7", "Revenue grew.")])
    assert [f.filing_id for f in here.list_filings()] == ["a"]
    with elsewhere.transaction() as conn:
        elsewhere.insert_filing(conn, _filing("b", "Beta Inc"), [make_chunk("b", 0, "Item 7", "Costs fell.")])
    assert sorted(f.filing_id for f in here.list_filings()) == ["a", "b"]
    elsewhere.update_filing(_filing("a", "Acme Corporation"))
    assert {f.filing_id: f.company for f in here.list_filings()}["a"] == "Acme Corporation"
    with here.transaction() as conn:
        here.delete_filing_rows(conn, "b")
    assert [f.filing_id for f in here.list_filings()] == ["a"]
    assert [f.filing_id for f in elsewhere.list_filings()] == ["a"]
    listed = here.list_filings()
    listed.clear()  # a caller's list is its own
    assert len(here.list_filings()) == 1


def test_a_short_item_is_read_whole_and_a_long_one_from_the_passage_on(tmp_path):
    """A read-on from the second matter of a short Legal Proceedings Item reads the first one too; in a long
    Item it reads only what follows, within the Item."""
    from types import SimpleNamespace

    from core.graph.nodes_step import SHORT_ITEM_PASSAGES, unread_passages_after

    catalog = Catalog(tmp_path / "catalog.sqlite")
    sections = ["Item 1A"] * (SHORT_ITEM_PASSAGES + 2) + ["Item 3"] * 3 + ["Item 7"]
    chunks = [make_chunk("a", i, section, f"Passage {i}.") for i, section in enumerate(sections)]
    with catalog.transaction() as conn:
        catalog.insert_filing(conn, _filing("a", "Acme Corp"), chunks)
    deps = SimpleNamespace(store=SimpleNamespace(catalog=catalog))
    legal = [f"a-{i}" for i, s in enumerate(sections) if s == "Item 3"]
    read = unread_passages_after(deps, [legal[1]], [])
    assert [c.chunk_id for c in read] == [legal[0], legal[2]]
    (hit,) = catalog.get_chunks(["a-2"])
    assert catalog.section_chunks(hit, SHORT_ITEM_PASSAGES) == []  # Item 1A is long
    assert [c.chunk_id for c in unread_passages_after(deps, ["a-2"], [])] == ["a-3", "a-4", "a-5"]
