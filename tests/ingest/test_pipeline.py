"""Ingestion end to end into real Chroma + BM25: idempotence, all-or-nothing, delete, bad input."""

from __future__ import annotations

import pytest

from core.index.store import IndexStore
from core.ingest.pipeline import filing_id_for, ingest_file
from tests.conftest import REPO_ROOT

FIXTURES = REPO_ROOT / "tests" / "fixtures"
SMALL = FIXTURES / "small_filing.txt"


@pytest.fixture
def store(settings):
    return IndexStore.open(settings)


def _state(store: IndexStore) -> tuple:
    """Everything a failed or repeated ingestion must leave untouched."""
    uploads = (
        sorted(p.name for p in store.settings.uploads_dir.glob("*"))
        if store.settings.uploads_dir.exists()
        else []
    )
    return (
        [f.filing_id for f in store.catalog.list_filings()],
        store.catalog.count_chunks(),
        store.vectors.count(),
        len(store.keywords),
        uploads,
    )


def test_ingest_indexes_every_store_and_reports_progress(store):
    events = []
    result = ingest_file(store, SMALL.read_bytes(), SMALL.name, events.append)
    assert result.ok and not result.duplicate, result.error
    filing = result.filing
    assert filing.filing_id == filing_id_for(SMALL.read_bytes())
    n = filing.chunks
    assert n > 0 and store.catalog.count_chunks() == n == store.vectors.count() == len(store.keywords)
    assert {"Item 1A", "Item 7"} <= set(filing.sections)
    stages = [e.stage for e in events]
    assert stages[0] == "validate" and stages[-1] == "done"
    assert {"parse", "sections", "chunk", "embed", "index"} <= set(stages)
    fractions = [e.fraction for e in events]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0


def test_same_bytes_twice_changes_nothing(store):
    first = ingest_file(store, SMALL.read_bytes(), SMALL.name)
    before = _state(store)
    again = ingest_file(store, SMALL.read_bytes(), "renamed copy.txt")
    assert again.ok and again.duplicate
    assert again.filing.filing_id == first.filing.filing_id
    assert _state(store) == before


def test_one_file_uploaded_twice_at_once_is_ingested_once_and_keeps_its_passages(store, monkeypatch):
    import threading

    # Both ingestions pass the early duplicate check and prepare their passages before either writes.
    both_prepared = threading.Barrier(2, timeout=120)
    add_filing = IndexStore.add_filing

    def add_when_both_are_ready(self, *args, **kwargs):
        both_prepared.wait()
        return add_filing(self, *args, **kwargs)

    monkeypatch.setattr(IndexStore, "add_filing", add_when_both_are_ready)
    results = []
    uploads = [
        threading.Thread(
            target=lambda name=name: results.append(ingest_file(store, SMALL.read_bytes(), name))
        )
        for name in ("first.txt", "second.txt")
    ]
    for upload in uploads:
        upload.start()
    for upload in uploads:
        upload.join(timeout=300)
    assert all(r.ok for r in results) and sorted(r.duplicate for r in results) == [False, True], results
    n = next(r for r in results if not r.duplicate).filing.chunks
    # The one that lost the race wrote nothing and, rolling back, removed nothing of the other's.
    assert store.catalog.count_chunks() == n == store.vectors.count() == len(store.keywords)
    assert len(store.catalog.list_filings()) == 1


