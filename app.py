"""Entry point: page configuration and navigation only."""

import streamlit as st

st.set_page_config(page_title="Filing Research Workbench", page_icon=":material/query_stats:", layout="wide")

pages = [
    st.Page("pages/library.py", title="Library", icon=":material/folder_open:", default=True),
    st.Page("pages/research.py", title="Research", icon=":material/query_stats:"),
    st.Page("pages/report.py", title="Report", icon=":material/description:"),
    st.Page("pages/history.py", title="History", icon=":material/history:"),
    st.Page("pages/settings.py", title="Settings", icon=":material/settings:"),
]
st.navigation(pages).run()
