"""The evidence graph of a run: question → steps → evidence → Item/filing or web source; claims ↔ evidence.

`evidence_graph_data` returns plain node/edge dicts (vis-network attributes). Labels are plain text
(vis draws them on a canvas); titles, the hover text, are HTML built from escaped text only.
`evidence_graph_html` renders them with pyvis into one offline HTML document.
"""

from __future__ import annotations

import json
import re
from typing import Any

from core.models import Evidence, KnowledgeCard, RunRecord, StepRecord
from core.report.answer_markup import one_line
from core.report.labels import clip, item_label, page_label, score_label
from core.text.escape import escape_html

Node = dict[str, Any]
Edge = dict[str, Any]

COLORS = {
    "question": "#1f4e79",
    "step": "#4f81bd",
    "evidence": "#f4b942",
    "item": "#9bbb59",
    "filing": "#5b8c2a",
    "web": "#8064a2",
    "note": "#bfbfbf",
    "claim": "#17a2b8",
    "supports": "#2e9e44",
    "contradicts": "#d62728",
    "found": "#9aa5b1",
}
_LEGEND = [
    ("question", "Question"),
    ("step", "Research step"),
    ("evidence", "Evidence passage"),
    ("item", "10-K Item"),
    ("filing", "Filing"),
    ("web", "Web source"),
    ("note", "Note or calculation (e.g. web search unavailable)"),
    ("claim", "Claim (knowledge card)"),
]


def _title(*lines: str) -> str:
    """Hover text: escaped lines joined by <br>; 'href' is entity-encoded so pyvis never switches to raw HTML popups."""
    body = "<br>".join(escape_html(line) for line in lines if line)
    return re.sub("href", "hr&#101;f", body, flags=re.IGNORECASE)


def _node(node_id: str, label: str, kind: str, title: str, **extra: Any) -> Node:
    shape = {"question": "box", "step": "box", "claim": "box", "filing": "diamond", "item": "square"}.get(
        kind, "dot"
    )
    if shape == "box":
        # Text sits inside boxes: white on the dark fills.
        extra.setdefault("font", {"color": "#ffffff"})
    return {
        "id": node_id,
        "label": label,
        "kind": kind,
        "title": title,
        "color": COLORS[kind],
        "shape": shape,
        **extra,
    }


def _edge(source: str, target: str, kind: str, title: str = "") -> Edge:
    edge: Edge = {
        "from": source,
        "to": target,
        "kind": kind,
        "color": COLORS[kind],
        "title": escape_html(title),
    }
    if kind == "contradicts":
        edge["dashes"] = True
        edge["width"] = 2
    elif kind == "supports":
        edge["width"] = 2
    return edge


def _evidence_node(ev: Evidence) -> Node:
    node_id = f"ev:{ev.evidence_id}"
    text = clip(ev.text, 600)
    if ev.kind == "filing":
        where = ", ".join(
            part
            for part in (ev.filing_label or "", item_label(ev.section, ev.section_title), page_label(ev.page))
            if part
        )
        label = f"{ev.section or 'Passage'} · {page_label(ev.page)}"
        return _node(node_id, label, "evidence", _title(where, f"score {score_label(ev.score)}", text))
    if ev.kind == "web":
        return _node(
            node_id, clip(ev.title or "Web result", 40), "web", _title(ev.title or "", ev.url or "", text)
        )
    return _node(node_id, clip(ev.title or ev.text, 40), "note", _title(ev.kind, text))


def _step_nodes(step: StepRecord) -> tuple[Node, str]:
    node_id = f"step:{step.index}"
    strategy = step.strategy_override or step.strategy or step.tool
    lines = [
        f"Step {step.index + 1}: {one_line(step.sub_question)}",
        f"Tool: {step.tool}; strategy: {strategy}"
        + (" (analyst override)" if step.strategy_override else ""),
        one_line(step.justification),
        one_line(step.widen_note or ""),
    ]
    return _node(node_id, f"Step {step.index + 1} · {strategy}", "step", _title(*lines)), node_id


