"""Library: upload filings, watch them ingest, browse their sections and financial statements, delete them."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.models import IngestProgress
from core.service.display import escape_markdown, library_row
from views.components.financials import show_financials
from views.components.navigation import page_setup

# Set by the Cancel button shown while files are ingested; read once on the rerun it causes.
CANCELLED = "ingest-cancelled"

STAGE_LABELS = {
    "validate": "Checking file",
    "parse": "Reading text",
    "sections": "Finding sections (Items, Parts)",
    "chunk": "Splitting into passages",
    "facts": "Reading table rows as facts",
    "embed": "Embedding passages",
    "index": "Writing indexes",
    "done": "Done",
    "duplicate": "Already in the library",
    "error": "Rejected",
}


def progress_bars(names: list[str]):
    """One progress bar per file, and the callback that moves them."""
    bars = {name: st.progress(0.0, text=f"{name}: waiting") for name in names}

    def show(progress: IngestProgress) -> None:
        bar = bars.get(progress.filename)
        if bar is not None:
            label = STAGE_LABELS.get(progress.stage, progress.stage)
            detail = f" — {progress.message}" if progress.message and progress.stage == "embed" else ""
            bar.progress(progress.fraction, text=f"{progress.filename}: {label}{detail}")

    return show


bench = page_setup(
    "Library",
    "Upload filings: 10-Ks, and the 10-Qs, 8-Ks and earnings releases around them (EDGAR HTML, PDF or "
    "plain text). Each is read as the form it is, split by its own sections (a 10-K's Items, a 10-Q's Parts "
    "and Items, an 8-K's Items), indexed for vector and keyword search, and kept in the local data directory.",
)

if repairs := bench.startup_repairs():
    notes = "\n".join(f"- {escape_markdown(note)}" for note in repairs)
    st.info(f"**Start-up check of the index** (the app was stopped in the middle of a write):\n{notes}")

# --- Upload and ingest ---------------------------------------------------------------------------
uploader_key = f"uploader-{st.session_state.get('uploads_done', 0)}"
uploads = st.file_uploader(
    "Drop filings here",
    type=["pdf", "htm", "html", "txt"],
    accept_multiple_files=True,
    key=uploader_key,
    help=f"Up to {bench.settings.max_upload_mb:g} MB per file. Uploading the same file twice changes nothing.",
)
if st.session_state.pop(CANCELLED, False):
    st.warning(
        "Ingestion cancelled: the file being read was not added (nothing of it remains); files finished "
        "before it are in the library.",
        icon=":material/cancel:",
    )
if uploads and st.button("Ingest", type="primary", icon=":material/upload:"):
    # Clicking Cancel reruns the page, which stops this script at its next progress update; everything
    # before the final write is in memory, and the write itself is all-or-nothing.
    st.button("Cancel", icon=":material/cancel:", on_click=lambda: st.session_state.update({CANCELLED: True}))
    show = progress_bars([u.name for u in uploads])
    results = bench.ingest(((u.name, u.getvalue()) for u in uploads), on_progress=show)
    st.session_state["last_results"] = [r.model_dump(mode="json") for r in results]
    st.session_state["uploads_done"] = st.session_state.get("uploads_done", 0) + 1
    st.rerun()

# --- Filings indexed by an older version ---------------------------------------------------------
outdated = bench.outdated_filings()
if outdated:
    with st.container(border=True):
        st.markdown(
            f"**{len(outdated)} filing(s) were indexed by an older version** of the workbench: "
            + escape_markdown(", ".join(f.label for f in outdated[:6]) + (" …" if len(outdated) > 6 else ""))
            + ". Re-indexing reads each stored original again so that every passage is searched with its "
            "context (company, year, Item and page heading); it takes about as long as the first upload."
        )
        if st.button("Re-index them", icon=":material/refresh:", key="reindex-outdated"):
            show = progress_bars([f.filename for f in outdated])
            results = bench.reindex([f.filing_id for f in outdated], on_progress=show)
            st.session_state["last_results"] = [
                r.model_dump(mode="json") | {"reindex": True} for r in results
            ]
            st.rerun()

for result in st.session_state.get("last_results", []):
    name = escape_markdown(result["filename"])
    if not result["ok"]:
        what = "re-indexed" if result.get("reindex") else "ingested"
        st.error(f"**{name}** was not {what}: {escape_markdown(result['error'])}", icon=":material/error:")
    elif result["duplicate"]:
        st.info(f"**{name}** is already in the library; nothing changed.", icon=":material/info:")
    else:
        f = result["filing"]
        st.success(
            f"**{name}** {'re-indexed' if result.get('reindex') else 'ingested'}: {f['chunks']} passages in {len(f['sections'])} sections "
            f"from {f['pages']} pages ({f['seconds']:.1f} s).",
            icon=":material/check_circle:",
        )

# --- Filings table -------------------------------------------------------------------------------
filings = bench.filings()
st.subheader(f"Filings ({len(filings)})")
if not filings:
    st.info("No filings yet. Upload a 10-K above to start.")
    st.stop()

table = pd.DataFrame([library_row(f) for f in filings])
st.dataframe(table, hide_index=True, width="stretch")

# --- One filing ----------------------------------------------------------------------------------
labels = {f.filing_id: f"{f.label} — {f.filename}" for f in filings}
chosen = st.selectbox("Inspect a filing", options=list(labels), format_func=labels.get)
filing = bench.filing(chosen) if chosen else None
if filing is not None:
    sections_tab, financials_tab = st.tabs(["Sections", "Financials"])
    with sections_tab:
        sections = bench.sections(filing.filing_id)
        left, right = st.columns([3, 1])
        with left:
            st.dataframe(
                pd.DataFrame(
                    [
                        {
                            "Section": s.section,
                            "Title": s.title,
                            "Passages": s.chunks,
                            "Pages": f"{s.first_page}–{s.last_page}"
                            if s.last_page != s.first_page
                            else str(s.first_page),
                        }
                        for s in sections
                    ]
                ),
                hide_index=True,
                width="stretch",
            )
        with right:
            st.metric("Passages", filing.chunks)
            st.metric("Pages", filing.pages)
            page_kind = (
                "PDF page numbers as a viewer shows them"
                if filing.source_type == "pdf"
                else "printed page numbers"
            )
            st.caption(f"Source: {filing.source_type.upper()}; pages are {page_kind}.")
        for s in sections:
            with st.expander(f"{s.section} — {s.title}" if s.title else s.section):
                st.text(s.preview)
    with financials_tab:
        show_financials(bench, filing, outdated=filing.filing_id in {f.filing_id for f in outdated})

    with st.popover("Delete this filing", icon=":material/delete:"):
        st.write(f"Remove {escape_markdown(filing.label)} and all its passages from both indexes?")
        if st.button("Delete", type="primary", key=f"delete-{filing.filing_id}"):
            bench.delete_filing(filing.filing_id)
            st.session_state.pop("last_results", None)
            st.toast(f"Deleted {filing.label}")
            st.rerun()
