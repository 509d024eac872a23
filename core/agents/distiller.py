"""Distiller agent: evidence -> knowledge cards (extractive offline; LLM with verbatim-checked ids)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from core.agents.base import AgentDeps
from core.agents.clauses import figure_named, split_clauses
from core.agents.contracts import DistilInput, Distillation
from core.agents.contradictions import find_conflict
from core.agents.structured import LLMOutputError, structured_call
from core.finance.question import AMOUNT_RE, asks_current_status, asks_for_reason, classify_intent
from core.finance.rows import cited_rows
from core.models import Evidence, KnowledgeCard, following_chunk_id
from core.prompts import DISTILLER_HUMAN, DISTILLER_SYSTEM, untrusted
from core.text.contingencies import judges_outcome
from core.text.figures import find_figures
from core.text.modality import states_it_happened
from core.text.periods import YEAR, dates_happened, fiscal_years_stated
from core.text.reasons import reason_score
from core.text.sentences import is_boilerplate, jaccard, list_item_lead_ins, sequel, split_sentences
from core.text.tokens import content_terms

_NUMERIC_RE = re.compile(
    r"how (much|many)|figures?|amount|growth|grew|increase|decrease|percent|results?|revenue|sales|income|"
    r"expense|margin|cash|earnings|profit|cost|spend|\$",
    re.I,
)
_DUPLICATE = 0.55
_MAX_PER_EVIDENCE = 3
_RELATIVE_FLOOR = 0.55
# Words of a question's framing, not of its topic ("R&D results", "figures the filing reports").
_COMMON_TERMS = set(content_terms("expenses revenue income costs total net operating amounts millions"))
_SYNONYMS = {
    stem: tuple(content_terms(alts))
    for word, alts in {
        "grew": "increased growth",
        "grow": "increased growth",
        "growth": "increased grew",
        "rose": "increased",
        "fell": "decreased declined",
        "decline": "decreased",
        "drop": "decreased declined",
        "spending": "expense",
        "r&d": "research development",
        "profit": "income",
        "sales": "revenue",
    }.items()
    for stem in content_terms(word)
}
_GENERIC_TERMS = set(
    content_terms("result results figures report reported filing relate compare change changes risks")
)
# Chunk edges cut sentences: "happened in the past, ...", "2022, NVIDIA and ...", ") and ...".
_FRAGMENT_START = re.compile(r"^(?:[a-z]|\d{1,4},|[,;:)\]])")
#: How a citable claim ends: a sentence's end, or a list item's ("…; and").
_CLAIM_END_RE = re.compile(r"(?:[.!?;”\")]|;\s*(?:and|or))$")


@dataclass
class _Sentence:
    text: str
    evidence_id: str
    rank: int
    terms: set[str]
    has_figure: bool
    score: float = 0.0
    label_terms: set[str] | None = None  # table rows: the row label's terms
    caption_terms: set[str] | None = None  # table rows: the table caption's terms
    lead_in_evidence: str | None = None  # a list's item: the passage before, when its lead-in is there

    @property
    def evidence_ids(self) -> list[str]:
        """The passages a card of this sentence cites: its own, and the one its list's lead-in is in."""
        return [self.evidence_id, *([self.lead_in_evidence] if self.lead_in_evidence else [])]


_LIST_RE = re.compile(r"^(list|name|which|who|what)\b|\b(competitors|customers|suppliers|names?)\b", re.I)


def wants_names(question: str) -> bool:
    """True when a sub-question asks to list or identify things (competitors, customers, risks)."""
    return bool(_LIST_RE.search(question.strip()))


def _proper_names(sentence: str) -> int:
    # Capitalised words after the first one: "Kestrel Warehouse Systems", "Suntek", "Penang".
    return sum(1 for w in sentence.split()[1:] if w[:1].isupper() and w.strip(".,;:()").isalpha())