def _claim_node(step: StepRecord, index: int, card: KnowledgeCard) -> Node:
    lines = [clip(card.claim, 400), f"confidence {card.confidence:.2f}"]
    if card.contradiction:
        lines.append(f"Conflict: {clip(card.contradiction, 300)}")
    return _node(f"claim:{step.index}:{index}", clip(card.claim, 40), "claim", _title(*lines))


def evidence_graph_data(record: RunRecord) -> tuple[list[Node], list[Edge]]:
    """Nodes and edges of the evidence graph as plain dicts (ids, labels, escaped titles, colours, kinds)."""
    nodes: dict[str, Node] = {}
    edges: list[Edge] = []

    def add(node: Node) -> str:
        nodes.setdefault(node["id"], node)
        return node["id"]

    question = add(
        _node("question", clip(record.question, 60), "question", _title(one_line(record.question)))
    )
    for step in record.steps:
        step_node, step_id = _step_nodes(step)
        add(step_node)
        edges.append(_edge(question, step_id, "found", "plan step"))
        if not step.evidence and step.evidence_note:
            # A step that found nothing still says why (e.g. web search unavailable).
            note_id = add(
                _node(
                    f"note:{step.index}",
                    clip(step.evidence_note, 40),
                    "note",
                    _title(clip(step.evidence_note, 600)),
                )
            )
            edges.append(_edge(step_id, note_id, "found", "no evidence"))
        for ev in step.evidence:
            ev_id = add(_evidence_node(ev))
            edges.append(_edge(step_id, ev_id, "found", "retrieved"))
            if ev.kind == "filing" and ev.filing_id:
                filing_id = add(
                    _node(
                        f"filing:{ev.filing_id}",
                        clip(ev.filing_label or ev.filing_id[:8], 40),
                        "filing",
                        _title(ev.filing_label or ev.filing_id),
                    )
                )
                section = ev.section or "Unknown section"
                item_id = add(
                    _node(
                        f"item:{ev.filing_id}:{section}",
                        section,
                        "item",
                        _title(item_label(section, ev.section_title), ev.filing_label or ""),
                    )
                )
                edges.append(_edge(ev_id, item_id, "found", "in"))
                edges.append(_edge(item_id, filing_id, "found", "part of"))
            elif ev.kind == "web" and ev.url:
                web_id = add(
                    _node(
                        f"web:{ev.url}", clip(ev.title or ev.url, 40), "web", _title(ev.title or "", ev.url)
                    )
                )
                edges.append(_edge(ev_id, web_id, "found", "source"))
    # Claims come last: a card may cite or contradict evidence another step found.
    for step in record.steps:
        for index, card in enumerate(step.cards):
            claim_id = add(_claim_node(step, index, card))
            edges += [
                _edge(claim_id, f"ev:{e}", "supports", "supported by")
                for e in card.evidence_ids
                if f"ev:{e}" in nodes
            ]
            edges += [
                _edge(claim_id, f"ev:{e}", "contradicts", card.contradiction or "contradicted by")
                for e in card.contradicting_evidence_ids
                if f"ev:{e}" in nodes
            ]
    # Edges are unique per (from, to, kind): the same chunk found twice is drawn once.
    unique = {(e["from"], e["to"], e["kind"]): e for e in edges}
    return list(nodes.values()), list(unique.values())


# vis-network shows a string title as plain text; turning our escaped-HTML titles into elements keeps
# line breaks while every character of document text still arrives as text, never as markup.
_TITLE_SCRIPT = """
                  [nodes, edges].forEach(function (set) {
                      set.forEach(function (item) {
                          if (typeof item.title === "string" && item.title) {
                              var box = document.createElement("div");
                              box.className = "eg-tip";
                              box.innerHTML = item.title;
                              set.update({id: item.id, title: box});
                          }
                      });
                  });
                  network = new vis.Network(container, data, options);"""
