"""Home page (the entry script of a file-based multipage app: the other pages are the files in pages/)."""

import streamlit as st

from core.service.display import escape_markdown
from views.components.auth import sign_in_configured
from views.components.display import page_link
from views.components.navigation import PAGE_BY_LABEL, page_setup

bench = page_setup(
    "Home",
    "Ask a multi-hop question about 10-K filings, approve the research plan, watch each step search, "
    "rerank and read the filings, and export a report whose every claim cites filing, Item, page and passage.",
)

filings = bench.filings()
runs = bench.list_runs()
running = bench.active_runs()
columns = st.columns(4)
columns[0].metric("Filings in the library", len(filings))
columns[1].metric("Passages indexed", sum(f.chunks for f in filings))
columns[2].metric("Research runs", len(runs))
columns[3].metric("Running now", len(running))
if not sign_in_configured():
    st.caption(
        "Open to anyone who can reach this server: no sign-in is configured. To require one, add an OpenID "
        "Connect provider under [auth] in .streamlit/secrets.toml (see the README)."
    )
if outdated := bench.outdated_filings():
    st.info(
        f"{len(outdated)} filing(s) were indexed by an older version; the Library page re-indexes them.",
        icon=":material/update:",
    )

st.subheader("Quick start")
steps = [
    ("Library", "Upload 10-K filings (PDF, EDGAR HTML or text)."),
    ("Research", "Ask a question; approve or edit the plan."),
    ("Report", "Read the cited report and export it."),
    ("History", "Reopen, resume or compare earlier runs."),
]
for number, (label, what) in enumerate(steps, start=1):
    script, icon = PAGE_BY_LABEL[label]
    left, right = st.columns([1, 4], vertical_alignment="center")
    with left:
        page_link(script, f"{number}. {label}", icon)
    right.write(what)

if filings:
    st.subheader("Filings")
    for filing in filings[:8]:
        st.markdown(f"- {escape_markdown(filing.label)}")
