"""Every graph node has a label for the analyst, keyed by the one list of node names."""

from __future__ import annotations

from core.models import GRAPH_NODES
from views.components.display import NODE_LABELS
from views.components.run_progress import LOGGED_NODES


def test_every_node_has_a_label_and_only_nodes_have_one():
    assert list(NODE_LABELS) == list(GRAPH_NODES)
    assert all(label.strip() for label in NODE_LABELS.values())
    assert set(LOGGED_NODES) <= set(GRAPH_NODES)
