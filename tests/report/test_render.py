"""Markdown and HTML reports: citations link to references, the audit appendix tells the whole story."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from core.citations import cited_numbers
from core.report.answer_markup import parse_answer
from core.report.render import report_html, report_markdown
from tests.report.conftest import LABEL, REVENUE, WEB_UNAVAILABLE


class _Collector(HTMLParser):
    """Collects ids, hrefs, tags and visible text of an HTML document."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.hrefs: list[str] = []
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name == "id" and value:
                self.ids.add(value)
            if name in {"href", "src"} and value:
                self.hrefs.append(value)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(document: str) -> _Collector:
    collector = _Collector()
    collector.feed(document)
    return collector


def test_answer_parser_keeps_structure_and_splits_citations() -> None:
    blocks = parse_answer("Intro [1, 2].\n\n## Part\n- point **bold** [3][4]\n1. first\nplain [x] text")
    assert [b.kind for b in blocks] == ["paragraph", "heading", "bullet", "ordered", "paragraph"]
    assert [r.cite for r in blocks[0].runs if r.cite] == [1, 2]
    assert [r.cite for r in blocks[2].runs if r.cite] == [3, 4]
    assert any(r.style == "strong" and r.text == "bold" for r in blocks[2].runs)
    assert cited_numbers("a [2] b [1, 2] c [2023] d [4](http://x) e \\[5]") == [2, 1, 2]


def test_markdown_links_every_citation_to_its_reference(record) -> None:
    md = report_markdown(record)
    for number in (1, 2, 3):
        assert f"[\\[{number}\\]](#ref-{number})" in md
        assert f'<a id="ref-{number}"></a>**\\[{number}\\]**' in md
    assert md.index("## Answer") < md.index("## References") < md.index("## Audit appendix")
    # The quote is verbatim text (escaped), shown as a blockquote under its reference.
    assert "> Total revenue grew 17.9% to \\$422.6 million" in md
    assert "Item 7 (Management" in md and "page 11" in md


def test_markdown_without_html_anchors_has_no_html(record) -> None:
    md = report_markdown(record, html_anchors=False)
    assert "<a id" not in md
    assert "(#ref-1)" in md


def test_markdown_audit_appendix_shows_plan_edits_strategy_and_fallbacks(record) -> None:
    md = report_markdown(record)
    appendix = md[md.index("## Audit appendix") :]
    assert "Version 2 — by the analyst" in appendix
    assert "Added step 2" in appendix
    assert "**Strategy:** hybrid (decided by offline)" in appendix
    assert "**Analyst override:** keyword" in appendix
    assert "**Filter widened:** Item 1A alone returned 2 chunks" in appendix
    assert "local lexical scorer" in appendix
    assert "web search unavailable" in appendix
    assert "| e3 | Northwind Robotics, Inc. 10-K FY2025 | Item 7 | page 11 | 0\\.955 |" in appendix
    assert "### Timings" in appendix and "retrieve\\_evidence 0.42 s" in appendix
    assert "### Token usage" in appendix


def test_markdown_flags_unsupported_claims_and_dangling_citations(record) -> None:
    record.answer += "\nA claim citing nothing real [7].\n"
    md = report_markdown(record)
    flagged = md[md.index("## Unsupported or flagged claims") : md.index("## Audit appendix")]
    assert "could not be checked" in flagged
    assert "Citation \\[7\\] appears in the answer but resolves to no reference" in flagged
    assert "Another passage lists several sensor vendors" in flagged
    assert "(#ref-7)" not in md


def test_html_is_self_contained_and_every_citation_resolves(record) -> None:
    document = report_html(record)
    parsed = _parse(document)
    assert document.startswith("<!DOCTYPE html>")
    assert "script" not in parsed.tags and "link" not in parsed.tags and "img" not in parsed.tags
    assert "Content-Security-Policy" in document
    internal = [h for h in parsed.hrefs if h.startswith("#")]
    assert sorted(set(internal)) == ["#ref-1", "#ref-2", "#ref-3"]
    assert all(h[1:] in parsed.ids for h in internal)
    assert not [h for h in parsed.hrefs if not h.startswith("#")], "no external resource or link expected"
    text = " ".join(parsed.text)
    assert LABEL in text and REVENUE in text
    assert "Version 2 — by the analyst" in text and WEB_UNAVAILABLE in text


