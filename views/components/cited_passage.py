"""A citation shown where it is printed: its PDF page with the quote highlighted, or its passage in the filing."""

from __future__ import annotations

import streamlit as st

from core.models import Citation, RunRecord
from core.service import CitedPassage, Workbench
from core.service.display import citation_place, escape_markdown
from views.components.evidence_cards import marked_html


@st.cache_data(max_entries=48, show_spinner="Rendering the page…")
def _cited(_bench: Workbench, data_dir: str, citation_json: str) -> CitedPassage | None:
    """The rendered passage of one citation (cached by data directory and citation: a page takes a fraction
    of a second to render)."""
    return _bench.cited_passage(Citation.model_validate_json(citation_json))


def _marked_passage(passage: CitedPassage) -> str:
    """The passage as escaped HTML with the quote marked (the quote is a verbatim slice of it); the quote
    alone when the filing was re-indexed since and its passages changed."""
    if passage.chunk is None:
        return (
            "<p><em>The filing was re-indexed after this run, so its passages changed; the quote is shown as "
            f'cited.</em></p><div class="wb-passage">{marked_html(passage.quote, [(0, len(passage.quote))])}</div>'
        )
    at = passage.chunk.text.find(passage.quote)
    return f'<div class="wb-passage">{marked_html(passage.chunk.text, [(at, at + len(passage.quote))])}</div>'


def show_cited_passages(bench: Workbench, record: RunRecord) -> None:
    """A chooser of the run's filing citations and the chosen one in its filing (`?cite=N` selects it)."""
    cited = {c.number: c for c in record.citations if c.filing_id and c.chunk_id}
    if not cited:
        return
    st.subheader("Cited passages in their filings", divider="gray")
    wanted = st.query_params.get("cite", "")
    numbers = list(cited)
    start = numbers.index(int(wanted)) if wanted.isdigit() and int(wanted) in cited else 0
    number = st.selectbox(
        "Citation",
        numbers,
        index=start,
        format_func=lambda n: f"[{n}] {citation_place(cited[n])}",
        key=f"cite-{record.run_id}",
        help="PDF filings show the cited page with the quoted passage highlighted; web pages and text "
        "filings show the passage with the quote marked.",
    )
    if str(number) != wanted:
        st.query_params["cite"] = str(number)
    show_passage(bench, cited[number])


def show_passage(bench: Workbench, citation: Citation) -> None:
    """A quote where it is printed: its PDF page with the quote highlighted, or its passage with the quote
    marked (and the passage as indexed, for a PDF)."""
    passage = _cited(bench, str(bench.settings.data_dir), citation.model_dump_json())
    if passage is None:
        st.info("This filing is no longer in the library, so its passage cannot be shown.")
        return
    page = passage.page
    if page is None:
        if passage.page_problem:
            st.warning(passage.page_problem, icon=":material/warning:")
        st.html(_marked_passage(passage))
        return
    if page.rotated:
        found = "the page is printed rotated, so it is shown without the highlight"
    elif page.coverage >= 0.999:
        found = "the quoted passage is highlighted"
    elif page.coverage > 0:
        found = f"{page.coverage:.0%} of the quoted passage was located on the page and is highlighted"
    else:
        found = "the quoted passage could not be located on the page, so nothing is highlighted"
    st.caption(f"Page {page.page} of {page.pages} of {escape_markdown(passage.filing.label)}: {found}.")
    if page.focus_png is not None:
        st.image(page.focus_png, width="stretch")
        with st.expander("The whole page"):
            st.image(page.png, width="stretch")
    else:
        st.image(page.png, width="stretch")
    with st.expander("The passage as indexed"):
        st.html(_marked_passage(passage))
