"""Loaders: printed page numbers from HTML footers, hidden XBRL content dropped, PDF pages numbered from 1."""

from __future__ import annotations

from core.ingest.parse import parse_filing


def test_html_pages_take_the_printed_footer_number():
    pages = [
        "<p>Cover page</p>",
        "<p>Item 1. Business</p><p>We make things.</p><p style='text-align:center'>3</p>",
        "<p>More business.</p><p>Acme Corp | 2024 Form 10-K | 4</p>",
        "<p>A page with no footer.</p>",
    ]
    styled = '<hr style="page-break-after:always"/>'.join(pages)
    bare = "<hr/>".join(pages)  # older EDGAR documents: a bare rule between pages
    for body in (styled, bare):
        parsed = parse_filing(f"<html><body>{body}</body></html>".encode(), "html")
        page_of = {b.text: b.page for b in parsed.blocks}
        assert page_of["Cover page"] == 1 and page_of["We make things."] == 3
        assert page_of["More business."] == 4 and page_of["A page with no footer."] == 4
        assert "3" not in page_of and not any("Form 10-K | 4" in t for t in page_of), "footers are not text"
        assert parsed.pages == 4


def test_hidden_and_script_content_is_dropped():
    html = (
        "<html><head><title>t</title><style>p {color: red}</style></head><body>"
        '<div style="display:none"><ix:header><ix:hidden>dei:EntityCentralIndexKey 0001045810</ix:hidden>'
        "</ix:header></div><script>alert('x')</script>"
        "<p>Item 1. Business</p><p>We sell <span>widgets</span>&#160;and gadgets.</p>"
        '<p style="DISPLAY: none">secret</p></body></html>'
    )
    parsed = parse_filing(html.encode(), "html")
    assert parsed.text == "Item 1. Business\n\nWe sell widgets and gadgets."
    assert parsed.blocks[0].kind == "heading"


def test_pdf_pages_are_numbered_as_a_viewer_shows_them():
    from fpdf import FPDF

    pdf = FPDF(format="letter")
    pdf.set_font("Helvetica", size=11)
    for text in ("First page: Item 1. Business. We make wooden toys.", "Second page: Item 1A. Risk Factors."):
        pdf.add_page()
        pdf.multi_cell(0, 6, text + " Filler sentence for the text layer. " * 20)
    parsed = parse_filing(bytes(pdf.output()), "pdf")
    pages = {b.page for b in parsed.blocks}
    assert pages == {1, 2} and parsed.pages == 2
    assert all(b.page == 1 for b in parsed.blocks if "First page" in b.text)
    assert any(b.page == 2 and "Second page" in b.text for b in parsed.blocks)
