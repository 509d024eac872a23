"""The app's pages and the sidebar that links them; every page script starts with page_setup.

The app is Streamlit's file-based multipage app: app.py is the home page and each file in pages/ is a
page, served at /<file name> (so /research?run=… is a deep link that works from a fresh server). The
sidebar is drawn here rather than by Streamlit so that pages have titles and icons of their own.
"""

from __future__ import annotations

import streamlit as st

from core.service import ServiceUnavailable, Workbench
from views.components.auth import require_sign_in
from views.components.display import FAVICON, inject_css, page_link
from views.shared import workbench

APP_TITLE = "Filing Research Workbench"

#: (script, label, icon) of every page, in sidebar order.
PAGES: list[tuple[str, str, str]] = [
    ("app.py", "Home", ":material/home:"),
    ("pages/library.py", "Library", ":material/folder_open:"),
    ("pages/research.py", "Research", ":material/query_stats:"),
    ("pages/report.py", "Report", ":material/description:"),
    ("pages/history.py", "History", ":material/history:"),
    ("pages/evaluate.py", "Evaluate", ":material/analytics:"),
    ("pages/settings.py", "Settings", ":material/settings:"),
]
#: label -> (script, icon)
PAGE_BY_LABEL: dict[str, tuple[str, str]] = {label: (script, icon) for script, label, icon in PAGES}


def page_setup(label: str, caption: str) -> Workbench:
    """Start the page called `label`: its configuration, the sidebar of page links, the stylesheet, its
    title and caption; returns the workbench of this process."""
    title = APP_TITLE if label == "Home" else f"{label} · {APP_TITLE}"
    st.set_page_config(page_title=title, page_icon=str(FAVICON), layout="wide")
    require_sign_in(APP_TITLE)  # signed out: only the sign-in, no page links
    with st.sidebar:
        st.markdown(f"**{APP_TITLE}**")
        for script, name, page_icon in PAGES:
            page_link(script, name, page_icon)
    inject_css()
    st.title(APP_TITLE if label == "Home" else label)
    st.caption(caption)
    bench = workbench()
    if label != "Settings":  # Settings stays open: it is where a wrong store address is put right
        try:
            bench.startup_repairs()  # opens the index and checkpoints: an unreachable server shows here
        except ServiceUnavailable as exc:
            st.error(str(exc), icon=":material/cloud_off:")
            st.stop()
    return bench