def wants_numbers(question: str) -> bool:
    """True when a sub-question asks for amounts, results or changes."""
    return bool(_NUMERIC_RE.search(question))


def _candidates(inputs: DistilInput) -> list[_Sentence]:
    out: list[_Sentence] = []
    seen: set[str] = set()
    usable = [e for e in inputs.evidence if e.kind in ("filing", "web")]
    numeric = wants_numbers(inputs.sub_question)
    carried = _lead_ins_carried_over(usable)
    for rank, ev in enumerate(usable):
        sentences = split_sentences(ev.text)
        continued = ev.chunk_id in carried  # the passage opens with the list the passage before began
        for sentence, lead_in in zip(sentences, list_item_lead_ins(ev.text, sentences), strict=True):
            lead_in_evidence = None
            # The list ends at the passage's first whole sentence that is no item of it.
            continued = continued and not (lead_in is None and sentence[:1].isupper())
            if lead_in == "" and continued:
                # The list began in the passage before, which the step read too: its items read with the
                # lead-in there ("Our current competitors include:" … "large cloud services companies …").
                lead_in, lead_in_evidence = carried[ev.chunk_id]
            if lead_in == "":
                # A list's item whose lead-in is in another passage ("litigation involving us or our
                # competitors;" of a list of what may move the share price) says nothing on its own.
                continue
            if lead_in is not None:
                # A list's item reads with the sentence that introduces it ("Our current competitors
                # include: suppliers … such as AMD and Intel;").
                sentence = f"{lead_in} {sentence}"
            words = len(sentence.split())
            # Pipes mean a flattened table, not prose; tables are read row by row below.
            if (
                words < 7
                or words > 110
                or sentence.count("|") >= 2
                or is_boilerplate(sentence)
                or sentence in seen
            ):
                continue
            # Chunks cut sentences at their edges: a fragment is not a claim anyone can cite.
            # A sentence ending in ":" only introduces a list.
            if (lead_in is None and _FRAGMENT_START.match(sentence)) or not _CLAIM_END_RE.search(sentence):
                continue
            seen.add(sentence)
            figures = [
                f for f in find_figures(sentence) if f.is_currency or f.is_percent or abs(f.value) >= 100
            ]
            out.append(
                _Sentence(
                    sentence,
                    ev.evidence_id,
                    rank,
                    set(content_terms(sentence)),
                    bool(figures),
                    lead_in_evidence=lead_in_evidence,
                )
            )
        if numeric:
            # PDF tables come out as lines of "label value value", HTML tables as Markdown rows: each
            # labelled row is a citable fact (the same row in two tables, segment note and MD&A, once).
            for text, key, row_label, row_caption in cited_rows(ev.text):
                if text in seen or key in seen:
                    continue
                seen.update({text, key})
                label, caption = set(content_terms(row_label)), set(content_terms(row_caption))
                out.append(
                    _Sentence(
                        text,
                        ev.evidence_id,
                        rank,
                        label | caption,
                        True,
                        label_terms=label,
                        caption_terms=caption,
                    )
                )
    return out


def _lead_ins_carried_over(evidence: list[Evidence]) -> dict[str, tuple[str, str]]:
    """For each passage whose list began in the passage before it, both read: the id of that passage ->
    (the list's lead-in, the evidence id of the passage it is in). A list began there when its last
    sentence is an item whose lead-in it holds."""
    carried: dict[str, tuple[str, str]] = {}
    for ev in evidence:
        after = following_chunk_id(ev.chunk_id or "")
        sentences = split_sentences(ev.text)
        lead_ins = list_item_lead_ins(ev.text, sentences) if after else []
        if lead_ins and lead_ins[-1]:
            carried[after] = (lead_ins[-1], ev.evidence_id)
    return carried


def _prefix(term: str) -> str:
    return term[:6] if len(term) >= 7 else term


