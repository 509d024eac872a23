"""Plotly figures of a run: strategy mix, rerank scores, evidence coverage by Item, time per node.

Every function is pure and returns a `plotly.graph_objects.Figure`; with nothing to plot it returns a
figure carrying an explanatory annotation instead of raising.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import plotly.graph_objects as go

from core.models import Evidence, RunRecord, StepRecord, section_rank

STRATEGY_COLORS = {
    "vector": "#4f81bd",
    "keyword": "#f4b942",
    "hybrid": "#9bbb59",
    "web": "#8064a2",
    "calculator": "#bfbfbf",
}
_LAYOUT = {"template": "plotly_white", "height": 340, "margin": {"l": 60, "r": 20, "t": 50, "b": 50}}


def empty_figure(title: str, message: str) -> go.Figure:
    """A blank figure whose centre says why there is nothing to show."""
    figure = go.Figure()
    figure.add_annotation(
        text=message, x=0.5, y=0.5, xref="paper", yref="paper", showarrow=False, font={"size": 14}
    )
    figure.update_layout(title=title, xaxis={"visible": False}, yaxis={"visible": False}, **_LAYOUT)
    return figure


def _strategy(step: StepRecord) -> str:
    if step.tool == "search_web":
        return "web"
    if step.tool == "calculator":
        return "calculator"
    return step.strategy_override or step.strategy or "not chosen"


def strategy_mix_figure(record: RunRecord) -> go.Figure:
    """Bar chart: how many steps used each retrieval strategy (analyst overrides counted apart)."""
    title = "Retrieval strategy per step"
    if not record.steps:
        return empty_figure(title, "No step has run yet.")
    chosen: Counter[str] = Counter()
    overridden: Counter[str] = Counter()
    for step in record.steps:
        (overridden if step.strategy_override or step.decided_by == "analyst" else chosen)[
            _strategy(step)
        ] += 1
    names = sorted(
        set(chosen) | set(overridden),
        key=lambda s: list(STRATEGY_COLORS).index(s) if s in STRATEGY_COLORS else 99,
    )
    figure = go.Figure()
    figure.add_bar(
        name="chosen by the supervisor",
        x=names,
        y=[chosen[n] for n in names],
        marker_color=[STRATEGY_COLORS.get(n, "#999999") for n in names],
    )
    if overridden:
        figure.add_bar(
            name="set by the analyst",
            x=names,
            y=[overridden[n] for n in names],
            marker_color=[STRATEGY_COLORS.get(n, "#999999") for n in names],
            marker_pattern_shape="/",
        )
    figure.update_layout(title=title, barmode="stack", yaxis={"title": "steps", "dtick": 1}, **_LAYOUT)
    return figure


def _rerank_score(evidence: Evidence) -> float | None:
    if evidence.scores and evidence.scores.rerank is not None:
        return evidence.scores.rerank
    return evidence.score


def rerank_score_figure(record: RunRecord) -> go.Figure:
    """Box-and-points chart of the kept evidence's rerank scores, one box per step."""
    title = "Rerank scores of the evidence kept"
    figure = go.Figure()
    for step in record.steps:
        scores = [s for ev in step.evidence if ev.kind == "filing" and (s := _rerank_score(ev)) is not None]
        if scores:
            figure.add_box(
                y=scores,
                name=f"Step {step.index + 1}",
                boxpoints="all",
                jitter=0.3,
                pointpos=0,
                showlegend=False,
            )
    if not figure.data:
        return empty_figure(title, "No reranked filing evidence in this run.")
    rerankers = sorted({step.reranker for step in record.steps if step.reranker})
    subtitle = f"reranker: {', '.join(rerankers)}" if rerankers else "no reranker recorded"
    figure.update_layout(
        title={"text": f"{title}<br><sup>{_plain(subtitle)}</sup>"}, yaxis={"title": "score"}, **_LAYOUT
    )
    return figure


def evidence_coverage_figure(record: RunRecord) -> go.Figure:
    """Bar chart: evidence passages per 10-K Item, stacked by filing, Items in filing order."""
    title = "Evidence coverage by Item"
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for step in record.steps:
        for ev in step.evidence:
            if ev.kind == "filing":
                counts[ev.filing_label or (ev.filing_id or "filing")[:12]][
                    ev.section or "Unknown section"
                ] += 1
    if not counts:
        return empty_figure(title, "No filing evidence in this run.")
    sections = sorted(
        {s for per_filing in counts.values() for s in per_filing}, key=lambda s: (section_rank(s), s)
    )
    figure = go.Figure()
    for filing, per_section in counts.items():
        figure.add_bar(name=_plain(filing), x=sections, y=[per_section[s] for s in sections])
    figure.update_layout(
        title=title,
        barmode="stack",
        yaxis={"title": "passages", "dtick": 1},
        xaxis={"type": "category"},
        **_LAYOUT,
    )
    return figure


def node_timing_figure(record: RunRecord) -> go.Figure:
    """Stacked horizontal bars: seconds each graph node took, per step, plus the run's other nodes."""
    title = "Time per node"
    rows = [(f"Step {step.index + 1}", step.timings) for step in record.steps if step.timings]
    # Run-level timings repeat the step nodes' totals; only nodes outside the steps get their own row.
    step_nodes = {node for step in record.steps for node in step.timings}
    outside = {node: sec for node, sec in record.timings.items() if node not in step_nodes}
    if outside:
        rows.insert(0, ("Plan and report", outside))
    if not rows:
        return empty_figure(title, "No timings were recorded for this run.")
    nodes = list(dict.fromkeys(node for _, timings in rows for node in timings))
    labels = [label for label, _ in rows]
    figure = go.Figure()
    for node in nodes:
        figure.add_bar(
            name=node,
            y=labels,
            x=[timings.get(node, 0.0) for _, timings in rows],
            orientation="h",
            hovertemplate=f"{node}: %{{x:.2f}} s<extra></extra>",
        )
    figure.update_layout(
        title=title, barmode="stack", xaxis={"title": "seconds"}, yaxis={"autorange": "reversed"}, **_LAYOUT
    )
    return figure


def _plain(text: str) -> str:
    # Plotly renders a small HTML subset in titles and legend names; keep document text inert.
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