_NETWORK_CALL = "network = new vis.Network(container, data, options);"
_REMOTE_TAG = re.compile(
    r"<link\b[^>]*\bhref=[\"']https?://[^>]*>|<script\b[^>]*\bsrc=[\"']https?://[^>]*>\s*</script>",
    re.IGNORECASE,
)
# A commented-out block of the template still names local vis files; drop it so nothing looks linked.
_DEAD_LINKS = re.compile(r"<!--\s*<link\b.*?-->", re.IGNORECASE | re.DOTALL)
_EMPTY_HEADING = re.compile(r"<center>\s*<h1>\s*</h1>\s*</center>", re.IGNORECASE)
# Inline scripts may run (the graph needs them); nothing may be fetched from anywhere.
_CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
    "font-src data:; base-uri 'none'; form-action 'none'"
)
_OPTIONS = {
    "physics": {
        "solver": "forceAtlas2Based",
        "forceAtlas2Based": {"gravitationalConstant": -60, "springLength": 110, "avoidOverlap": 0.4},
        "stabilization": {"iterations": 250},
    },
    "interaction": {"hover": True, "tooltipDelay": 120, "navigationButtons": False},
    "nodes": {"font": {"size": 13, "face": "Helvetica, Arial, sans-serif"}},
    "edges": {"arrows": {"to": {"enabled": True, "scaleFactor": 0.5}}, "smooth": {"type": "continuous"}},
}


def _legend_html() -> str:
    swatches = "".join(
        f'<span class="eg-item"><span class="eg-dot" style="background:{COLORS[kind]}"></span>{escape_html(text)}</span>'
        for kind, text in _LEGEND
    )
    lines = (
        f'<span class="eg-item"><span class="eg-line" style="border-top:3px solid {COLORS["supports"]}"></span>'
        "supports the claim</span>"
        f'<span class="eg-item"><span class="eg-line" style="border-top:3px dashed {COLORS["contradicts"]}"></span>'
        "contradicts the claim</span>"
        f'<span class="eg-item"><span class="eg-line" style="border-top:2px solid {COLORS["found"]}"></span>'
        "found by / located in</span>"
    )
    style = (
        "<style>.eg-legend{font:13px Helvetica,Arial,sans-serif;padding:6px 8px;display:flex;flex-wrap:wrap;"
        "gap:4px 14px;border-bottom:1px solid #ddd}.eg-item{display:inline-flex;align-items:center;gap:5px}"
        ".eg-dot{width:12px;height:12px;border-radius:50%;display:inline-block}"
        ".eg-line{width:26px;display:inline-block}"
        ".eg-tip{max-width:420px;white-space:normal;font:12px Helvetica,Arial,sans-serif}</style>"
    )
    return f'{style}<div class="eg-legend" id="legend"><strong>Legend</strong>{swatches}{lines}</div>'


def evidence_graph_html(record: RunRecord, height: str = "620px") -> str:
    """The evidence graph as one self-contained HTML document (pyvis, vis-network inlined, no remote assets)."""
    from pyvis.network import Network  # imported here: pyvis loads jinja templates on import

    nodes, edges = evidence_graph_data(record)
    net = Network(height=height, width="100%", directed=True, cdn_resources="in_line", bgcolor="#ffffff")
    for node in nodes:
        attrs = {k: v for k, v in node.items() if k not in {"id", "kind"}}
        net.add_node(node["id"], **attrs)
    for edge in edges:
        attrs = {k: v for k, v in edge.items() if k not in {"from", "to", "kind"}}
        net.add_edge(edge["from"], edge["to"], **attrs)
    net.set_options(json.dumps(_OPTIONS))
    page = net.generate_html(notebook=False)
    # pyvis's template links Bootstrap from a CDN even in in_line mode; the graph does not need it.
    page = _REMOTE_TAG.sub("", page)
    page = _DEAD_LINKS.sub("", page)
    page = _EMPTY_HEADING.sub("", page)
    page = page.replace(_NETWORK_CALL, _TITLE_SCRIPT, 1)
    page = page.replace("<head>", f'<head>\n<meta http-equiv="Content-Security-Policy" content="{_CSP}">', 1)
    return page.replace("<body>", f"<body>\n{_legend_html()}", 1)