def _score(inputs: DistilInput, sentences: list[_Sentence], deps: AgentDeps) -> None:
    keyword_terms = {t for k in inputs.keywords for t in content_terms(k)}
    excluded = {t for term in inputs.exclude_terms for t in content_terms(term)}
    query_terms = (set(content_terms(inputs.sub_question)) | keyword_terms) - excluded - _GENERIC_TERMS
    # The period scopes the search; as a word to match it would favour any sentence dated that year.
    query_terms = {t for t in query_terms if not re.fullmatch(rf"(fy)?{YEAR}|fiscal|fy", t)}
    # Filings say "increased" where questions say "grew".
    query_terms |= {syn for t in list(query_terms) for syn in _SYNONYMS.get(t, ())}
    n = len(sentences) or 1
    # Long words meet on a six-letter prefix: "competition", "competitors" and "competitive" are one topic.
    keys = {_prefix(t) for t in query_terms}
    key_terms = {_prefix(t) for t in keyword_terms}
    sentence_keys = [{_prefix(t) for t in s.terms} for s in sentences]
    # Rare terms in this evidence pool say more about relevance than terms every sentence shares.
    idf = {k: math.log(1 + n / (1 + sum(k in sk for sk in sentence_keys))) for k in keys}
    weight = {k: idf[k] * (1.2 if k in key_terms else 1.0) for k in keys}
    total = sum(weight.values()) or 1.0
    numeric = wants_numbers(inputs.sub_question)
    explains = _explanation_subject(inputs.sub_question)
    ranks = max(s.rank for s in sentences) + 1
    lexical = [sum(w for k, w in weight.items() if k in sk) / total for sk in sentence_keys]
    names = wants_names(inputs.sub_question)
    prior = [
        0.06 * (1 - s.rank / ranks)
        + (0.18 if numeric and s.has_figure else 0.0)
        + (0.06 if names and _proper_names(s.text) >= 2 else 0.0)
        for s in sentences
    ]
    if explains:
        # A part that asks why a figure moved: the filing's explanation of that figure first.
        passages = {ev.evidence_id: ev.text for ev in inputs.evidence}
        prior = [
            p + _explanation_prior(s, passages.get(s.evidence_id, ""), explains)
            for p, s in zip(prior, sentences, strict=True)
        ]
    # Fiscal years against fiscal years: a bare year or a date may be a calendar year ("the December 2022
    # quarter" is fiscal 2023 at a company whose year ends in June).
    asked_years = fiscal_years_stated(inputs.sub_question)
    if asked_years:
        prior = [p + _period_prior(s, asked_years) for p, s in zip(prior, sentences, strict=True)]
    if asks_current_status(inputs.sub_question):
        # Where a matter stands is its newest development, not how it began.
        prior = [p + r for p, r in zip(prior, _recency_prior(sentences), strict=True)]
    semantic = _semantic(inputs, sentences, [lex + p for lex, p in zip(lexical, prior, strict=True)], deps)
    for i, s in enumerate(sentences):
        sem = semantic.get(i)
        score = (0.55 * sem + 0.45 * lexical[i] if sem is not None else lexical[i]) + prior[i]
        words = len(s.text.split())
        if words < 10 or words > 70:
            score -= 0.08
        relevant = lexical[i] > 0 or (sem is not None and sem >= 0.45)
        if s.label_terms is not None:
            # A table row is on topic when most of its label is what was asked ("Other income
            # (expense), net" is not about "R&D expenses").
            covered = len(s.label_terms & query_terms) / max(len(s.label_terms), 1)
            # A caption vouches for all its rows only through a distinctive word ("Segment ..."), not
            # through "expenses" or "revenue", which every financial table shares.
            relevant = covered > 0.5 or bool(
                s.caption_terms and (s.caption_terms & query_terms) - _COMMON_TERMS
            )
        s.score = score if relevant else -1.0


#: What the filing's own explanation of the figure asked about is worth, above the sentences around it.
_EXPLANATION_PRIOR = 0.3


