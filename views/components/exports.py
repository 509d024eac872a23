"""Report exports and the evidence graph, cached per run version so reruns do not rebuild them."""

from __future__ import annotations

import streamlit as st

from core.models import RunRecord
from core.service.display import EXPORT_MIME, ExportFormat, export_filename, export_report

EXPORT_LABELS: dict[ExportFormat, tuple[str, str]] = {
    "md": ("Markdown", ":material/markdown:"),
    "html": ("HTML", ":material/html:"),
    "pdf": ("PDF", ":material/picture_as_pdf:"),
    "docx": ("DOCX", ":material/article:"),
}


def _version(record: RunRecord) -> str:
    # A run changes only through a new checkpoint, so its id and checkpoint time identify its content.
    return f"{record.run_id}@{record.updated_at.isoformat()}"


@st.cache_data(show_spinner=False, max_entries=64)
def _export(version: str, fmt: ExportFormat, _record: RunRecord) -> bytes:
    return export_report(_record, fmt)


@st.cache_data(show_spinner=False, max_entries=8)
def _graph(version: str, _record: RunRecord) -> str:
    from core.service.display import evidence_graph_html

    return evidence_graph_html(_record)


def export_bytes(record: RunRecord, fmt: ExportFormat) -> bytes:
    """The cited report with its audit appendix in one format (cached per run version)."""
    return _export(_version(record), fmt, record)


def evidence_graph_page(record: RunRecord) -> str:
    """The evidence graph page of the run (cached per run version)."""
    return _graph(_version(record), record)


def download_buttons(record: RunRecord) -> None:
    """Four download buttons (Markdown, HTML, PDF, DOCX) in one row."""
    cols = st.columns(len(EXPORT_LABELS))
    for col, (fmt, (label, icon)) in zip(cols, EXPORT_LABELS.items(), strict=True):
        with col:
            with st.spinner(f"Preparing {label}…"):
                data = export_bytes(record, fmt)
            st.download_button(
                label,
                data=data,
                file_name=export_filename(record, fmt),
                mime=EXPORT_MIME[fmt],
                icon=icon,
                key=f"download-{fmt}-{record.run_id}",
                on_click="ignore",
                width="stretch",
            )
