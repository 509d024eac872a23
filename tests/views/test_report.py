"""Report page with Streamlit's AppTest: run choice, cited report with live anchors, four exports."""

from __future__ import annotations

import io
import re

import pytest
from streamlit.testing.v1 import AppTest

from core.service.display import escape_html
from tests.conftest import REPO_ROOT, SAMPLE_DOCS

SAMPLE = SAMPLE_DOCS / "northwind_10k_fy2025.html"
PAGE = REPO_ROOT / "pages" / "report.py"


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A data directory holding the sample filing and one finished offline run of the sample question."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WORKBENCH_DATA_DIR", str(tmp_path_factory.mktemp("report") / "data"))
        mp.setenv("HF_HUB_OFFLINE", "1")
        from core.config import get_settings
        from views.shared import workbench

        get_settings.cache_clear()
        workbench.clear()
        bench = workbench()
        filing = bench.ingest_paths([SAMPLE])[0].filing
        question = (
            "What competition risks does Northwind list, and how did its R&D spending change in FY2025?"
        )
        run = bench.start_research(question, [filing.filing_id])
        record = bench.approve_plan(run.run_id)
        assert record.status == "finished"
        yield bench, record
        get_settings.cache_clear()
        workbench.clear()


def _html(at: AppTest) -> str:
    return "\n".join(element.proto.body for element in at.get("html"))


def test_no_runs_invites_a_question(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "data"))
    from core.config import get_settings
    from views.shared import workbench

    get_settings.cache_clear()
    workbench.clear()
    at = AppTest.from_file(str(PAGE), default_timeout=120).run()
    assert not at.exception
    assert any("No research runs yet" in info.value for info in at.info)
    get_settings.cache_clear()
    workbench.clear()


@pytest.mark.slow
def test_report_shows_cited_answer_references_and_four_downloads(finished):
    _, record = finished
    at = AppTest.from_file(str(PAGE), default_timeout=120).run()
    assert not at.exception, at.exception
    assert at.selectbox[0].value == record.run_id
    assert at.query_params["run"] == record.run_id

    html = _html(at)
    assert "<h2>Answer</h2>" in html and "<h2>References</h2>" in html
    for citation in record.citations:
        assert f'id="ref-{citation.number}"' in html
    cited = {int(n) for n in re.findall(r'href="#ref-(\d+)"', html)}
    assert cited and cited <= {c.number for c in record.citations}
    assert "Audit appendix" in html and "Plan history" in html
    # The question and run metadata lead the report; the audit appendix sits apart, in its expander.
    main = next(e.proto.body for e in at.get("html") if "<h2>Answer</h2>" in e.proto.body)
    assert "Question: " in main and "<dt>Engine</dt>" in main and "Audit appendix" not in main
    assert [e.label for e in at.expander] == [
        "Audit appendix: plan history, strategies, evidence, fallbacks, timings"
    ]

    downloads = at.get("download_button")
    assert [d.proto.label for d in downloads] == ["Markdown", "HTML", "PDF", "DOCX"]
    assert all(d.proto.url for d in downloads)


@pytest.mark.slow
def test_exports_offered_carry_citations_and_the_audit_appendix(finished):
    from docx import Document
    from pypdf import PdfReader

    from views.components.exports import export_bytes

    _, record = finished
    first = record.citations[0]
    texts = {
        # Markdown escapes its brackets and punctuation; read it without the backslashes.
        "md": export_bytes(record, "md").decode("utf-8").replace("\\", ""),
        "html": export_bytes(record, "html").decode("utf-8"),
        "pdf": "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(export_bytes(record, "pdf"))).pages),
        "docx": "\n".join(p.text for p in Document(io.BytesIO(export_bytes(record, "docx"))).paragraphs),
    }
    for fmt, text in texts.items():
        assert "[1]" in text, fmt
        assert "Audit appendix" in text, fmt
        assert first.section and first.section in text, fmt
    assert export_bytes(record, "pdf").startswith(b"%PDF")


@pytest.mark.slow
def test_run_in_the_url_is_the_one_shown(finished):
    bench, record = finished
    paused = bench.start_research("What was total revenue in fiscal 2025?", record.filing_ids)
    at = AppTest.from_file(str(PAGE), default_timeout=120)
    at.query_params["run"] = paused.run_id
    at.run()
    assert not at.exception
    assert at.selectbox[0].value == paused.run_id
    assert any("has not finished" in w.value for w in at.warning)
    assert "No answer has been written yet" in _html(at)


@pytest.mark.slow
def test_a_citation_is_shown_in_its_filing_with_the_quote_marked(finished):
    _, record = finished
    chosen = record.citations[-1]
    at = AppTest.from_file(str(PAGE), default_timeout=120)
    at.query_params["cite"] = str(chosen.number)
    at.run()
    assert not at.exception, at.exception
    chooser = at.selectbox(key=f"cite-{record.run_id}")
    assert chooser.value == chosen.number  # the citation in the URL is the one shown
    marked = re.findall(r"<mark>(.*?)</mark>", _html(at), re.S)
    assert marked == [escape_html(chosen.quote)]
    # Choosing another citation shows its passage and puts it in the URL.
    other = record.citations[0]
    chooser.set_value(other.number).run()
    assert at.query_params["cite"] == str(other.number)
    assert re.findall(r"<mark>(.*?)</mark>", _html(at), re.S) == [escape_html(other.quote)]


@pytest.mark.slow
def test_a_pdf_citation_shows_its_page_with_the_quote_highlighted(bench):
    from tests.fixtures.make_fixtures import SMALL_PDF_FILING, SMALL_PDF_QUESTION, text_pdf

    (result,) = bench.ingest([("wingtip-10k.pdf", text_pdf(SMALL_PDF_FILING))])
    assert result.ok, result.error
    run = bench.start_research(SMALL_PDF_QUESTION, [result.filing.filing_id])
    record = bench.approve_plan(run.run_id)
    assert record.status == "finished" and record.citations
    at = AppTest.from_file(str(PAGE), default_timeout=120).run()
    assert not at.exception, at.exception
    assert at.selectbox(key=f"cite-{record.run_id}").value == record.citations[0].number
    assert any("Page 1 of 1" in c.value and "is highlighted" in c.value for c in at.caption)
    assert at.image and at.image[0].value, "the rendered page is shown"
    assert {"The whole page", "The passage as indexed"} <= {e.label for e in at.expander}
    # After a re-index changed the cited passage, the page is still found from the citation's own page.
    moved = record.citations[0].model_copy(update={"chunk_id": f"{result.filing.filing_id[:16]}-99999"})
    passage = bench.cited_passage(moved)
    assert passage.chunk is None and passage.page is not None and passage.page.coverage == 1.0
