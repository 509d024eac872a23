"""The new-question form of the Research page: filings, question, run mode, step budget."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass

import streamlit as st

from core.models import Filing
from core.service import SAMPLE_FILING
from views.components.plan_editor import filing_choices

log = logging.getLogger(__name__)

SAMPLE_QUESTIONS = SAMPLE_FILING.parent / "questions.json"
SAMPLE_QUESTION_ID = "nw-01"


@dataclass
class QuestionRequest:
    """What the analyst submitted: the question, the filings to search, the run mode and step budget."""

    question: str
    filing_ids: list[str]
    step_mode: bool
    max_steps: int


@st.cache_data(show_spinner=False)
def sample_question() -> str:
    """The demo question about the bundled sample filing ('' when the question set is missing)."""
    try:
        questions = json.loads(SAMPLE_QUESTIONS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        log.warning("sample question set not readable: %s", SAMPLE_QUESTIONS.name)
        return ""
    return next((q["question"] for q in questions if q.get("id") == SAMPLE_QUESTION_ID), "")


def question_form(filings: list[Filing], default_max_steps: int) -> QuestionRequest | None:
    """Draw the form; return the request when 'Plan' was pressed with a question and filings."""
    labels = filing_choices(filings)
    has_sample = any(f.filename == SAMPLE_FILING.name for f in filings)
    with st.form("new-question", border=True):
        chosen = st.multiselect(
            "Filings to research",
            options=list(labels),
            default=list(labels),
            format_func=labels.get,
            help="The plan and every step search only these filings.",
        )
        question = st.text_area(
            "Question",
            value=sample_question() if has_sample else "",
            height=100,
            placeholder="e.g. What competition risks does the company list, and how did R&D spending change?",
            help="Multi-hop questions work best: the planner splits them into steps you can edit.",
        )
        left, mid, right = st.columns([2, 1, 1], vertical_alignment="bottom")
        with left:
            step_mode = st.toggle(
                "Step mode: pause after every step",
                value=False,
                help="Off (auto): run the whole plan after you approve it. On: review and edit the "
                "remaining plan after each step.",
            )
        with mid:
            max_steps = st.number_input("Max steps", min_value=1, max_value=20, value=int(default_max_steps))
        with right:
            submitted = st.form_submit_button(
                "Plan", type="primary", icon=":material/account_tree:", width="stretch"
            )
    if not submitted:
        return None
    if not question.strip():
        st.warning("Type a question first.", icon=":material/edit:")
        return None
    if not chosen:
        st.warning("Choose at least one filing to research.", icon=":material/folder_open:")
        return None
    return QuestionRequest(question.strip(), list(chosen), bool(step_mode), int(max_steps))