def _explanation_subject(sub_question: str) -> set[str]:
    """For a part that asks only what moved a figure ("What drove the increase in R&D expense?", or
    reflection's "R&D expense 2023 increased or decreased primarily due to"), the figure's content words; else
    none (a question that also asks for the figure reads its rows as well)."""
    if not asks_for_reason(sub_question):
        return set()
    if len(split_clauses(sub_question)) > 1 or AMOUNT_RE.search(sub_question):
        return set()  # "… by how much and why?": the figure's own sentence is an answer too
    return set(content_terms(figure_named(sub_question) or ""))


def _explanation_prior(sentence: _Sentence, passage: str, subject: set[str]) -> float:
    """A sentence that states the figure's change and gives its reason, naming the figure ("The increase in
    research and development expense … was primarily driven by …"), by how much of the figure it names;
    a sentence explaining another line item names less of it (see `reason_score`)."""
    if sentence.label_terms is not None:
        return 0.0
    named = reason_score(sentence.text, passage, subject)
    return _EXPLANATION_PRIOR * min(1.0, named / len(subject))


#: A sentence dated the fiscal year asked is more likely the answer; one dated only other fiscal years
#: ("During the second quarter of fiscal year 2023, …" for a question on fiscal 2024) is about them.
_PERIOD_MATCH, _PERIOD_OTHER = 0.06, -0.1


def _period_prior(sentence: _Sentence, asked_years: set[int]) -> float:
    """How much the fiscal years a prose sentence names speak for it, given the fiscal years asked. Table
    rows are dated by their columns, not their words."""
    if sentence.label_terms is not None:
        return 0.0
    stated = fiscal_years_stated(sentence.text)
    if not stated:
        return 0.0
    return _PERIOD_MATCH if stated & asked_years else _PERIOD_OTHER


#: What the newest dated development is worth, for a question on where a matter stands; a sentence dated
#: `_RECENCY_SPAN_DAYS` or more before the newest date in the evidence gets nothing.
_RECENCY_PRIOR, _RECENCY_SPAN_DAYS = 0.15, 730


def _recency_prior(sentences: list[_Sentence]) -> list[float]:
    """For each prose sentence, how recent its latest full date is against the newest in the evidence ("On
    February 8, 2022, the parties … reached an agreement in principle" over "Beginning in April 2019, …")."""
    latest = [max(dates_happened(s.text), default=None) if s.label_terms is None else None for s in sentences]
    newest = max((d for d in latest if d is not None), default=None)
    if newest is None:
        return [0.0] * len(sentences)
    return [
        0.0 if d is None else _RECENCY_PRIOR * max(0.0, 1 - (newest - d).days / _RECENCY_SPAN_DAYS)
        for d in latest
    ]


# Sentence embeddings cost ~0.05-0.1 s each on two busy cores: only the lexical front-runners get one
# (8 scored as well as 16 on the sample question set, at half the cost).
_EMBED_LIMIT = 8


def _semantic(
    inputs: DistilInput, sentences: list[_Sentence], prescore: list[float], deps: AgentDeps
) -> dict[int, float]:
    """Cosine similarity to the sub-question for the most promising sentences (embedding all is slow)."""
    if deps.embedder is None or not sentences:
        return {}
    chosen = sorted(range(len(sentences)), key=lambda i: -prescore[i])[:_EMBED_LIMIT]
    query = deps.embedder.embed_query(" ".join([inputs.sub_question, *inputs.keywords]))
    matrix = deps.embedder.embed_documents([sentences[i].text for i in chosen])
    sims = matrix @ query
    return {i: max(0.0, float(v)) for i, v in zip(chosen, sims, strict=True)}


