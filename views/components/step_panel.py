"""One executed plan step: query, strategy (with override), candidates, evidence, cards, note, decision."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.models import STRATEGIES, StepRecord
from core.service.display import escape_markdown
from views.components.display import TOOL_LABELS
from views.components.evidence_cards import evidence_cards, knowledge_cards

STRATEGY_COLORS = {"vector": "blue", "keyword": "orange", "hybrid": "green"}
# Which stage a candidate's single stored score belongs to, by the strategy that retrieved it.
_CANDIDATE_STAGE = {"vector": "vector", "keyword": "bm25", "hybrid": "fused"}


def candidates_frame(step: StepRecord) -> pd.DataFrame:
    """Retrieved candidates with the score each stage gave them; runs recorded before per-candidate
    stage scores existed fall back to the kept evidence's scores and the one stored score."""
    by_chunk = {ev.chunk_id: ev for ev in step.evidence if ev.chunk_id}
    stage = _CANDIDATE_STAGE.get(step.strategy_override or step.strategy or "", "vector")
    rows = []
    for rank, cand in enumerate(step.candidates, start=1):
        kept = by_chunk.get(cand.chunk_id)
        scores = cand.scores or (kept.scores if kept and kept.scores else None)
        row = {
            "Rank": rank,
            "Chunk": cand.chunk_id,
            "Item": cand.section or "",
            "Page": cand.page,
            "vector": scores.vector if scores else None,
            "bm25": scores.bm25 if scores else None,
            "fused": scores.fused if scores else None,
            "rerank": scores.rerank if scores else None,
            "Rerank rank": scores.rerank_rank if scores else None,
            "Statement page": scores.statement_rank if scores else None,
            "Widened": cand.widened,
            "Kept": kept is not None,
        }
        if row[stage] is None and row["Statement page"] is None:
            row[stage] = cand.score
        rows.append(row)
    return pd.DataFrame(rows)


def _evidence_all_in_item(step: StepRecord) -> bool:
    """True when the step has an Item filter and every passage kept as evidence lies in that Item."""
    section = step.document_section
    return bool(section and step.evidence) and all(ev.section == section for ev in step.evidence)


def _strategy_line(step: StepRecord) -> None:
    strategy = step.strategy_override or step.strategy
    if strategy is None:
        return
    who = "analyst" if step.strategy_override else (step.decided_by or "offline")
    left, right = st.columns([1, 4], vertical_alignment="center")
    with left:
        st.badge(strategy, color=STRATEGY_COLORS.get(strategy, "gray"), icon=":material/manage_search:")  # type: ignore[arg-type]
    with right:
        st.caption(f"Decided by **{who}**. {escape_markdown(step.justification)}")


def override_control(step: StepRecord, run_id: str, enabled: bool) -> str | None:
    """Strategy select + 'Re-run step'; returns the chosen strategy when the button was pressed."""
    current = step.strategy_override or step.strategy or "hybrid"
    left, right = st.columns([2, 1], vertical_alignment="bottom")
    with left:
        choice = st.selectbox(
            "Override the retrieval strategy",
            STRATEGIES,
            index=STRATEGIES.index(current) if current in STRATEGIES else 2,
            key=f"override-{run_id}-{step.index}",
            disabled=not enabled,
            help="Re-runs this step's retrieval with the strategy you pick; later steps and the answer follow.",
        )
    with right:
        pressed = st.button(
            "Re-run step",
            key=f"rerun-{run_id}-{step.index}",
            icon=":material/replay:",
            disabled=not enabled,
            width="stretch",
        )
    return choice if pressed else None


def step_panel(step: StepRecord, run_id: str, can_override: bool, expanded: bool) -> str | None:
    """Render one step in an expander; returns a strategy when the analyst asked to re-run the step."""
    title = escape_markdown(
        step.sub_question if len(step.sub_question) <= 110 else step.sub_question[:109] + "…"
    )
    icon = {"search_10k": ":material/description:", "search_web": ":material/travel_explore:"}.get(
        step.tool, ":material/calculate:"
    )
    requested = None
    with st.expander(
        f"**Step {step.index + 1}** · {TOOL_LABELS.get(step.tool, step.tool)} · {title}",
        expanded=expanded,
        icon=icon,
    ):
        if step.origin == "anchor":
            st.caption(
                ":material/anchor: Anchor step: the question exactly as asked, so the run knows at least "
                "what one plain search finds."
            )
        elif step.origin == "reflection":
            st.caption(f":material/psychology: {escape_markdown(step.reason or 'Added by reflection')}")
        if step.reads_on_from:
            # A read-on step searches nothing: it reads the passages after an earlier step's best hits.
            st.caption(
                f":material/read_more: {escape_markdown(step.justification)} "
                f"{len(step.candidates)} passage(s) read, ranked by the sub-question."
            )
        else:
            requested = _search_details(step, run_id, can_override)
        st.markdown(f"**Evidence** ({len(step.evidence)})")
        evidence_cards(step)
        st.markdown("**Knowledge cards**")
        knowledge_cards(step.cards)
        _note_and_decision(step)
    return requested


