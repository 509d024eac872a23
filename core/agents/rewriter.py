"""Query rewriter agent: makes a sub-question self-contained and adds key terms from earlier steps."""

from __future__ import annotations

import re
from collections import Counter

from core.agents.base import AgentDeps
from core.agents.contracts import RewriteInput, RewrittenQuery
from core.agents.structured import LLMOutputError, structured_call
from core.finance.vocabulary import search_terms_for
from core.prompts import REWRITER_HUMAN, REWRITER_SYSTEM
from core.text.tokens import FRAMING_WORDS, STOPWORDS, tokenize

# Words that point back at earlier findings ("relate to them", "those risks").
_REFERENCE_RE = re.compile(
    r"(?<!-)\b(them|they|those|these|that|this|such|relate[sd]?|affect|impact|change)\b", re.I
)
# The synthesis part of a sub-question ("relate to them") says what to do with the evidence, not what
# to find: in a search query it is only noise. A word's hyphenated half is no synthesis ("IPO-related").
_SYNTHESIS_RE = re.compile(
    r"^what figures does the filing report for\b|\b(how (do|does|did|might|could|would) )|(?<!-)\b(relate[sd]?|compare[sd]?|affect(s|ed)?|impact(s|ed)?)"
    r"( to| with| on)?( them| those| these| it| this| that)?( risks?)?\b",
    re.I,
)
_BORING = (
    STOPWORDS
    | FRAMING_WORDS
    | {
        "may",
        "could",
        "assess",
        "evaluate",
        "describe",
        "explain",
        "find",
        "change",
        "changes",
        "including",
        "include",
        "includes",
        "other",
        "certain",
        "us",
        "its",
        "new",
        "well",
        "products",
        "company",
        "business",
        "result",
        "results",
        "also",
        "significant",
        "million",
        "billion",
    }
)


def _words(text: str) -> list[str]:
    """Every word of `text` as search tokens without plural folding (stop-words kept)."""
    return tokenize(text, keep_stopwords=True, fold_plurals=False)


def salient_terms(claims: list[str], *, exclude: set[str], limit: int = 3) -> list[str]:
    """The content words that recur most across earlier claims, skipping words already in the query."""
    counts: Counter[str] = Counter()
    for claim in claims:
        # Each claim's words once, in their order: a tie between words goes to the one found first, the same
        # in every process (a set's order changes with the interpreter's string hashing).
        words = (t for t in _words(claim) if len(t) > 3 and t not in _BORING and not t.isdigit())
        counts.update(list(dict.fromkeys(words)))
    ranked = [t for t, n in counts.most_common() if t not in exclude and (n > 1 or len(claims) == 1)]
    return ranked[:limit]


def offline_rewrite(inputs: RewriteInput, deps: AgentDeps) -> RewrittenQuery:
    """Sub-question minus its synthesis wording (entities, years and metric names kept), plus its keywords
    and the line-item wordings filings use for the metrics it names, plus earlier findings' key terms when
    it refers back to them and cannot stand alone."""
    query = inputs.sub_question.strip().rstrip("?.")
    refers_back = bool(_REFERENCE_RE.search(query))
    query = re.sub(r"\s+", " ", _SYNTHESIS_RE.sub(" ", query)).strip() or inputs.sub_question
    present = set(_words(query))
    added: list[str] = []
    for keyword in [*inputs.keywords, *search_terms_for(query)]:
        if not set(_words(keyword)) <= present:
            added.append(keyword)
            present |= set(_words(keyword))
    own = {t for t in present if t not in _BORING and len(t) > 2}
    # Earlier findings complete a query that cannot stand alone ("assess how they change those risks");
    # added to a self-sufficient query ("R&D expenses") they only pull the search off target.
    if refers_back and len(own) < 2 and (inputs.earlier_keywords or inputs.earlier_claims):
        for keyword in inputs.earlier_keywords[:1]:
            if not set(_words(keyword)) <= present:
                added.append(keyword)
                present |= set(_words(keyword))
        for term in salient_terms(inputs.earlier_claims, exclude=present, limit=2):
            added.append(term)
            present.add(term)
    elif _repeats_the_question(inputs) and len(inputs.earlier_claims) > 1:
        # A step that asks the question again would find the passages the first search found: the words
        # its findings share, and the question does not, lead further into the filing (relevance feedback).
        # One finding shares nothing: its words are as likely off the question as on it.
        for term in salient_terms(inputs.earlier_claims, exclude=present, limit=3):
            added.append(term)
            present.add(term)
    rewritten = " ".join([query, *added]).strip()
    return RewrittenQuery(query=rewritten, added_terms=added)


def _repeats_the_question(inputs: RewriteInput) -> bool:
    """Whether the sub-question is the whole question as asked again (a part of it asks less: its own search
    is what it needs), its fiscal year and the company's name for "its" aside."""
    asked = {t for t in _words(inputs.question) if t not in _BORING and not t.isdigit()}
    own = {t for t in _words(inputs.sub_question) if t not in _BORING and not t.isdigit()} - {"fiscal"}
    own -= set(_words(inputs.company or "")) - asked  # "Uber Technologies's drivers" for "its drivers"
    return bool(own) and own <= asked and len(own) >= 0.8 * len(asked)


def llm_rewrite(inputs: RewriteInput, deps: AgentDeps) -> RewrittenQuery:
    """LLM rewrite; raises when the model returns an empty query."""
    earlier = "\n".join(f"- {c}" for c in inputs.earlier_claims[:8]) or "(none yet)"
    out = structured_call(
        deps,
        REWRITER_SYSTEM,
        REWRITER_HUMAN,
        {
            "question": inputs.question,
            "company": inputs.company or "(unknown)",
            "sub_question": inputs.sub_question,
            "keywords": ", ".join(inputs.keywords) or "(none)",
            "section": inputs.document_section or "(any)",
            "earlier": earlier,
        },
        RewrittenQuery,
    )
    if not out.query.strip():
        raise LLMOutputError("the model returned an empty query")
    return RewrittenQuery(query=out.query.strip()[:500], added_terms=out.added_terms[:5])
