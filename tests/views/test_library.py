"""Library page with Streamlit's AppTest: filings table, section view, delete."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import REPO_ROOT

SMALL = REPO_ROOT / "tests" / "fixtures" / "small_filing.txt"
SAMPLE = REPO_ROOT / "sample_docs" / "northwind_10k_fy2025.html"


@pytest.fixture
def library_app(tmp_path, monkeypatch):
    """The Library page over a fresh data directory."""
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "data"))
    from core.config import get_settings
    from views.shared import workbench

    get_settings.cache_clear()
    workbench.clear()
    yield lambda: AppTest.from_file(str(REPO_ROOT / "pages" / "library.py"), default_timeout=120)
    get_settings.cache_clear()
    workbench.clear()


def test_empty_library_invites_an_upload(library_app):
    at = library_app().run()
    assert not at.exception
    assert at.title[0].value == "Library"
    assert any("No filings yet" in i.value for i in at.info)


def test_ingested_filing_is_listed_with_its_sections_and_can_be_deleted(library_app):
    from views.shared import workbench

    bench = workbench()
    result = bench.ingest([(SMALL.name, SMALL.read_bytes())])[0]
    assert result.ok, result.error

    at = library_app().run()
    assert not at.exception
    filings_table = at.dataframe[0].value
    assert list(filings_table["Passages"]) == [result.filing.chunks]
    sections_table = at.dataframe[1].value
    assert {"Item 1A", "Item 7"} <= set(sections_table["Section"])
    assert sum(sections_table["Passages"]) == result.filing.chunks

    at.button(key=f"delete-{result.filing.filing_id}").click().run()
    assert not at.exception
    assert bench.filings() == []
    assert any("No filings yet" in i.value for i in at.info)


@pytest.fixture(scope="module")
def sample_library(tmp_path_factory):
    """The Library page over a data directory holding the sample 10-K; yields (make the app, bench, filing)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WORKBENCH_DATA_DIR", str(tmp_path_factory.mktemp("library") / "data"))
        mp.setenv("HF_HUB_OFFLINE", "1")
        from core.config import get_settings
        from views.shared import workbench

        get_settings.cache_clear()
        workbench.clear()
        bench = workbench()
        result = bench.ingest_paths([SAMPLE])[0]
        assert result.ok, result.error
        yield (
            lambda: AppTest.from_file(str(REPO_ROOT / "pages" / "library.py"), default_timeout=120),
            bench,
            result.filing,
        )
        get_settings.cache_clear()
        workbench.clear()


def _statement_tables(at: AppTest) -> list:
    return [d.value for d in at.dataframe if "Line item" in d.value.columns]


def _line_items(at: AppTest) -> list[str]:
    return [label.strip("\u2003") for table in _statement_tables(at) for label in table["Line item"]]


@pytest.mark.slow
def test_financials_shows_a_statement_searches_labels_and_opens_a_rows_passage(sample_library):
    make_app, _, filing = sample_library
    key = filing.filing_id[:16]
    at = make_app().run()
    assert not at.exception, at.exception
    assert [t.label for t in at.tabs] == ["Sections", "Financials"]

    # The statements the filing has, the income statement first: periods as columns, rows as printed.
    kinds = at.radio(key=f"fin-kind-{key}")
    assert kinds.options == [
        "Income statement",
        "Balance sheet",
        "Cash flow statement",
        "Segment table",
        "MD&A table",
    ]
    assert kinds.value == "income"
    (income,) = _statement_tables(at)
    assert list(income.columns) == ["Line item", "2025", "2024", "Unit", "Page"]
    items = list(income["Line item"])
    assert items[:2] == ["Revenue", "\u2003Robotics Systems"]  # the heading, then the row indented under it
    assert items.index("Gross profit") < items.index("Operating income") < items.index("Net income")
    total = income[income["Line item"] == "\u2003Total revenue"].iloc[0]
    assert (total["2025"], total["2024"], total["Page"]) == ("422.6", "358.5", "16")

    at.radio(key=f"fin-kind-{key}").set_value("balance").run()
    assert not at.exception, at.exception
    assert "Total assets" in _line_items(at) and "Net income" not in _line_items(at)

    at.text_input(key=f"fin-query-{key}").input("deferred revenue").run()
    assert not at.exception, at.exception
    assert _line_items(at) == [
        "Current liabilities",
        "Deferred revenue, current",
        "Deferred revenue, non-current",
    ]

    # A row's passage, with the row marked in it (the passage as escaped HTML).
    rows = at.selectbox(key=f"fin-row-{key}")
    assert len(rows.options) == 2 and rows.value is None
    rows.select(rows.options[0]).run()
    assert not at.exception, at.exception
    html = "\n".join(e.proto.body for e in at.get("html"))
    assert "<mark>| Deferred revenue, current | 52.6 | 41.3 |</mark>" in html

    # Words no label has: the rows closest in meaning, with how close.
    at.text_input(key=f"fin-query-{key}").input("borrowings").run()
    assert not at.exception, at.exception
    assert "Long-term debt, net" in _line_items(at)
    assert "Match" in _statement_tables(at)[0].columns
    assert any("closest in meaning" in c.value for c in at.caption)


@pytest.mark.slow
def test_financials_shows_document_text_as_text_and_an_old_index_points_to_reindex(sample_library):
    import json
    import sqlite3

    make_app, bench, filing = sample_library
    key = filing.filing_id[:16]
    catalog = bench.settings.data_dir / "catalog.sqlite"
    hostile = "<script>alert(1)</script> **Goodwill** [x](https://example.com)"
    with sqlite3.connect(catalog) as conn:
        for fact_id, record in conn.execute(
            "SELECT fact_id, record FROM facts WHERE filing_id = ?", (filing.filing_id,)
        ):
            data = json.loads(record)
            if data["label"] == "Goodwill":
                data["label"] = hostile
                data["table"] = "<b>BALANCE</b> *SHEETS*"
                conn.execute("UPDATE facts SET record = ? WHERE fact_id = ?", (json.dumps(data), fact_id))
    at = make_app().run()
    at.radio(key=f"fin-kind-{key}").set_value("balance").run()
    assert not at.exception, at.exception
    assert hostile in _line_items(at)  # a dataframe cell: shown as text
    # A table title is Markdown-escaped (a changed title starts a table of its own).
    titles = [m.value for m in at.markdown if "BALANCE" in m.value]
    assert "**\\<b\\>BALANCE\\</b\\> \\*SHEETS\\***" in titles and not [t for t in titles if "<b>" in t]
    at.text_input(key=f"fin-query-{key}").input("goodwill").run()
    options = at.selectbox(key=f"fin-row-{key}").options
    assert [o for o in options if "<script>" in o]  # an option label: plain text

    # A filing indexed before facts were kept: the view says so and points to the Re-index button.
    with sqlite3.connect(catalog) as conn:
        conn.execute("DELETE FROM facts WHERE filing_id = ?", (filing.filing_id,))
    bench.store.catalog.update_filing(filing.model_copy(update={"index_version": 4}))
    at = make_app().run()
    assert not at.exception, at.exception
    assert any("Re-index them" in i.value and "facts" in i.value for i in at.info)
    assert at.button(key="reindex-outdated")
