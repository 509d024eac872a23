"""One entry point for every export format of the cited report: bytes, MIME type and file name."""

from __future__ import annotations

import re
from typing import Literal, get_args

from core.models import RunRecord

ExportFormat = Literal["md", "html", "pdf", "docx"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = get_args(ExportFormat)

EXPORT_MIME: dict[ExportFormat, str] = {
    "md": "text/markdown; charset=utf-8",
    "html": "text/html; charset=utf-8",
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}

_NOT_NAME = re.compile(r"[^a-z0-9]+")
_FORM_IN_LABEL = re.compile(r"\s+(?:10-K|10-Q|20-F|8-K)\b.*$", re.I)
_QUESTION_WORDS = 7


def _slug(text: str, max_chars: int) -> str:
    """Lower-case ASCII words joined by hyphens: safe in any file system and any browser download."""
    return _NOT_NAME.sub("-", text.lower()).strip("-")[:max_chars].strip("-")


def export_filename(record: RunRecord, fmt: ExportFormat) -> str:
    """Download name that says what the report is: company, the question's first words, date and run,
    e.g. 'northwind-robotics-inc-what-competition-and-supplier-risks-2026-11-30-3b9e6c1d.pdf'."""
    if fmt not in EXPORT_MIME:
        raise ValueError(f"unknown export format {fmt!r}; expected one of {', '.join(EXPORT_FORMATS)}")
    labels = list(dict.fromkeys(c.filing_label for c in record.citations if c.filing_label))
    companies = [_slug(_FORM_IN_LABEL.sub("", label), 30) for label in labels[:2]]
    question = _slug(" ".join(record.question.split()[:_QUESTION_WORDS]), 50)
    run = _slug(record.run_id, 8) or "run"
    parts = [*companies, question, record.created_at.strftime("%Y-%m-%d"), run]
    return "-".join(p for p in parts if p) + f".{fmt}"


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
