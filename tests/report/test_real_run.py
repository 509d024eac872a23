"""A real offline research run over the sample filing, rendered and exported end to end."""

from __future__ import annotations

import io
import re

import docx
import pytest
from pypdf import PdfReader

from tests.conftest import SAMPLE_DOCS

pytestmark = pytest.mark.slow

QUESTION = (
    "What competition risks does Northwind list, and how did its Fleet Software segment revenue "
    "and R&D spending change in FY2025?"
)


@pytest.fixture(scope="module")
def real_record(tmp_path_factory):
    """Ingest the Northwind sample 10-K and run the offline research graph with the plan auto-approved."""
    from core.config import Settings
    from core.graph.deps import build_deps
    from core.graph.runner import ResearchRunner
    from core.index.store import IndexStore
    from core.ingest.pipeline import ingest_file

    settings = Settings(data_dir=tmp_path_factory.mktemp("report-run") / "data")
    store = IndexStore.open(settings)
    source = SAMPLE_DOCS / "northwind_10k_fy2025.html"
    result = ingest_file(store, source.read_bytes(), source.name)
    assert result.ok and result.filing is not None, result.error
    runner = ResearchRunner(settings, lambda: build_deps(settings, store=store))
    try:
        started = runner.start(QUESTION, [result.filing.filing_id])
        assert started.status == "awaiting_plan_review"
        record = runner.approve_plan(started.run_id)
    finally:
        runner.close()
    assert record.status == "finished", record.error
    return record


def test_real_run_renders_with_resolving_citations(real_record) -> None:
    from core.report.render import report_html, report_markdown

    assert real_record.citations, "the offline writer cites the filing"
    html = report_html(real_record)
    targets = set(re.findall(r'href="#(ref-\d+)"', html))
    assert targets and all(f'id="{target}"' in html for target in targets)
    assert "<script" not in html
    md = report_markdown(real_record)
    assert "## Audit appendix" in md and "Version 1 — by the planner" in md
    for citation in real_record.citations:
        assert f"(#ref-{citation.number})" in md or f"[{citation.number}]" not in real_record.answer


def test_real_run_pdf_and_docx_carry_references(real_record) -> None:
    from core.report.export import export_report

    first = real_record.citations[0]
    pdf = PdfReader(io.BytesIO(export_report(real_record, "pdf")))
    pdf_text = re.sub(r"\s+", " ", " ".join(page.extract_text() or "" for page in pdf.pages))
    document = docx.Document(io.BytesIO(export_report(real_record, "docx")))
    docx_text = " ".join(p.text for p in document.paragraphs)
    for text in (pdf_text, docx_text):
        assert "Audit appendix" in text and "Plan history" in text
        assert f"[{first.number}]" in text
        if first.section:
            assert first.section in text


def test_real_run_graph_and_charts(real_record) -> None:
    from core.report.charts import evidence_coverage_figure, node_timing_figure, strategy_mix_figure
    from core.report.evidence_graph import evidence_graph_data, evidence_graph_html

    nodes, edges = evidence_graph_data(real_record)
    kinds = {node["kind"] for node in nodes}
    assert {"question", "step", "evidence", "item", "filing"} <= kinds
    assert any(edge["kind"] == "supports" for edge in edges)
    assert "new vis.Network" in evidence_graph_html(real_record)
    assert strategy_mix_figure(real_record).data
    assert evidence_coverage_figure(real_record).data
    assert node_timing_figure(real_record).data