def _same_claim(a: _Sentence, b: _Sentence) -> bool:
    """The same statement in other words; two table rows only when they print the same ("Three Months Ended
    March 31 $45.13 …" and "… December 31 $51.79 …" share their words, not their figures)."""
    if a.label_terms is not None and b.label_terms is not None:
        return a.text == b.text
    return jaccard(a.terms, b.terms) >= _DUPLICATE


def offline_distil(inputs: DistilInput, deps: AgentDeps) -> Distillation:
    """Cards whose claims are verbatim evidence sentences, scored against the sub-question, deduplicated."""
    sentences = _candidates(inputs)
    if not sentences:
        return Distillation(cards=[])
    _score(inputs, sentences, deps)
    ranked = sorted((s for s in sentences if s.score > 0), key=lambda s: -s.score)
    known = [set(content_terms(c)) for c in inputs.known_claims]
    chosen: list[tuple[_Sentence, list[str]]] = []
    per_evidence: dict[str, int] = {}
    for s in ranked:
        if len(chosen) >= inputs.max_cards:
            break
        if _stated_before(s, known):
            continue
        dup = next((c for c in chosen if _same_claim(s, c[0])), None)
        if dup is not None:
            # The same statement in another passage is corroboration, not a new card.
            if s.evidence_id not in dup[1]:
                dup[1].append(s.evidence_id)
            continue
        if per_evidence.get(s.evidence_id, 0) >= _MAX_PER_EVIDENCE:
            continue
        per_evidence[s.evidence_id] = per_evidence.get(s.evidence_id, 0) + 1
        chosen.append((s, s.evidence_ids))
    top = chosen[0][0].score if chosen else 1.0
    # Weak runners-up dilute an answer: keep cards within reach of the best one.
    chosen = [c for c in chosen if c[0].score >= _RELATIVE_FLOOR * top]
    newest = _newest_development(inputs, sentences, chosen, known)
    # … and the filer's judgement of how it may end ("… has accrued amounts … when a loss is probable").
    status = asks_current_status(inputs.sub_question)
    judgement = _said_in_quoted_passages(sentences, chosen, known, judges_outcome) if status else None
    # A risk that has come to pass ("We have also written-down our inventory …") is what it has cost already.
    risk = classify_intent(inputs.sub_question) == "risk"
    happened = _said_in_quoted_passages(sentences, chosen, known, states_it_happened) if risk else None
    vouched = min((c.score for c, _ in chosen), default=0.0)
    # Where a matter stands, and what a risk has cost, may not name the matter ("… the court denied the
    # motion"): a passage that answers the question vouches for the sentences that say them.
    standing = [s for s in (newest, judgement, happened) if s is not None]
    if standing:
        kept = [c for c in chosen if c[0] not in standing][: inputs.max_cards - len(standing)]
        chosen = [*kept, *((s, [s.evidence_id]) for s in standing)]
    pool = [(s.text, s.evidence_id) for s in sentences]
    # A point in words reads with the sentence that adds to it ("… impacted demand for our products. Reduced
    # demand due to export controls could also lead to excess inventory …"); that one is no card of its own.
    passages = {e.evidence_id: e.text for e in inputs.evidence}
    narrative = not wants_numbers(inputs.sub_question)
    sequels = {
        id(s): sequel(s.text, passages.get(s.evidence_id, "")) if narrative and s.label_terms is None else ""
        for s, _ in chosen
    }
    said_after = set(sequels.values())
    # (of a run of three, the middle one goes with the first and the last stays a card of its own)
    carried_on = {sequels[id(s)] for s, _ in chosen if s.text not in said_after}
    cards = []
    for s, ids in chosen:
        if s.text in carried_on and s not in standing:
            continue
        score = max(s.score, vouched) if s in standing else s.score
        confidence = 0.3 + 0.5 * (score / top if top > 0 else 0) + (0.1 if len(ids) > 1 else 0.0)
        conflict = find_conflict(s.text, s.evidence_id, pool)
        more = sequels[id(s)]
        cards.append(
            KnowledgeCard(
                claim=f"{s.text} {more}" if more else s.text,
                evidence_ids=ids,
                confidence=round(min(0.95, max(0.05, confidence)), 2),
                contradicting_evidence_ids=[conflict.evidence_id] if conflict else [],
                contradiction=conflict.description if conflict else None,
            )
        )
    return Distillation(cards=cards)