def test_html_links_only_http_web_sources(record) -> None:
    from core.models import Citation

    record.citations += [
        Citation(
            number=4,
            evidence_id="w9",
            quote="Kestrel opened a plant.",
            url="https://example.com/k?a=1&b=2",
            title="Kestrel news",
            date="2026-01-05",
        ),
        Citation(number=5, evidence_id="w8", quote="Data URL.", url="data:text/html,<b>x</b>", title="Odd"),
    ]
    document = report_html(record)
    assert 'href="https://example.com/k?a=1&amp;b=2"' in document
    assert 'href="data:' not in document
    assert "not linked: not an http(s) address" in document
    md = report_markdown(record)
    assert "](<https://example.com/k?a=1&b=2>)" in md
    assert "](<data:" not in md and "](data:" not in md


def test_empty_run_renders_without_errors() -> None:
    from core.models import RunRecord

    empty = RunRecord(run_id="r0", question="Anything?", status="awaiting_plan_review")
    md = report_markdown(empty)
    assert "No answer has been written yet" in md and "No step was executed" in md
    assert re.search(r"<h2>Audit appendix</h2>", report_html(empty))


def test_answer_markdown_escapes_are_read_not_doubled(record) -> None:
    record.answer = (
        "## Answer\n\nRevenue was \\$422\\.6 million [3]\\.\n\n"
        "_No web evidence: web search unavailable._\n\nNot a citation: \\[2\\]\n"
    )
    document = report_html(record)
    assert "Revenue was $422.6 million" in document and "\\$" not in document
    assert "<em>No web evidence: web search unavailable.</em>" in document
    assert "Not a citation: [2]" in document and 'href="#ref-2"' not in document
    # The writer's own "Answer" heading is not repeated under ours.
    assert document.count(">Answer</h") == 1
    md = report_markdown(record)
    assert "Revenue was \\$422.6 million [\\[3\\]](#ref-3)" in md
    assert "*No web evidence: web search unavailable.*" in md


def test_answer_source_list_is_replaced_by_references_only_when_fully_resolvable(record) -> None:
    body = "Revenue grew [3].\n\n### Sources\n- [3] Northwind 10-K, Item 7, p. 11: “Total revenue grew”\n"
    record.answer = body
    md = report_markdown(record)
    assert "Sources" not in md.split("## References")[0]
    # A Sources list with an item that is not a resolvable citation is kept as written.
    record.answer = body + "- See also the 2024 filing.\n"
    md = report_markdown(record)
    assert "#### Sources" in md and "See also the 2024 filing" in md


def test_a_table_of_figures_by_period_is_read_as_a_table_in_every_format() -> None:
    from core.models import RunRecord

    answer = (
        "## Answer\n\nRevenue rose [1][2].\n\n| Period | Acme revenue |\n|---|---:|\n"
        "| Q1 FY2024 | \\$1,210 million [1] |\n| Q2 FY2024 | \\$1,480 million \\| restated [2] |\n\n- a point [1]\n"
    )
    blocks = parse_answer(answer)
    assert [b.kind for b in blocks] == ["heading", "paragraph", "table", "bullet"]
    header, *rows = blocks[2].cells
    assert ["".join(r.text for r in cell) for cell in header] == ["Period", "Acme revenue"]
    assert [[r.cite for r in cell if r.cite] for cell in rows[0]] == [[], [1]]
    assert "".join(r.text for r in rows[1][1]).startswith(
        "$1,480 million | restated"
    )  # an escaped pipe is text
    record = RunRecord(run_id="t1", question="How did revenue move?", status="finished", answer=answer)
    html = report_html(record)
    assert "<table" in html and "Q2 FY2024" in html and "$1,480 million | restated [2]" in html
    assert "| Q1 FY2024 |" in report_markdown(record)


def test_the_answer_as_plain_text_has_no_markup_and_no_escapes():
    from core.report.answer_markup import answer_plain_text

    answer = (
        "## Answer\n\nRevenue was \\$422\\.6 million [3], up **17\\.9%** [1][2]\\.\n\n"
        "| Period | Revenue |\n|---|---:|\n| FY2024 | \\$422\\.6 million \\| restated [3] |\n\n"
        "- a point with `search\\_10k` [1]\n1. first\n2. second\n"
    )
    assert answer_plain_text(answer).splitlines() == [
        "Answer",
        "Revenue was $422.6 million [3], up 17.9% [1][2].",
        "Period | Revenue",
        "FY2024 | $422.6 million | restated [3]",
        "- a point with `search_10k` [1]",
        "1. first",
        "2. second",
    ]