def _search_details(step: StepRecord, run_id: str, can_override: bool) -> str | None:
    """What the step searched and how: query, Item filter, strategy, routing, candidates and their scores;
    returns a strategy when the analyst asked to re-run the step."""
    requested = None
    scope = step.document_section or "any Item"
    query = step.rewritten_query or step.sub_question
    rewritten = step.tool != "calculator" and query.strip() != step.sub_question.strip()
    st.markdown(
        f"**Query searched:** {escape_markdown(query)}  \n"
        + (
            f":gray[Rewritten from the sub-question: {escape_markdown(step.sub_question)}]  \n"
            if rewritten
            else ""
        )
        + f":gray[Item filter: {escape_markdown(scope)} · keywords: "
        f"{escape_markdown(', '.join(step.keywords) or 'none')}]"
    )
    if step.tool == "search_10k":
        _strategy_line(step)
        if step.route_note:
            st.caption(
                f":material/filter_alt: {escape_markdown(step.route_note)} "
                "Turn off *Route to the filings a question names* in Settings to search them all."
            )
        if step.widened or step.widen_note:
            note = escape_markdown(step.widen_note or "the Item filter found too little")
            if _evidence_all_in_item(step):  # widening only deepened the candidate pool
                st.caption(f":material/filter_alt_off: Filter widened for candidates only: {note}")
            else:
                st.warning(f"Filter widened: {note}", icon=":material/filter_alt_off:")
        requested = override_control(step, run_id, can_override)
        if step.candidates:
            st.markdown(
                f"**Retrieved candidates** ({len(step.candidates)}) · reranker: "
                f"{escape_markdown(step.reranker or 'none')}"
            )
            st.dataframe(
                candidates_frame(step),
                hide_index=True,
                width="stretch",
                column_config={
                    name: st.column_config.NumberColumn(name, format="%.3f")
                    for name in ("vector", "bm25", "fused", "rerank")
                }
                | {
                    "Widened": st.column_config.CheckboxColumn(
                        "Widened",
                        help="Found only by widening the Item filter; used when the Item runs out",
                    ),
                    "Kept": st.column_config.CheckboxColumn("Kept", help="Kept as evidence after reranking"),
                    "Statement page": st.column_config.NumberColumn(
                        "Statement page",
                        help="Joined as a page of the financial statement that reports the figure asked "
                        "for (its rank among those pages)",
                    ),
                },
            )
    return requested


def _bullets(label: str, lines: list[str]) -> str:
    body = "\n".join(f"- {escape_markdown(line)}" for line in lines) or "- none"
    return f"**{label}**\n\n{body}"


def _note_and_decision(step: StepRecord) -> None:
    if step.note is not None:
        st.markdown("**Research note**")
        if step.note.summary:
            st.caption(escape_markdown(step.note.summary))
        cols = st.columns(4)
        cols[0].markdown(_bullets("Confirmed facts", step.note.confirmed_facts))
        cols[1].markdown(_bullets("Open questions", step.note.open_questions))
        cols[2].markdown(_bullets("Conflicts", step.note.conflicts))
        cols[3].markdown(_bullets("Gaps to follow up", [g.description for g in step.note.gaps]))
    for error in step.errors:
        st.error(escape_markdown(error), icon=":material/error:")
    if step.decision is not None:
        icon = ":material/arrow_forward:" if step.decision.action == "continue" else ":material/flag:"
        st.info(f"**Policy: {step.decision.action}.** {escape_markdown(step.decision.reason)}", icon=icon)
    if step.timings:
        total = sum(step.timings.values())
        st.caption(f"Step time {total:.2f} s · attempt {step.attempt}")
