"""Document text carrying markup stays text in every export and in the evidence graph."""

from __future__ import annotations

import io
import json
import re

import docx
from markdown_it import MarkdownIt
from pypdf import PdfReader

from core.report.evidence_graph import evidence_graph_data, evidence_graph_html
from core.report.export import export_report
from core.report.render import report_html, report_markdown
from tests.report.conftest import IMG, SCRIPT

_LIVE_SCRIPT = re.compile(r"<script[^>]*>\s*alert", re.IGNORECASE)
_ONERROR_IN_TAG = re.compile(r"<[a-z][^<>]*\bonerror\s*=", re.IGNORECASE)
_JS_HREF = re.compile(r"""href\s*=\s*["']?\s*javascript:""", re.IGNORECASE)


def _assert_inert(document: str) -> None:
    assert not _LIVE_SCRIPT.search(document)
    assert not _ONERROR_IN_TAG.search(document)
    assert not _JS_HREF.search(document)
    assert "<img" not in document.lower()


def test_html_report_escapes_document_text(hostile_record) -> None:
    document = report_html(hostile_record)
    _assert_inert(document)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in document
    assert "&lt;img src=x onerror=alert(1)&gt;" in document
    assert "[click](javascript:alert(1))" in document  # visible as text, not a link
    assert document.count("<script") == 0
    # The answer's own raw <a href="javascript:..."> is text too.
    assert "&lt;a href=&quot;javascript:alert(1)&quot;&gt;" in document
    # A citation number without a reference is not linked.
    assert 'href="#ref-9"' not in document


def test_html_export_bytes_are_inert(hostile_record) -> None:
    _assert_inert(export_report(hostile_record, "html").decode("utf-8"))


def test_markdown_escapes_document_text(hostile_record) -> None:
    md = report_markdown(hostile_record)
    # No unescaped HTML tag in the Markdown source.
    assert not re.search(r"(?<!\\)<(script|img)", md, re.IGNORECASE)
    assert "\\<script\\>alert(1)\\</script\\>" in md
    # Rendered by a CommonMark parser (raw HTML allowed, as a viewer might), document text stays text:
    # the hostile link is visible as written and nothing links to a javascript: URL.
    rendered = MarkdownIt("commonmark", {"html": True}).enable("table").render(md)
    _assert_inert(rendered)
    assert "[click](javascript:alert(1))" in rendered
    # Only our own anchors are raw HTML.
    assert set(re.findall(r"(?<!\\)<a [^>]*>", md)) == {f'<a id="ref-{n}">' for n in (1, 2, 3, 4)}


def test_graph_titles_are_escaped_and_html_is_inert(hostile_record) -> None:
    nodes, edges = evidence_graph_data(hostile_record)
    titles = [item["title"] for item in nodes + edges]
    assert any("&lt;script&gt;alert(1)&lt;/script&gt;" in title for title in titles)
    assert any("&lt;img src=x onerror=alert(1)&gt;" in title for title in titles)
    assert not any("<script" in title or "<img" in title for title in titles)
    page = evidence_graph_html(hostile_record)
    _assert_inert(page)
    # Node data sits inside a script as JSON; parsed back, the hostile text is still escaped.
    data = json.loads(re.search(r"nodes = new vis\.DataSet\((\[.*?\])\);", page, re.DOTALL).group(1))
    assert any("&lt;script&gt;" in node.get("title", "") for node in data)
    assert not any("javascript:" in str(node.get("href", "")) for node in data)


def test_pdf_and_docx_carry_the_text_literally(hostile_record) -> None:
    pdf = PdfReader(io.BytesIO(export_report(hostile_record, "pdf")))
    pdf_text = " ".join(page.extract_text() or "" for page in pdf.pages)
    assert "alert(1)" in pdf_text
    uris = [
        annot.get_object().get("/A", {}).get("/URI", "")
        for page in pdf.pages
        for annot in page.get("/Annots") or []
    ]
    assert not any(str(uri).lower().startswith("javascript") for uri in uris)
    document = docx.Document(io.BytesIO(export_report(hostile_record, "docx")))
    assert any(SCRIPT in p.text for p in document.paragraphs)
    assert any(IMG in p.text for p in document.paragraphs)
    targets = [rel.target_ref for rel in document.part.rels.values() if rel.is_external]
    assert not any(target.lower().startswith("javascript") for target in targets)
