"""The Item filter across forms: each filing is searched in its own form's section for the Item asked."""

from __future__ import annotations

from core.index.catalog import Catalog
from core.models import Filing, annual_item, section_in_form
from core.retrieval.scope import resolve_scope


def _filing(filing_id: str, form: str, sections: dict[str, int]) -> Filing:
    return Filing(
        filing_id=filing_id, filename=f"{filing_id}.pdf", company="Acme", form=form, fiscal_year=2023,
        source_type="pdf", pages=10, chunks=sum(sections.values()), sections=sections,
    )  # fmt: skip


def _catalog(tmp_path, filings: list[Filing]) -> Catalog:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    with catalog.transaction() as conn:
        for filing in filings:
            catalog.insert_filing(conn, filing, [])
    return catalog


def test_an_item_maps_to_each_forms_own_section():
    assert section_in_form("Item 7", "10-Q") == "Part I Item 2"
    assert section_in_form("Item 1A", "10-Q") == "Part II Item 1A"
    assert section_in_form("Item 8", "Earnings release") == "Statements"
    assert section_in_form("Item 1A", "8-K") is None  # an 8-K has no risk factors: search it whole
    assert section_in_form("Item 7", "10-K/A") == "Item 7"
    assert annual_item("Part I Item 2") == "Item 7" and annual_item("Item 7") == "Item 7"


def test_scope_searches_the_10q_in_its_part_and_item(tmp_path):
    annual = _filing("annual", "10-K", {"Item 1A": 40, "Item 7": 30})
    quarter = _filing("quarter", "10-Q", {"Part I Item 2": 20, "Part II Item 1A": 3})
    current = _filing("event", "8-K", {"Item 2.02": 1, "Exhibit 99": 12})
    catalog = _catalog(tmp_path, [annual, quarter, current])

    scope = resolve_scope(catalog, ["annual", "quarter"], "Item 7", k=10)
    assert sorted(scope.parts) == [(["annual"], "Item 7"), (["quarter"], "Part I Item 2")]
    assert not scope.widened

    scope = resolve_scope(catalog, ["annual", "quarter", "event"], "Item 1A", k=10)
    assert (["quarter"], "Part II Item 1A") in scope.parts and (["event"], None) in scope.parts
    assert (
        scope.widened and "Acme 8-K FY2023 has no section for what a 10-K keeps in Item 1A" in scope.notes[0]
    )
    # Too few passages in the 10-Q's own section: the note names it as the 10-Q does.
    scope = resolve_scope(catalog, ["quarter"], "Item 1A", k=10)
    assert scope.parts == [(["quarter"], "Part II Item 1A")] and scope.fill == (["quarter"], None)
    assert scope.notes[-1].startswith("Item 1A (as Part II Item 1A) holds only 3 passages")

    # A filter every filing has under the same name stays one slice.
    assert resolve_scope(catalog, ["annual"], "Item 7", k=10).parts == [(["annual"], "Item 7")]
