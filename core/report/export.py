"""One entry point for every export format of the cited report: bytes, MIME type and file name."""

from __future__ import annotations

import re
from typing import Literal, get_args

from core.graph.records import RunRecord

ExportFormat = Literal["md", "html", "pdf", "docx"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = get_args(ExportFormat)

EXPORT_MIME: dict[ExportFormat, str] = {
    "md": "text/markdown; charset=utf-8",
    "html": "text/html; charset=utf-8",
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}

_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_-]")


def export_filename(record: RunRecord, fmt: ExportFormat) -> str:
    """Download name of an export, e.g. 'research-3b9e6c1d.pdf' (run id reduced to safe characters)."""
    if fmt not in EXPORT_MIME:
        raise ValueError(f"unknown export format {fmt!r}; expected one of {', '.join(EXPORT_FORMATS)}")
    stem = _UNSAFE_NAME.sub("", record.run_id)[:8] or "run"
    return f"research-{stem}.{fmt}"


def export_report(record: RunRecord, fmt: ExportFormat) -> bytes:
    """The cited report with its audit appendix in `fmt` ('md', 'html', 'pdf' or 'docx')."""
    # Imports are per format so a Markdown export never loads fpdf2 or python-docx.
    if fmt == "md":
        from core.report.render import report_markdown

        return report_markdown(record).encode("utf-8")
    if fmt == "html":
        from core.report.render import report_html

        return report_html(record).encode("utf-8")
    if fmt == "pdf":
        from core.report.pdf_export import report_pdf

        return report_pdf(record)
    if fmt == "docx":
        from core.report.docx_export import report_docx

        return report_docx(record)
    raise ValueError(f"unknown export format {fmt!r}; expected one of {', '.join(EXPORT_FORMATS)}")
