"""Entry point: page configuration and navigation only."""

import streamlit as st

st.set_page_config(page_title="Filing Research Workbench", page_icon=":material/query_stats:", layout="wide")

pages = [
    st.Page("pages/library.py", title="Library", icon=":material/folder_open:", default=True),
    st.Page("pages/research.py", title="Research", icon=":material/query_stats:"),
]
st.navigation(pages).run()
