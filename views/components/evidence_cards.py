"""Evidence cards: filing passages with the query's terms highlighted; every piece of text escaped."""

from __future__ import annotations

import re
from collections.abc import Iterable

import streamlit as st

from core.models import ALL_SECTION_TITLES, Evidence, KnowledgeCard, StepRecord
from core.service.display import STOPWORDS, escape_html, escape_markdown, safe_url

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9&.%$'-]*[A-Za-z0-9%]|[A-Za-z0-9]")


def highlight_terms(step: StepRecord) -> list[str]:
    """Terms worth marking in a step's evidence: its keywords and the content words of its query."""
    terms = [k.strip() for k in step.keywords if len(k.strip()) >= 2]
    for word in _WORD.findall(f"{step.rewritten_query} {step.sub_question}"):
        if len(word) >= 3 and word.lower() not in STOPWORDS:
            terms.append(word)
    # Longest first so "Fleet Software" wins over "Fleet"; case-insensitive duplicates dropped.
    unique = {t.lower(): t for t in terms}
    return sorted(unique.values(), key=len, reverse=True)


def _pattern(terms: Iterable[str]) -> re.Pattern[str] | None:
    parts = []
    for term in terms:
        body = re.escape(term)
        head = r"\b" if term[:1].isalnum() else ""
        tail = r"\b" if term[-1:].isalnum() else ""
        parts.append(f"{head}{body}{tail}")
    return re.compile("|".join(parts), re.IGNORECASE) if parts else None


def marked_html(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """Document text as HTML with the given (start, end) spans, in order and not overlapping, wrapped in our
    own <mark>."""
    out: list[str] = []
    cursor = 0
    for start, end in spans:
        # Escaping happens on every slice before any markup is added, so no document byte is ever markup.
        out.append(escape_html(text[cursor:start]))
        out.append(f"<mark>{escape_html(text[start:end])}</mark>")
        cursor = end
    out.append(escape_html(text[cursor:]))
    return "".join(out)


def highlight_html(text: str, terms: Iterable[str]) -> str:
    """The passage as HTML: each piece of document text escaped, matched terms wrapped in our own <mark>."""
    pattern = _pattern(terms)
    if pattern is None:
        return escape_html(text)
    return marked_html(text, (match.span() for match in pattern.finditer(text)))


def _chip(text: str, extra: str = "") -> str:
    return f'<span class="wb-chip {extra}">{escape_html(text)}</span>'


def _item(section: str | None, title: str | None) -> str:
    if not section:
        return ""
    name = title or ALL_SECTION_TITLES.get(section, "")
    return f"{section} · {name}" if name and name != section else section


def card_html(evidence: Evidence, terms: Iterable[str] = ()) -> str:
    """One evidence card: id, source, Item, page and score chips, then the highlighted passage."""
    head = [f'<span class="wb-id">{escape_html(evidence.evidence_id)}</span>']
    if evidence.kind == "filing":
        head.append(f'<span class="wb-src">{escape_html(evidence.filing_label or "Filing")}</span>')
        if item := _item(evidence.section, evidence.section_title):
            head.append(_chip(item))
        if evidence.page is not None:
            head.append(_chip(f"page {evidence.page}"))
    elif evidence.kind == "web":
        url = safe_url(evidence.url)
        title = escape_html(evidence.title or evidence.url or "Web result")
        link = (
            f'<a href="{escape_html(url)}" rel="noopener noreferrer nofollow">{title}</a>' if url else title
        )
        head.append(f'<span class="wb-src">{link}</span>')
        if evidence.date:
            head.append(_chip(evidence.date))
    else:
        head.append(f'<span class="wb-src">{escape_html(evidence.title or evidence.kind.title())}</span>')
    rerank = evidence.scores.rerank if evidence.scores else None
    score = rerank if rerank is not None else evidence.score
    if score is not None:
        head.append(_chip(f"{'rerank' if rerank is not None else 'score'} {score:.3f}", "score"))
    passage = highlight_html(evidence.text, terms if evidence.kind == "filing" else ())
    return (
        f'<div class="wb-card {evidence.kind}" id="ev-{escape_html(evidence.evidence_id)}">'
        f'<div class="wb-card-head">{"".join(head)}</div><div class="wb-passage">{passage}</div></div>'
    )


def evidence_cards(step: StepRecord) -> None:
    """Render a step's reranked evidence as cards (or the reason there is none)."""
    if not step.evidence:
        st.caption(escape_markdown(step.evidence_note or "No evidence was kept for this step."))
        return
    terms = highlight_terms(step)
    st.html("".join(card_html(ev, terms) for ev in step.evidence))


def knowledge_cards(cards: list[KnowledgeCard]) -> None:
    """Distilled claims with confidence, supporting evidence ids and any contradiction."""
    if not cards:
        st.caption("No knowledge card was distilled from this step.")
        return
    for card in cards:
        support = ", ".join(card.evidence_ids) or "none"
        line = f"{escape_markdown(card.claim)}  \n:gray[confidence {card.confidence:.2f} · evidence {escape_markdown(support)}]"
        if card.contradiction or card.contradicting_evidence_ids:
            against = escape_markdown(", ".join(card.contradicting_evidence_ids) or "unspecified")
            detail = escape_markdown(card.contradiction or "contradicting evidence found")
            st.warning(
                f"{line}  \n**Contradiction:** {detail} (evidence {against})", icon=":material/warning:"
            )
        else:
            st.markdown(f":material/lightbulb: {line}")
