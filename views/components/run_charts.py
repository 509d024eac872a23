"""The run's evidence graph and charts (built by core.report from the record the service returned)."""

from __future__ import annotations

import logging

import streamlit as st

from core.models import RunRecord
from core.service import failure_message
from core.service.display import (
    evidence_coverage_figure,
    node_timing_figure,
    rerank_score_figure,
    strategy_mix_figure,
)
from views.components.exports import evidence_graph_page

log = logging.getLogger(__name__)

# The graph canvas is 620 px; the legend above it needs the rest.
GRAPH_HEIGHT = 720


def run_graph(record: RunRecord) -> None:
    """The evidence graph: question → steps → evidence → sources, claims ↔ supporting/contradicting evidence."""
    if not record.steps:
        st.info("The graph appears once a step has run.", icon=":material/hub:")
        return
    st.caption(
        "Drag to move, scroll to zoom, hover a node for its text. Every label and tooltip is escaped "
        "document text; the graph has no remote resources."
    )
    try:
        page = evidence_graph_page(record)
    except Exception as exc:
        log.exception("evidence graph of run %s failed", record.run_id)
        st.error(
            failure_message("Drawing the evidence graph", exc) + ". The steps and answer are unaffected."
        )
        return
    # st.iframe replaces the deprecated components.v1.html; the page is ours (escaped text, strict CSP).
    st.iframe(page, height=GRAPH_HEIGHT)


def run_charts(record: RunRecord) -> None:
    """Strategy mix, rerank scores, evidence coverage by Item and time per node, two per row."""
    figures = [
        strategy_mix_figure(record),
        rerank_score_figure(record),
        evidence_coverage_figure(record),
        node_timing_figure(record),
    ]
    for row in range(0, len(figures), 2):
        cols = st.columns(2)
        for col, (index, figure) in zip(cols, enumerate(figures[row : row + 2], start=row), strict=False):
            with col:
                st.plotly_chart(figure, width="stretch", theme=None, key=f"chart-{record.run_id}-{index}")
