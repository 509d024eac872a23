"""The graph's node names have one home, core.models.GRAPH_NODES: the graph registers exactly those."""

from __future__ import annotations

import pytest

from core.graph.builder import build_graph
from core.graph.node_support import instrumented
from core.models import GRAPH_NODES, STEP_NODES


def test_the_graph_has_exactly_the_listed_nodes():
    compiled = build_graph(None)
    assert [name for name in compiled.nodes if not name.startswith("__")] == list(GRAPH_NODES)
    assert STEP_NODES.issubset(GRAPH_NODES) and {"plan_research", "write_report"}.isdisjoint(STEP_NODES)


def test_a_node_not_in_the_list_is_refused_when_defined():
    def summarise_findings(state, runtime):
        return {}

    with pytest.raises(ValueError, match="summarise_findings is not one of the graph's nodes"):
        instrumented(summarise_findings)
