"""The cited report as a Word document (python-docx), citations linked to bookmarked references."""

from __future__ import annotations

import io
from collections.abc import Sequence

from docx import Document
from docx.opc.constants import RELATIONSHIP_TYPE
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.shared import Pt, RGBColor
from docx.text.paragraph import Paragraph

from core.models import RunRecord
from core.report.answer_markup import Run, clean_text, flat, one_line
from core.report.labels import REPORT_TITLE, safe_url
from core.report.outline import compose_report

_LINK_COLOR = "0B62C4"


def _bookmark_name(number: int) -> str:
    # Word bookmark names allow letters, digits and underscores only.
    return f"ref_{number}"


class DocxWriter:
    """Writes report blocks into a python-docx Document; text is always set as text, never parsed."""

    def __init__(self, title: str = REPORT_TITLE) -> None:
        self.doc = Document()
        self.doc.core_properties.title = clean_text(title)[:250]
        normal = self.doc.styles["Normal"]
        normal.font.name = "Calibri"
        normal.font.size = Pt(10.5)

    def _hyperlink(
        self, paragraph: Paragraph, text: str, *, anchor: str | None = None, url: str | None = None
    ) -> None:
        link = OxmlElement("w:hyperlink")
        if anchor:
            link.set(qn("w:anchor"), anchor)
        else:
            rel_id = paragraph.part.relate_to(url, RELATIONSHIP_TYPE.HYPERLINK, is_external=True)
            link.set(qn("r:id"), rel_id)
        run = OxmlElement("w:r")
        props = OxmlElement("w:rPr")
        color = OxmlElement("w:color")
        color.set(qn("w:val"), _LINK_COLOR)
        props.append(color)
        if url:
            underline = OxmlElement("w:u")
            underline.set(qn("w:val"), "single")
            props.append(underline)
        run.append(props)
        node = OxmlElement("w:t")
        node.text = text
        node.set(qn("xml:space"), "preserve")
        run.append(node)
        link.append(run)
        paragraph._p.append(link)

    def _runs(self, paragraph: Paragraph, runs: Sequence[Run]) -> None:
        for run in runs:
            text = flat(run.text)
            if run.cite is not None:
                self._hyperlink(paragraph, text, anchor=_bookmark_name(run.cite))
            elif run.url and (url := safe_url(run.url)):
                self._hyperlink(paragraph, text, url=url)
            else:
                added = paragraph.add_run(text)
                added.bold = run.style == "strong" or None
                added.italic = run.style == "em" or None

    def heading(self, text: str, level: int, anchor: str | None = None) -> None:
        self.doc.add_heading(one_line(text), level=0 if level == 1 else level - 1)

    def paragraph(self, runs: Sequence[Run]) -> None:
        self._runs(self.doc.add_paragraph(), runs)

    def items(self, items: Sequence[Sequence[Run]], ordered: bool = False) -> None:
        style = "List Number" if ordered else "List Bullet"
        for item in items:
            self._runs(self.doc.add_paragraph(style=style), item)

    def fields(self, rows: Sequence[tuple[str, str]]) -> None:
        for label, value in rows:
            paragraph = self.doc.add_paragraph()
            paragraph.paragraph_format.space_after = Pt(0)
            paragraph.add_run(f"{label}: ").bold = True
            paragraph.add_run(one_line(value))

    def quote(self, text: str) -> None:
        paragraph = self.doc.add_paragraph(style="Quote")
        paragraph.add_run(one_line(text)).font.color.rgb = RGBColor(0x33, 0x33, 0x33)

    def table(self, header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
        table = self.doc.add_table(rows=1, cols=len(header))
        table.style = "Light Grid Accent 1"
        for cell, text in zip(table.rows[0].cells, header, strict=True):
            cell.text = one_line(text)
        for row in rows:
            for cell, text in zip(table.add_row().cells, row, strict=True):
                cell.text = one_line(text)
        self.doc.add_paragraph()

    def reference(self, number: int, runs: Sequence[Run], quote: str | None) -> None:
        paragraph = self.doc.add_paragraph()
        start = OxmlElement("w:bookmarkStart")
        start.set(qn("w:id"), str(number))
        start.set(qn("w:name"), _bookmark_name(number))
        end = OxmlElement("w:bookmarkEnd")
        end.set(qn("w:id"), str(number))
        paragraph._p.append(start)
        marker = paragraph.add_run(f"[{number}] ")
        marker.bold = True
        self._runs(paragraph, runs)
        paragraph._p.append(end)
        if quote:
            self.quote(quote)

    def output(self) -> bytes:
        """The finished .docx file."""
        buffer = io.BytesIO()
        self.doc.save(buffer)
        return buffer.getvalue()


def report_docx(record: RunRecord) -> bytes:
    """The cited report as DOCX bytes."""
    writer = DocxWriter(f"{REPORT_TITLE}: {one_line(record.question)[:120]}")
    compose_report(record, writer)
    return writer.output()
