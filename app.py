"""Entry point: page configuration and navigation only."""

import streamlit as st

st.set_page_config(page_title="Filing Research Workbench", page_icon=":material/query_stats:", layout="wide")

pages = [
    st.Page("views/library.py", title="Library", icon=":material/folder_open:", default=True),
    st.Page("views/research.py", title="Research", icon=":material/query_stats:"),
    st.Page("views/report.py", title="Report", icon=":material/description:"),
    st.Page("views/history.py", title="History", icon=":material/history:"),
    st.Page("views/evaluate.py", title="Evaluate", icon=":material/analytics:"),
    st.Page("views/settings.py", title="Settings", icon=":material/settings:"),
]
st.navigation(pages).run()