def _newest_development(
    inputs: DistilInput,
    sentences: list[_Sentence],
    chosen: list[tuple[_Sentence, list[str]]],
    known: list[set[str]],
) -> _Sentence | None:
    """For a question on where a matter stands, the prose sentence with the latest full date in the passages
    the chosen cards quote, when no card states it yet; else None."""
    if not chosen or not asks_current_status(inputs.sub_question):
        return None
    dated = [
        (max(stated), s)
        for s in _prose_of_quoted_passages(sentences, chosen)
        if (stated := dates_happened(s.text))
    ]
    if not dated:
        return None
    latest, sentence = max(dated, key=lambda d: d[0])
    if any(day >= latest for s, _ in chosen for day in dates_happened(s.text)):
        return None  # a card states a development as new already (this one, maybe)
    return None if _stated_before(sentence, known) else sentence


def _said_in_quoted_passages(
    sentences: list[_Sentence],
    chosen: list[tuple[_Sentence, list[str]]],
    known: list[set[str]],
    says: Callable[[str], bool],
) -> _Sentence | None:
    """The best-scored prose sentence, of the passages the chosen cards quote, that `says` what is wanted,
    when no card says it yet and no earlier card stated it; else None."""
    if not chosen or any(says(s.text) for s, _ in chosen):
        return None
    found = [
        s
        for s in _prose_of_quoted_passages(sentences, chosen)
        if says(s.text) and not _stated_before(s, known)
    ]
    return max(found, key=lambda s: s.score, default=None)


def _prose_of_quoted_passages(
    sentences: list[_Sentence], chosen: list[tuple[_Sentence, list[str]]]
) -> list[_Sentence]:
    """The prose sentences (no table rows) of the passages the chosen cards quote, in reading order."""
    passages = {ids[0] for _, ids in chosen}
    return [s for s in sentences if s.label_terms is None and s.evidence_id in passages]


def _stated_before(sentence: _Sentence, known: list[set[str]]) -> bool:
    """Whether a card of an earlier step states `sentence` already, in these or other words."""
    return any(jaccard(sentence.terms, k) >= _DUPLICATE for k in known)


def llm_distil(inputs: DistilInput, deps: AgentDeps) -> Distillation:
    """LLM cards; evidence ids the model invented are dropped, and cards left without support too."""
    usable = [e for e in inputs.evidence if e.kind in ("filing", "web")]
    if not usable:
        return Distillation(cards=[])
    evidence = "\n\n".join(untrusted(e.text[:2500], label=e.evidence_id) for e in usable)
    out = structured_call(
        deps,
        DISTILLER_SYSTEM,
        DISTILLER_HUMAN,
        {
            "max_cards": inputs.max_cards,
            "sub_question": inputs.sub_question,
            "keywords": ", ".join(inputs.keywords) or "(none)",
            "evidence": evidence,
        },
        Distillation,
    )
    known = {e.evidence_id for e in usable}
    cards = []
    for card in out.cards[: inputs.max_cards]:
        ids = [i for i in card.evidence_ids if i in known]
        if not ids or not card.claim.strip():
            continue
        contra = [i for i in card.contradicting_evidence_ids if i in known and i not in ids]
        cards.append(card.model_copy(update={"evidence_ids": ids, "contradicting_evidence_ids": contra}))
    if not cards:
        # A step never ends knowing less than its search found: the extractive distiller, with its own
        # relevance bar, reads the passages instead (recorded as a fallback).
        raise LLMOutputError(f"the model kept no finding from {len(usable)} passage(s)")
    return Distillation(cards=cards)
