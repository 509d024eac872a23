"""What every page shares: the workbench of this process."""

from __future__ import annotations

import streamlit as st

from core.config import get_settings
from core.service import Workbench, get_workbench


@st.cache_resource(show_spinner=False)
def workbench() -> Workbench:
    """The process-wide workbench (models and indexes load once per process)."""
    return get_workbench(get_settings())
