"""Evaluate: compare a naive RAG baseline, one search of the question, and the deep research loop on a
question set with ground truth."""

from __future__ import annotations

import streamlit as st

from core.models import EVAL_SYSTEMS, EvalConfig
from core.service.display import answer_html
from views.components.display import show_error
from views.components.eval_views import downloads, results_frame, show_question, show_summary
from views.components.navigation import page_setup

SETS = {
    "sample": "Sample filing (Northwind, 14 questions)",
    "financebench": "FinanceBench (10-K questions whose PDF is available)",
    "docugami": "Docugami 10-Qs (questions on one or four quarterly reports, when the set is available)",
    "upload": "Your own question set (CSV or JSON Lines)",
}
SYSTEM_HELP = {
    "naive": "fixed 1,000-character page splits, vector top-5",
    "one-search": "this workbench's search of the raw question, top 10",
    "deep": "the full research loop, plan approved as proposed",
}

bench = page_setup(
    "Evaluate",
    "Does the research loop find and state more than simpler systems? Run a question set with known answers "
    "through a naive RAG baseline, one search of the raw question, and the deep loop; compare context "
    "precision and recall, faithfulness and answer correctness (RAGAS's metrics, judged against the ground "
    "truth, or by your LLM), citations and time. Filings are ingested into a separate evaluation workspace.",
)

# An evaluation runs for minutes: only the button starts one, not Enter in a field of the form.
with st.form("eval-form", enter_to_submit=False):
    choice = st.radio("Question set", list(SETS), format_func=SETS.get, horizontal=True)
    upload = st.file_uploader(
        "Question set file",
        type=["csv", "jsonl"],
        help="Columns: question, answer, filing (file name of a filing in your Library), and optionally "
        "evidence (text), page (as a PDF viewer numbers it; several separated by ';'), type, id.",
    )
    left, mid, right = st.columns(3)
    qtype = left.text_input("Only this question type", placeholder="any type")
    filing = mid.text_input("Only this filing (file name)", placeholder="any filing")
    limit = right.number_input("At most this many questions", min_value=0, value=10, step=1, help="0 = all")
    systems = st.multiselect(
        "Systems",
        list(EVAL_SYSTEMS),
        default=list(EVAL_SYSTEMS),
        format_func=lambda s: f"{s} ({SYSTEM_HELP[s]})",
    )
    judge = st.radio(
        "Judge",
        ["reference", "llm"],
        format_func=lambda j: (
            "Ground truth (no LLM needed)" if j == "reference" else "Ground truth and the LLM"
        ),
        horizontal=True,
        disabled=bench.settings.llm_provider == "offline",
        help="The LLM judge needs an LLM provider (Settings).",
    )
    start = st.form_submit_button("Run evaluation", type="primary", icon=":material/play_arrow:")

if start:
    try:
        if choice == "upload":
            if upload is None:
                st.warning("Choose a question set file first.", icon=":material/upload_file:")
                st.stop()
            qset = bench.question_set(upload.name, data=upload.getvalue(), filename=upload.name)
        else:
            qset = bench.question_set(choice)
        qset = qset.filtered(
            limit=int(limit) or None, qtype=qtype.strip() or None, filing=filing.strip() or None
        )
        if not systems:
            st.warning("Choose at least one system.", icon=":material/checklist:")
            st.stop()
        config = EvalConfig(
            eval_id="",
            set_name=qset.name,
            systems=systems,  # type: ignore[arg-type]
            limit=int(limit) or None,
            qtype=qtype.strip() or None,
            filing=filing.strip() or None,
            judge=judge,  # type: ignore[arg-type]
            engine=bench.settings.llm_provider,
        )
        bar = st.progress(0.0, text="Preparing…")
        table = st.empty()
        done: list = []

        def progress(p) -> None:
            bar.progress(min(1.0, p.done / max(p.total, 1)), text=p.message[:120])
            if p.result is not None:
                done.append(p.result)
                table.dataframe(results_frame(done), hide_index=True, width="stretch")

        run = bench.run_evaluation(qset, config, progress)
        bar.progress(1.0, text=f"Done: {len(run.results)} answers scored.")
        st.session_state["evaluation"] = run.config.eval_id
    except Exception as exc:  # noqa: BLE001 - a bad set or a failed run is shown, the page keeps working
        show_error("The evaluation", exc)

# --- results ---------------------------------------------------------------------------------------
runs = bench.evaluations()
if not runs:
    st.info("No evaluation yet: choose a question set and run one.", icon=":material/analytics:")
    st.stop()
by_id = {r.config.eval_id: r for r in runs}
current = st.session_state.get("evaluation")
chosen = st.selectbox(
    "Evaluation",
    list(by_id),
    index=list(by_id).index(current) if current in by_id else 0,
    format_func=lambda i: (
        f"{by_id[i].config.created_at:%Y-%m-%d %H:%M} · {by_id[i].config.set_name} · "
        f"{', '.join(by_id[i].config.systems)} · {len(by_id[i].results)}/{by_id[i].expected} answers"
        + ("" if by_id[i].finished else " · unfinished")
    ),
)
run = by_id[chosen]
if not run.finished:
    st.warning(
        f"This evaluation stopped after {len(run.results)} of {run.expected} answers.",
        icon=":material/pause:",
    )
    if st.button("Resume it", icon=":material/play_arrow:"):
        try:
            run = bench.resume_evaluation(run.config.eval_id)
            st.rerun()
        except Exception as exc:  # noqa: BLE001
            show_error("Resuming the evaluation", exc)
if not run.results:
    st.stop()
summary = bench.evaluation_summary(run)
show_summary(summary)
downloads(run, summary)

st.subheader("One question, every system")
questions = {r.qid: r.question for r in run.results}
qid = st.selectbox("Question", list(questions), format_func=lambda q: f"{q} · {questions[q][:100]}")
show_question(run, qid, answer_html)
