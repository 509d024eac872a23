"""The cited report as PDF (fpdf2), with a Unicode font when the system has one and latin-1 otherwise."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from fpdf import FPDF, FontFace
from fpdf.enums import XPos, YPos

from core.models import RunRecord
from core.report.answer_markup import Run, clean_text, flat, one_line
from core.report.labels import REPORT_TITLE, safe_url
from core.report.outline import compose_report

# Debian/Ubuntu, Fedora, Arch and macOS Homebrew locations of DejaVu Sans (fonts-dejavu-core).
_FONT_DIRS = (
    "/usr/share/fonts/truetype/dejavu",
    "/usr/share/fonts/dejavu",
    "/usr/share/fonts/TTF",
    "/usr/local/share/fonts",
    "/opt/homebrew/share/fonts",
)
_FONT_FILES = {"": "DejaVuSans.ttf", "B": "DejaVuSans-Bold.ttf", "I": "DejaVuSans-Oblique.ttf"}
# Typographic characters common in filings, mapped to latin-1 look-alikes for the core fonts.
_LATIN1 = str.maketrans(
    {
        "‘": "'",
        "’": "'",
        "“": '"',
        "”": '"',
        "–": "-",
        "—": "-",
        "…": "...",
        "•": "*",
        "→": "->",
        "≥": ">=",
        "≤": "<=",
        "€": "EUR",
        "™": "(TM)",
        "\u2009": " ",
        "\u202f": " ",
        "\u2212": "-",
    }
)
_SIZES = {1: 17.0, 2: 14.0, 3: 12.0, 4: 10.5}
_NAVY = (31, 78, 121)
_LINK = (11, 98, 196)
_TEXT = (31, 35, 40)


def find_unicode_font(dirs: Sequence[str] = _FONT_DIRS) -> dict[str, Path] | None:
    """Paths of DejaVu Sans regular (and bold/oblique where present) in the first directory that has it."""
    for directory in dirs:
        regular = Path(directory) / _FONT_FILES[""]
        if regular.is_file():
            return {
                style: Path(directory) / name
                for style, name in _FONT_FILES.items()
                if (Path(directory) / name).is_file()
            }
    return None


def to_latin1(text: str) -> str:
    """Text the PDF core fonts can show: look-alikes, accents stripped where needed, '?' as the last resort."""
    mapped = unicodedata.normalize("NFKC", text).translate(_LATIN1)
    out: list[str] = []
    for ch in mapped:
        if ord(ch) < 256:
            out.append(ch)
            continue
        base = "".join(
            c for c in unicodedata.normalize("NFKD", ch) if ord(c) < 256 and not unicodedata.combining(c)
        )
        out.append(base or "?")
    return "".join(out)


@dataclass
class _Fonts:
    family: str
    unicode: bool
    styles: set[str]


def _register_fonts(pdf: FPDF, dirs: Sequence[str] | None) -> _Fonts:
    paths = find_unicode_font(dirs if dirs is not None else _FONT_DIRS)
    if not paths:
        return _Fonts("helvetica", unicode=False, styles={"", "B", "I"})
    for style, path in paths.items():
        pdf.add_font("ReportSans", style, str(path))
    return _Fonts("ReportSans", unicode=True, styles=set(paths))


class PdfWriter:
    """Writes report blocks onto an FPDF document; citations are internal links to their references."""

    def __init__(self, title: str = REPORT_TITLE, font_dirs: Sequence[str] | None = None) -> None:
        self.pdf = FPDF(format="A4")
        self.pdf.set_margins(18, 16, 18)
        self.pdf.set_auto_page_break(True, margin=16)
        self.fonts = _register_fonts(self.pdf, font_dirs)
        self.links: dict[int, int] = {}
        self.pdf.set_title(self._t(title))
        self.pdf.set_creator("Filing research workbench")
        self.pdf.add_page()
        self._font("", 10)

    def _t(self, text: str) -> str:
        cleaned = clean_text(text)
        return cleaned if self.fonts.unicode else to_latin1(cleaned)

    def _font(self, style: str, size: float) -> None:
        style = style if style in self.fonts.styles else ""
        self.pdf.set_font(self.fonts.family, style, size)

    def _link(self, number: int) -> int:
        if number not in self.links:
            self.links[number] = self.pdf.add_link()
        return self.links[number]

    def _runs(self, runs: Sequence[Run], size: float = 10, line: float = 5.2) -> None:
        for run in runs:
            link: int | str = ""
            if run.cite is not None:
                link = self._link(run.cite)
            elif run.url and (url := safe_url(run.url)):
                link = url
            self._font({"strong": "B", "em": "I"}.get(run.style, ""), size)
            self.pdf.set_text_color(*(_LINK if link else _TEXT))
            text = self._t(flat(run.text))
            # write() splits a run's first word by characters when it does not fit the line's rest;
            # start such a run on a new line instead.
            first = text.split(" ", 1)[0]
            room = self.pdf.w - self.pdf.r_margin - self.pdf.get_x()
            if first and self.pdf.get_x() > self.pdf.l_margin + 1 and self.pdf.get_string_width(first) > room:
                self.pdf.ln(line)
            self.pdf.write(line, text, link=link)
        self.pdf.set_text_color(*_TEXT)
        self.pdf.ln(line)

    def heading(self, text: str, level: int, anchor: str | None = None) -> None:
        size = _SIZES.get(level, 10.5)
        if self.pdf.will_page_break(size * 2 + 20):  # keep a heading with what follows it
            self.pdf.add_page()
        self.pdf.ln(3 if level > 1 else 0)
        self._font("B", size)
        self.pdf.set_text_color(*_NAVY)
        self.pdf.multi_cell(
            0, size * 0.5, self._t(one_line(text)), align="L", new_x=XPos.LMARGIN, new_y=YPos.NEXT
        )
        self.pdf.set_text_color(*_TEXT)
        self.pdf.ln(1.5)

    def paragraph(self, runs: Sequence[Run]) -> None:
        self._runs(runs)
        self.pdf.ln(1.5)

    def items(self, items: Sequence[Sequence[Run]], ordered: bool = False) -> None:
        left = self.pdf.l_margin
        for number, item in enumerate(items, start=1):
            marker = f"{number}." if ordered else ("•" if self.fonts.unicode else "-")
            self._font("", 10)
            self.pdf.set_x(left + 2)
            self.pdf.write(5.2, marker)
            self.pdf.set_left_margin(left + 7)
            self.pdf.set_x(left + 7)
            self._runs(item)
            self.pdf.set_left_margin(left)
        self.pdf.ln(1.5)

    def fields(self, rows: Sequence[tuple[str, str]]) -> None:
        for label, value in rows:
            self._runs([Run(f"{label}: ", "strong"), Run(value)], size=9, line=4.6)
        self.pdf.ln(1.5)

    def quote(self, text: str) -> None:
        left = self.pdf.l_margin
        self.pdf.set_left_margin(left + 4)
        self.pdf.set_x(left + 4)
        self._font("I", 9.5)
        self.pdf.set_fill_color(244, 246, 248)
        self.pdf.set_text_color(60, 60, 60)
        self.pdf.multi_cell(
            0,
            4.8,
            self._t(one_line(text)),
            fill=True,
            padding=(1.5, 2.5),
            align="L",
            new_x=XPos.LMARGIN,
            new_y=YPos.NEXT,
        )
        self.pdf.set_text_color(*_TEXT)
        self.pdf.set_left_margin(left)
        self.pdf.ln(2)

    def table(self, header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
        self._font("", 8)
        widths = self._column_widths(header, rows)
        headings = FontFace(emphasis="BOLD", fill_color=(240, 243, 246))
        with self.pdf.table(
            col_widths=widths, text_align="LEFT", line_height=4.2, headings_style=headings, padding=1
        ) as table:
            for cells in [header, *rows]:
                row = table.row()
                for cell in cells:
                    row.cell(self._t(one_line(cell)))
        self.pdf.ln(2)

    def _column_widths(self, header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[float]:
        """Column widths (mm) that keep every column's longest word whole and share the rest by need."""
        available = self.pdf.epw
        minimum: list[float] = []
        wanted: list[float] = []
        for column in zip(header, *rows, strict=True):
            texts = [self._t(one_line(cell)) for cell in column]
            words = [word for text in texts for word in text.split()] or [" "]
            self._font("B", 8)
            head = self.pdf.get_string_width(texts[0])
            self._font("", 8)
            longest = max(head, *(self.pdf.get_string_width(word) for word in words[:400]))
            minimum.append(min(longest, available / 3) + 5)
            wanted.append(min(max(self.pdf.get_string_width(text) for text in texts), 90) + 5)
        if sum(wanted) <= available:
            return [w * available / sum(wanted) for w in wanted]
        spare = max(available - sum(minimum), 0.0)
        extra = [w - m for w, m in zip(wanted, minimum, strict=True)]
        total = sum(extra) or 1.0
        return [m + spare * e / total for m, e in zip(minimum, extra, strict=True)]

    def reference(self, number: int, runs: Sequence[Run], quote: str | None) -> None:
        if self.pdf.will_page_break(14):
            self.pdf.add_page()
        self.pdf.set_link(self._link(number), y=self.pdf.get_y(), page=self.pdf.page_no())
        self._runs([Run(f"[{number}] ", "strong"), *runs])
        if quote:
            self.quote(quote)

    def output(self) -> bytes:
        """The finished PDF file."""
        return bytes(self.pdf.output())


def report_pdf(record: RunRecord, font_dirs: Sequence[str] | None = None) -> bytes:
    """The cited report as PDF bytes; `font_dirs` overrides where to look for a Unicode font."""
    writer = PdfWriter(f"{REPORT_TITLE}: {one_line(record.question)[:120]}", font_dirs)
    compose_report(record, writer)
    return writer.output()
