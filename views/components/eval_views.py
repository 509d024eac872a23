"""Rendering helpers of the Evaluate page: summary tables, charts, per-question drill-down, downloads."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import plotly.express as px
import streamlit as st

from core.models import EvalResult, EvalRun
from core.service.display import KEY_METRICS, escape_markdown


def _pct(value: float | None) -> float | None:
    return None if value is None else round(value * 100, 1)


def summary_frame(summary: dict[str, Any], block: dict[str, Any] | None = None) -> pd.DataFrame:
    """Metrics as rows, systems side by side (percent), with the variant that produced each."""
    block = block or summary["overall"]
    rows = []
    for name, variant, label in KEY_METRICS:
        entries = {s: block[s].get(f"{name}/{variant}") or {} for s in summary["systems"]}
        if all(e.get("mean") is None for e in entries.values()):
            continue
        row: dict[str, Any] = {"Metric": label, "Variant": variant}
        for system, entry in entries.items():
            row[system] = _pct(entry.get("mean"))
        rows.append(row)
    for key, label in (("steps/reference", "Steps (mean)"), ("seconds/reference", "Seconds (mean)")):
        row = {"Metric": label, "Variant": "measured"}
        for system in summary["systems"]:
            row[system] = (block[system].get(key) or {}).get("mean")
        rows.append(row)
    return pd.DataFrame(rows)


def by_type_frame(summary: dict[str, Any]) -> pd.DataFrame:
    """One row per (question type, key metric), systems side by side (percent)."""
    rows = []
    for qtype, block in summary["by_type"].items():
        n = block[summary["systems"][0]]["questions"]
        for name, variant, label in KEY_METRICS[:7]:
            entries = {s: block[s].get(f"{name}/{variant}") or {} for s in summary["systems"]}
            if all(e.get("mean") is None for e in entries.values()):
                continue
            row: dict[str, Any] = {"Question type": f"{qtype} ({n})", "Metric": label}
            for system, entry in entries.items():
                row[system] = _pct(entry.get("mean"))
            rows.append(row)
    return pd.DataFrame(rows)


def show_summary(summary: dict[str, Any]) -> None:
    """The results table, the per-type table and a chart."""
    systems = summary["systems"]
    percent = {s: st.column_config.NumberColumn(s, format="%.1f") for s in systems}
    st.markdown(
        "**Systems side by side** (percent of questions unless marked; variant says how it was judged)"
    )
    frame = summary_frame(summary)
    st.dataframe(frame, hide_index=True, width="stretch", column_config=percent)
    chart = frame[frame["Variant"].isin(["reference", "llm"])].melt(
        id_vars=["Metric", "Variant"], value_vars=systems, var_name="System", value_name="Percent"
    )
    if not chart.empty:
        fig = px.bar(chart, x="Metric", y="Percent", color="System", barmode="group", height=360)
        fig.update_layout(margin={"l": 10, "r": 10, "t": 10, "b": 10}, xaxis_title=None, legend_title=None)
        st.plotly_chart(fig, width="stretch")
    st.markdown("**By question type**")
    st.dataframe(by_type_frame(summary), hide_index=True, width="stretch", column_config=percent)


def results_frame(results: list[EvalResult]) -> pd.DataFrame:
    """One row per question and system, with the key reference metrics (for the running table and CSV)."""
    rows = []
    for r in results:
        row: dict[str, Any] = {"Question": r.qid, "Type": r.qtype, "System": r.system}
        for name, variant, label in KEY_METRICS[:9]:
            row[label] = r.metric(name, variant)  # type: ignore[arg-type]
        row["Steps"] = r.output.steps
        row["Seconds"] = r.output.seconds
        row["Error"] = r.output.error or ""
        rows.append(row)
    return pd.DataFrame(rows)


def downloads(run: EvalRun, summary: dict[str, Any]) -> None:
    """CSV of every result and JSON of the summary and results."""
    left, right = st.columns(2)
    left.download_button(
        "Results (CSV)",
        results_frame(run.results).to_csv(index=False).encode("utf-8"),
        file_name=f"evaluation-{run.config.set_name}-{run.config.eval_id}.csv",
        mime="text/csv",
        icon=":material/table:",
        width="stretch",
    )
    payload = {"summary": summary, "results": [r.model_dump(mode="json") for r in run.results]}
    right.download_button(
        "Summary and answers (JSON)",
        json.dumps(payload, indent=1, default=str).encode("utf-8"),
        file_name=f"evaluation-{run.config.set_name}-{run.config.eval_id}.json",
        mime="application/json",
        icon=":material/data_object:",
        width="stretch",
    )


def show_question(run: EvalRun, qid: str, answer_html: Any) -> None:
    """Every system's answer to one question side by side, with its evidence pages and scores."""
    results = [r for r in run.results if r.qid == qid]
    if not results:
        return
    first = results[0]
    st.markdown(f"**Question** ({first.qtype}, {first.filing})")
    st.text(first.question)
    st.markdown("**Reference answer**")
    st.text(first.reference)
    question = next((q for q in run.questions if q.qid == qid), None)
    if question and question.evidence_pages:
        st.caption("Gold evidence pages: " + ", ".join(map(str, question.evidence_pages)))
    cols = st.columns(len(results))
    for col, r in zip(cols, results, strict=True):
        with col:
            st.markdown(f"#### {r.system}")
            scores = {
                "gold found": r.metric("gold_evidence_hit"),
                "number first": r.metric("number_match"),
                "correct": r.metric("answer_correctness"),
                "faithful": r.metric("faithfulness"),
            }
            st.caption(
                " · ".join(f"{k}: {'–' if v is None else f'{v:.2f}'}" for k, v in scores.items())
                + f" · {r.output.steps} step(s), {r.output.seconds:.1f} s"
            )
            if r.output.error:
                st.error(escape_markdown(r.output.error[:300]))
            pages = sorted({c.page for c in r.output.contexts if c.page is not None})
            st.caption("Evidence pages: " + (", ".join(map(str, pages)) or "none"))
            st.html(f'<div class="wb-report">{answer_html(r.output.answer)}</div>')
