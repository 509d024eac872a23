"""The cited report inside the app: the same outline as the exports, as escaped HTML with live anchors."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from core.models import RunRecord
from core.service.display import HtmlWriter, Run, compose_report


class SectionedHtmlWriter(HtmlWriter):
    """HtmlWriter that files its output under the level-2 section it belongs to (Answer, References…)."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: dict[str, list[str]] = {"": []}
        self._current = ""

    def heading(self, text: str, level: int, anchor: str | None = None) -> None:
        if level == 2:  # the level-1 title stays with the question and metadata in the '' section
            self._current = text
            self.sections.setdefault(text, [])
        super().heading(text, level, anchor)
        self._file()

    def _file(self) -> None:
        # Every primitive appends exactly one part; move it into the current section.
        self.sections[self._current].append(self.parts.pop())

    def paragraph(self, runs: Sequence[Run]) -> None:
        super().paragraph(runs)
        self._file()

    def items(self, items: Sequence[Sequence[Run]], ordered: bool = False) -> None:
        super().items(items, ordered)
        self._file()

    def fields(self, rows: Sequence[tuple[str, str]]) -> None:
        super().fields(rows)
        self._file()

    def quote(self, text: str) -> None:
        super().quote(text)
        self._file()

    def table(self, header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
        super().table(header, rows)
        self._file()

    def reference(self, number: int, runs: Sequence[Run], quote: str | None) -> None:
        super().reference(number, runs, quote)
        self._file()


def report_sections(record: RunRecord) -> dict[str, str]:
    """Section title -> escaped HTML ('' holds the title block, then Answer, References, …)."""
    writer = SectionedHtmlWriter()
    compose_report(record, writer)
    return {name: "".join(parts) for name, parts in writer.sections.items()}


def show_sections(record: RunRecord, names: Sequence[str] | None = None) -> None:
    """Render the chosen report sections (all when None) as one HTML block; citations jump to references."""
    sections = report_sections(record)
    chosen = [html for name, html in sections.items() if names is None or name in names]
    st.html(f'<div class="wb-report">{"".join(chosen)}</div>')
