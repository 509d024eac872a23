"""Evidence graph: the node/edge data, and an offline pyvis document with a legend."""

from __future__ import annotations

import json
import re

from core.report.evidence_graph import evidence_graph_data, evidence_graph_html


def _by_kind(items: list[dict], kind: str) -> list[dict]:
    return [item for item in items if item["kind"] == kind]


def test_graph_links_question_steps_evidence_items_and_filing(record) -> None:
    nodes, edges = evidence_graph_data(record)
    ids = {node["id"] for node in nodes}
    assert len(ids) == len(nodes), "node ids are unique"
    assert all(edge["from"] in ids and edge["to"] in ids for edge in edges)
    pairs = {(edge["from"], edge["to"]) for edge in edges}
    assert {("question", f"step:{i}") for i in range(3)} <= pairs
    assert ("step:0", "ev:e1") in pairs and ("step:1", "ev:e3") in pairs
    items = {node["label"] for node in _by_kind(nodes, "item")}
    assert items == {"Item 1", "Item 1A", "Item 7"}
    filing = _by_kind(nodes, "filing")
    assert len(filing) == 1 and "Northwind" in filing[0]["label"]
    assert all((item["id"], filing[0]["id"]) in pairs for item in _by_kind(nodes, "item"))
    # The failed web search shows up as a note node under its step.
    note = _by_kind(nodes, "note")
    assert note and ("step:2", note[0]["id"]) in pairs and "web search unavailable" in note[0]["title"]


def test_claims_have_green_support_and_red_dashed_contradiction_edges(record) -> None:
    nodes, edges = evidence_graph_data(record)
    claims = _by_kind(nodes, "claim")
    assert len(claims) == 3
    supports = _by_kind(edges, "supports")
    contradicts = _by_kind(edges, "contradicts")
    assert {(e["from"], e["to"]) for e in supports} >= {("claim:0:0", "ev:e1"), ("claim:0:1", "ev:e2")}
    assert [(e["from"], e["to"]) for e in contradicts] == [("claim:0:1", "ev:e1")]
    assert contradicts[0]["dashes"] is True and contradicts[0]["color"] != supports[0]["color"]
    assert "dashes" not in supports[0]


def test_step_title_explains_strategy_and_override(record) -> None:
    nodes, _ = evidence_graph_data(record)
    step2 = next(node for node in nodes if node["id"] == "step:1")
    assert "keyword" in step2["label"] and "analyst override" in step2["title"]
    evidence = next(node for node in nodes if node["id"] == "ev:e3")
    assert "Item 7" in evidence["title"] and "page 11" in evidence["title"] and "0.955" in evidence["title"]


def test_graph_html_is_offline_with_legend(record) -> None:
    page = evidence_graph_html(record)
    assert not re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", page, re.IGNORECASE)
    assert "<script src" not in page.lower() and "<link" not in page.lower()
    assert "new vis.Network" in page and "vis.DataSet" in page
    assert 'id="legend"' in page and "contradicts the claim" in page
    assert "Content-Security-Policy" in page
    nodes_json = re.search(r"nodes = new vis\.DataSet\((\[.*?\])\);", page, re.DOTALL)
    assert nodes_json is not None
    assert {node["id"] for node in json.loads(nodes_json.group(1))} >= {"question", "step:0", "ev:e1"}


def test_empty_run_gives_question_only_graph() -> None:
    from core.models import RunRecord

    empty = RunRecord(run_id="r0", question="Anything?", status="awaiting_plan_review")
    nodes, edges = evidence_graph_data(empty)
    assert [node["id"] for node in nodes] == ["question"] and edges == []
    assert "new vis.Network" in evidence_graph_html(empty)


def test_step_without_evidence_shows_why(record) -> None:
    record.steps[2].evidence = []
    nodes, edges = evidence_graph_data(record)
    note = next(node for node in nodes if node["id"] == "note:2")
    assert "web search unavailable" in note["title"]
    assert any(edge["from"] == "step:2" and edge["to"] == "note:2" for edge in edges)