def test_failure_while_indexing_leaves_no_trace(store, monkeypatch):
    before = _state(store)

    def explode(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(store.keywords, "add_filing", explode)
    result = ingest_file(store, SMALL.read_bytes(), SMALL.name)
    assert not result.ok
    assert "index" in result.error
    assert _state(store) == before
    monkeypatch.undo()
    # and the same file ingests cleanly afterwards
    assert ingest_file(store, SMALL.read_bytes(), SMALL.name).ok


def test_delete_removes_filing_from_both_indexes(store):
    result = ingest_file(store, SMALL.read_bytes(), SMALL.name)
    assert store.delete_filing(result.filing.filing_id)
    assert _state(store) == ([], 0, 0, 0, [])
    assert not store.delete_filing(result.filing.filing_id)


@pytest.mark.parametrize(
    "name, expected",
    [
        ("empty.txt", "empty"),
        ("image_renamed.pdf", "image"),
        ("zip_renamed.pdf", "zip"),
        ("corrupt.pdf", "pdf"),
        ("encrypted.pdf", "password"),
        ("scanned.pdf", "scan"),
        ("not_a_filing.html", "filing"),
    ],
)
def test_bad_input_is_rejected_with_a_clear_message_and_changes_nothing(store, name, expected):
    ingest_file(store, SMALL.read_bytes(), SMALL.name)
    before = _state(store)
    result = ingest_file(store, (FIXTURES / name).read_bytes(), name)
    assert not result.ok
    assert expected in result.error.lower(), result.error
    assert "\n" not in result.error and len(result.error) < 300
    assert _state(store) == before


def test_file_over_the_size_limit_is_rejected(settings):
    store = IndexStore.open(settings.model_copy(update={"max_upload_mb": 0.001}))
    result = ingest_file(store, SMALL.read_bytes() * 10, "big.txt")
    assert not result.ok and "mb" in result.error.lower()
    assert store.catalog.count_chunks() == 0


@pytest.mark.parametrize("name", ["utf16_filing.txt", "cp1252_filing.txt"])
def test_unusual_encodings_are_decoded(store, name):
    result = ingest_file(store, (FIXTURES / name).read_bytes(), name)
    assert result.ok, result.error
    text = " ".join(c.text for c in store.catalog.list_chunks(result.filing.filing_id))
    assert "\ufffd" not in text and "Ã" not in text


SHORT_FILING_LINES = [
    "ANNUAL REPORT ON FORM 10-K",
    "Acme Widgets, Inc.",
    "Item 1. Business",
    "We make widgets.",
    "Item 1A. Risk Factors",
    "Widgets may break.",
    "Item 7. Management's Discussion and Analysis",
    "Sales rose.",
    "Item 7A. Quantitative and Qualitative Disclosures About Market Risk",
    "Rates move.",
]


def test_a_short_filing_is_judged_alike_as_html_with_line_breaks_and_as_text(store):
    html = "<html><body>" + "<br>".join(SHORT_FILING_LINES) + "</body></html>"
    text = "\n".join(SHORT_FILING_LINES)
    sections = []
    for name, data in (("short.html", html.encode()), ("short.txt", text.encode())):
        result = ingest_file(store, data, name)
        assert result.ok, result.error
        sections.append(set(result.filing.sections))
    assert sections[0] == sections[1] and {"Item 1", "Item 1A", "Item 7", "Item 7A"} <= sections[0]


@pytest.mark.parametrize("name", ["words.txt", "words.html"])
def test_text_without_any_filing_structure_is_rejected_alike_for_html_and_text(store, name):
    words = " ".join(["revenue growth market company product customer"] * 20_000)  # ~1 MB, one line
    data = f"<html><body><p>{words}</p></body></html>" if name.endswith(".html") else words
    result = ingest_file(store, data.encode(), name)
    assert not result.ok and "does not look like an sec filing" in result.error.lower()
    assert result.stage_seconds.get("chunk") is None, "rejected before any chunking"
    assert _state(store) == ([], 0, 0, 0, [])


@pytest.mark.parametrize(
    ("name", "listed"),
    [
        ("../../etc/passwd.txt", "passwd.txt"),
        ("/tmp/absolute/filing.txt", "filing.txt"),
        ("C:\\Users\\me\\filing.txt", "filing.txt"),
        ("bad\x00name\r\n\x1b[31m.txt", "badname[31m.txt"),
        ("\u202etxt.exe", "txt.exe"),
        ("..", "upload"),
        ("x" * 5000 + ".txt", "x" * 115 + "….txt"),
    ],
)
def test_unsafe_upload_names_are_listed_safely_and_never_used_as_paths(store, tmp_path, name, listed):
    result = ingest_file(store, SMALL.read_bytes(), name)
    assert result.ok, result.error
    assert result.filename == listed and result.filing.filename == listed
    stored = list(store.settings.uploads_dir.iterdir())
    assert [p.name for p in stored] == [f"{result.filing.filing_id}.txt"]
    assert not (tmp_path / "etc").exists() and not (tmp_path.parent / "etc").exists()
