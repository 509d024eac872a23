"""Shared look of the pages: the stylesheet, status labels, node names and readable error messages."""

from __future__ import annotations

import logging
from pathlib import Path

import streamlit as st

from core.models import NodeName
from core.service import RunBusy, RunNotFound, RunStateError, WorkbenchError, failure_message
from core.service.display import escape_markdown

log = logging.getLogger(__name__)

STYLESHEET = Path(__file__).resolve().parents[2] / "assets" / "style.css"
#: The browser tab's icon, served by the app: a Material icon as page icon makes the browser fetch it from
#: fonts.gstatic.com, and nothing the pages load may come from another host.
FAVICON = STYLESHEET.with_name("favicon.png")

#: Run status -> (label, badge colour, icon).
STATUS_BADGES: dict[str, tuple[str, str, str]] = {
    "awaiting_plan_review": ("Awaiting plan review", "orange", ":material/rate_review:"),
    "paused_after_step": ("Paused after a step", "violet", ":material/pause_circle:"),
    "running": ("Interrupted while running", "red", ":material/sync_problem:"),
    "finished": ("Finished", "green", ":material/task_alt:"),
    "failed": ("Failed", "red", ":material/error:"),
    "cancelled": ("Cancelled", "gray", ":material/cancel:"),
    # Not a checkpoint status: a run with an action on a worker of this app right now.
    "live": ("Running now", "blue", ":material/progress_activity:"),
}

#: Graph node (every one of core.models.GRAPH_NODES; a test checks) -> what the analyst sees while it runs.
NODE_LABELS: dict[NodeName, str] = {
    "plan_research": "Planning the research",
    "review_plan": "Plan review",
    "rewrite_query": "Rewriting the query",
    "choose_strategy": "Choosing a retrieval strategy",
    "retrieve_evidence": "Retrieving passages",
    "rerank_evidence": "Reranking passages",
    "search_web": "Searching the web",
    "calculate": "Calculating",
    "run_wave_step": "Running steps side by side",
    "distil_evidence": "Distilling knowledge cards",
    "reflect_on_step": "Reflecting on the step",
    "decide_next": "Deciding what to do next",
    "review_step": "Step review",
    "write_report": "Writing the cited answer",
}

TOOL_LABELS = {"search_10k": "Filing search", "search_web": "Web search", "calculator": "Calculator"}


def inject_css() -> None:
    """Add the workbench stylesheet to the page (once per script run)."""
    if STYLESHEET.exists():
        st.html(STYLESHEET)


def status_badge(status: str) -> None:
    """A coloured badge for a run status."""
    label, color, icon = STATUS_BADGES.get(status, (status, "gray", ":material/help:"))
    st.badge(label, color=color, icon=icon)  # type: ignore[arg-type]


def engine_label(engine: str) -> str:
    """'Offline engine' or 'LLM: <model>'."""
    return "Offline engine" if engine == "offline" else f"LLM: {engine.removeprefix('llm:')}"


def error_text(action: str, exc: Exception) -> str:
    """Log the details; return, in plain words, what failed and what to do (Markdown-escaped). The exception's
    text is shown only when the workbench raised it on purpose (a WorkbenchError) and wrote it for a person."""
    log.error("%s failed", action, exc_info=exc)
    if isinstance(exc, RunNotFound):
        text = f"{action}: this run no longer exists in the data directory. Start a new question."
    elif isinstance(exc, RunBusy):
        text = f"{action}: the run is already working. Wait for it to finish, or cancel it."
    elif isinstance(exc, RunStateError):
        text = (
            f"{action}: the run has moved on since this page was drawn ({exc.message}). The page now shows its "
            "current state; try again from there."
        )
    elif isinstance(exc, WorkbenchError):
        text = failure_message(action, exc) + "."
    else:
        text = failure_message(action, exc) + ". Check the Settings page (model, LLM server) and try again."
    return escape_markdown(text)


def show_error(action: str, exc: Exception) -> None:
    """Log the details and tell the analyst, in plain words, what failed and what to do."""
    st.error(error_text(action, exc), icon=":material/error:")


def page_link(page: str, label: str, icon: str, query_params: dict[str, str] | None = None) -> None:
    """A link to another page of the app; silent where the page is not registered (a page tested alone)."""
    from streamlit.errors import StreamlitAPIException

    try:
        st.page_link(page, label=label, icon=icon, query_params=query_params)
    except StreamlitAPIException:
        log.debug("page %s is not in the navigation; link omitted", page)
