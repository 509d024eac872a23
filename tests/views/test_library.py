"""Library page with Streamlit's AppTest: filings table, section view, delete."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import REPO_ROOT

SMALL = REPO_ROOT / "tests" / "fixtures" / "small_filing.txt"


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
