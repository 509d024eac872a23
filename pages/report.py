"""Report: the cited report of a run (answer, references, audit appendix) and its four exports."""

from __future__ import annotations

import streamlit as st

from core.service.display import escape_markdown
from views.components.answer_view import report_sections
from views.components.cited_passage import show_cited_passages
from views.components.display import STATUS_BADGES, engine_label, page_link, show_error
from views.components.exports import download_buttons
from views.components.navigation import page_setup

MAIN_SECTIONS = ("", "Answer", "References", "Unsupported or flagged claims")

bench = page_setup(
    "Report",
    "The cited report of a research run: every claim links to its reference (filing, Item, page and the "
    "verbatim passage); the audit appendix records the plan and its edits, strategies, evidence and timings.",
)

runs = bench.list_runs()
if not runs:
    st.info("No research runs yet. Ask a question on the Research page first.", icon=":material/query_stats:")
    page_link("pages/research.py", "Go to Research", ":material/query_stats:")
    st.stop()

# Default: the run in the URL, else the most recent finished run, else the most recent run.
by_id = {run.run_id: run for run in runs}
wanted = st.query_params.get("run")
if wanted not in by_id:
    wanted = next((run.run_id for run in runs if run.status == "finished"), runs[0].run_id)


def _label(run_id: str) -> str:
    run = by_id[run_id]
    status = STATUS_BADGES.get(run.status, (run.status,))[0]
    question = run.question if len(run.question) <= 90 else run.question[:89] + "…"
    return f"{question} · {run.updated_at:%Y-%m-%d %H:%M} · {status}"


chosen = st.selectbox("Run", options=list(by_id), index=list(by_id).index(wanted), format_func=_label)
if chosen != st.query_params.get("run"):
    st.query_params["run"] = chosen

try:
    record = bench.get_run(chosen)
except Exception as exc:  # noqa: BLE001 - an unreadable checkpoint is reported, not raised
    show_error("Opening the run", exc)
    st.stop()

if record.status != "finished":
    st.warning(
        "This run has not finished, so the report has no answer yet; it shows the plan and the steps run "
        "so far. Open the run in Research to continue it.",
        icon=":material/hourglass_top:",
    )
    page_link("pages/research.py", "Open in Research", ":material/query_stats:", {"run": record.run_id})

header = st.container(border=True)
with header:
    left, right = st.columns([2, 3], vertical_alignment="center")
    with left:
        st.markdown("**Download the report**")
        st.caption(
            f"{engine_label(record.engine)} · {len(record.steps)} step(s) · {len(record.citations)} citation(s)"
        )
    downloads = right.empty()
    downloads.caption(":material/hourglass_top: Preparing the Markdown, HTML, PDF and DOCX files…")

sections = report_sections(record)
main = "".join(html for name, html in sections.items() if name in MAIN_SECTIONS)
st.html(f'<div class="wb-report">{main}</div>')
show_cited_passages(bench, record)
appendix = "".join(html for name, html in sections.items() if name not in MAIN_SECTIONS)
if appendix:
    with st.expander(
        "Audit appendix: plan history, strategies, evidence, fallbacks, timings", icon=":material/fact_check:"
    ):
        st.html(f'<div class="wb-report">{appendix}</div>')
if record.unsupported_claims:
    st.caption(f":material/flag: {len(record.unsupported_claims)} claim(s) flagged as unsupported.")
st.caption(f"Run `{escape_markdown(record.run_id)}`")

# The exports are built last (the PDF takes about a second) so the report is readable meanwhile.
with downloads.container():
    download_buttons(record)
