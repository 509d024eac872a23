"""Writer agent: the final report draft, grouped by sub-question, every claim tied to evidence ids."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date

from core.agents.base import AgentDeps
from core.agents.clauses import asks_beyond_figures
from core.agents.contracts import (
    DraftClaim,
    DraftTable,
    ReportDraft,
    ReportSection,
    StepDigest,
    WriterInput,
)
from core.agents.plan_tools import FIGURE_REASON
from core.agents.structured import LLMOutputError, structured_call
from core.finance.arithmetic import CalculationError, figure_value, growth_rate
from core.finance.compute import states_amount_change, verb_for, yes_or_no
from core.finance.question import (
    FEWEST_RE,
    RANKING_RE,
    asks_current_status,
    asks_why,
    asks_yes_no,
    classify_intent,
)
from core.finance.requests import weighs_two_figures
from core.finance.rows import cited_rows, prose_after_table
from core.finance.vocabulary import LineItem, line_item_for, line_items_in
from core.models import EVIDENCE_ID_RE, Evidence, KnowledgeCard, following_chunk_id
from core.prompts import WRITER_HUMAN, WRITER_SYSTEM, untrusted
from core.retrieval.routing import company_forms
from core.text.contingencies import judges_outcome
from core.text.figures import find_figures, unsupported_figures
from core.text.modality import states_it_happened
from core.text.periods import dates_happened, dates_stated, without_time_expressions
from core.text.reasons import (
    explanation_with_continuation,
    offset_after_the_break,
    reason_score,
    what_changed,
)
from core.text.sentences import sentence_after, sentence_before, split_sentences
from core.text.tokens import content_terms

MAX_CLAIMS_PER_STEP = 4


def step_heading(step: StepDigest) -> str:
    """A step's heading in the answer: its number and sub-question ("3. Read on: …" after a read-on)."""
    return f"{step.index + 1}. {'Read on: ' if step.reads_on else ''}{step.sub_question}"


def describe_search(step: StepDigest, filings: str) -> str:
    """What a step searched, for answers that must say so instead of inventing."""
    if step.tool == "search_web":
        note = step.evidence_note or "no web result supported an answer"
        return f"No web evidence: {note}. Query: “{step.query}”."
    if step.tool == "calculator":
        return f"No calculation was possible: {step.evidence_note or 'the figures were not found'}."
    if step.reads_on:
        return f"Nothing new to read on: {step.evidence_note or 'no passage followed the best hits'}."
    where = step.document_section or "all Items"
    strategy = f"{step.strategy} retrieval" if step.strategy else "retrieval"
    scope = "" if step.route_note else f" of {filings}"
    searched = (
        f"No supporting passage found. Searched: query “{step.query}” in {where}{scope}, "
        f"{strategy}, {step.candidates} candidate passage(s)."
    )
    return f"{searched} {step.route_note}" if step.route_note else searched


def _filings_label(inputs: WriterInput) -> str:
    """The filings the answer draws on: those of the passages found, else every selected one."""
    found = {ev.filing_id for ev in inputs.pool if ev.kind == "filing" and ev.filing_id}
    used = [f for f in inputs.filings if f.filing_id in found] or inputs.filings
    return ", ".join(f.label for f in used) or "the selected filings"


#: Narrative passages stated in the answer before the evidence by step.
ANSWER_SENTENCES = 2


def _figures(inputs: WriterInput) -> list[tuple[DraftClaim, str]]:
    """(the figure with its working, the figure as a sentence) for each figure the calculator steps computed,
    latest computation of each first; parts it could not compute are stated as not found."""
    by_name: dict[str, tuple[DraftClaim, str]] = {}
    filing_of = {
        ev.evidence_id: ev.filing_id or ""
        for ev in [*inputs.pool, *(e for st in inputs.steps for e in st.evidence)]
    }
    for step in inputs.steps:
        if step.tool != "calculator":
            continue
        for card in step.cards:
            if card.evidence_ids:  # a later computation (a re-run after follow-ups) replaces an earlier one
                # The same figure from another report is another period's (a company followed over quarters).
                source = next((filing_of[e] for e in card.evidence_ids if filing_of.get(e)), "")
                by_name[f"{_figure_label(card.claim)}|{source}"] = (
                    DraftClaim(text=card.claim, evidence_ids=card.evidence_ids),
                    card.statement or "",
                )
        for part in (step.evidence_note or "").split("; "):
            if "not computed" in part:
                missing = _NOT_FOUND_RE.search(part)
                sentence = f"The filings searched do not state {missing.group(1)}." if missing else ""
                by_name.setdefault(
                    _figure_label(part), (DraftClaim(text=f"{part.rstrip('.')}.", evidence_ids=[]), sentence)
                )
    return list(by_name.values())


_NOT_FOUND_RE = re.compile(r"not computed\s*[—-]\s*(.+?) not found")


def figure_answers(inputs: WriterInput) -> list[DraftClaim]:
    """The figures the calculator steps computed (with their workings), and the parts not found."""
    return [claim for claim, _ in _figures(inputs)]


#: Longest paragraph, in sentences: the figures and the reason, not the evidence.
PARAGRAPH_SENTENCES = 5


def answer_paragraph(
    inputs: WriterInput,
    figures: list[tuple[DraftClaim, str]],
    verdict: str | None,
    ranking: DraftClaim | None,
    narrative: list[DraftClaim],
) -> str:
    """The answer as an analyst writes it in a note: a verdict or ranking first, each figure in a sentence
    (its period, its unit) with the ids of the rows it is read from, then the filing's own words, quoted —
    its explanation for a why, its sentence for a part no figure answers (or when no figure was found).
    Evidence ids in brackets; the assembler numbers them."""

    def cited(text: str, ids: list[str]) -> str:
        marks = f" [{', '.join(dict.fromkeys(ids))}]" if ids else ""
        return f"{text.rstrip('.')}{marks}."

    sentences: list[str] = []
    if ranking is not None:
        sentences.append(cited(ranking.text, ranking.evidence_ids))
    for n, (claim, sentence) in enumerate(_over_periods(figures)):
        if not sentence:
            continue
        text = f"{verdict}. {sentence}" if verdict and n == 0 else sentence
        sentences.append(cited(text, claim.evidence_ids))
    stated_figures = any(claim.evidence_ids for claim, _ in figures)
    sentences = sentences[: PARAGRAPH_SENTENCES - 1]  # room for the filing's words after the figures
    why = asks_why(inputs.question)
    reasons = _reasons(inputs, [claim for claim, _ in figures if claim.evidence_ids]) if why else []
    if reasons:
        # An explanation the filing carries over two sentences is quoted as one: "“…, led by CSPs …” and “Strong
        # demand for … was primarily driven by …”" (each quote is the filing's words, the citation covers both).
        # Each figure whose change was asked gets its own explanation, cited where it is quoted.
        explained = [_quoted(r.text) + f" [{', '.join(dict.fromkeys(r.evidence_ids))}]" for r in reasons]
        sentences.append(f"The filing explains: {'; and '.join(explained)}.")
    elif why and stated_figures:
        companies = {form for f in inputs.filings for form in company_forms(f.company)}
        what = next((_figure_name(claim.text, companies) for claim, _ in figures if claim.evidence_ids), "")
        # Plainly, and of which figure: the filings may give no reason at all.
        sentences.append(f"No passage the research read explains the change{f' in {what}' if what else ''}.")
    elif narrative and (not stated_figures or asks_beyond_figures(inputs.question)):
        # A part that asks for words, not a figure ("… and what risks does it see?"), or a why asked after no
        # figure ("… and what impact could they have?"): the filing's own words on the matter.
        sentences.append(cited(f"The filing states: {_quoted(narrative[0].text)}", narrative[0].evidence_ids))
        says = _second_quote(inputs.question)
        if says is not None and len(narrative) > 1 and says(narrative[1].text):
            # Where a matter stands, then how the filer judges it may end; a risk, then what it has cost.
            sentences.append(cited(f"It adds: {_quoted(narrative[1].text)}", narrative[1].evidence_ids))
    return " ".join(sentences)


#: A figure of one period as the calculator heads it: "Apple revenue (Q3 FY2022): $82,959 million — …".
_ONE_PERIOD_RE = re.compile(r"^(?P<label>[^:()]+?) \((?P<period>[^():;]+)\): (?P<value>[^—;]+?)(?:\s+—|$)")


Series = dict[str, list[tuple[DraftClaim, re.Match[str]]]]


def _by_figure(figures: list[tuple[DraftClaim, str]]) -> Series:
    """The cited one-period figures grouped by what they are (their label, case aside), in the order read."""
    groups: Series = {}
    for claim, _ in figures:
        m = _ONE_PERIOD_RE.match(claim.text)
        if m is not None and claim.evidence_ids:
            groups.setdefault(m.group("label").strip().lower(), []).append((claim, m))
    return groups


def _over_periods(figures: list[tuple[DraftClaim, str]]) -> list[tuple[DraftClaim, str]]:
    """Figures of one line item for several periods (one company's reports, each giving its own period's
    figure) stated as one sentence, in the order the research read the periods: "Apple revenue was $82,959
    million in Q3 FY2022, $117,154 million in Q1 FY2023 and …" with every row cited."""
    groups = _by_figure(figures)
    out: list[tuple[DraftClaim, str]] = []
    stated: set[str] = set()
    for claim, sentence in figures:
        m = _ONE_PERIOD_RE.match(claim.text)
        key = m.group("label").strip().lower() if m is not None else ""
        group = groups.get(key, [])
        if len(group) < 2 or len({g.group("period") for _, g in group}) < len(group):
            out.append((claim, sentence))
            continue
        if key in stated:
            continue
        stated.add(key)
        values = [f"{g.group('value').strip()} in {g.group('period')}" for _, g in group]
        listed = ", ".join(values[:-1]) + f" and {values[-1]}"
        ids = [e for c, _ in group for e in c.evidence_ids]
        label = group[0][1].group("label").strip()
        out.append(
            (
                DraftClaim(text=claim.text, evidence_ids=ids),
                f"{label} {verb_for(label)} {listed}{_change(group)}.",
            )
        )
    return out


def period_tables(figures: list[tuple[DraftClaim, str]]) -> list[DraftTable]:
    """The figures stated for several periods (one company's reports over quarters) as one table: a row per
    period in the order read, a column per figure, each cell citing its row; none when no figure has more
    than one period."""
    groups = _by_figure(figures)
    # figure -> period -> cited value (a later figure of the same period replaces an earlier one)
    columns = {
        key: {m.group("period"): DraftClaim(text=m.group("value").strip(), evidence_ids=c.evidence_ids)
              for c, m in group}
        for key, group in groups.items()
    }  # fmt: skip
    series = [key for key, by_period in columns.items() if len(by_period) >= 2]
    if not series:
        return []
    read = [m for claim, _ in figures if claim.evidence_ids and (m := _ONE_PERIOD_RE.match(claim.text))]
    order = list(
        dict.fromkeys(m.group("period") for m in read if any(m.group("period") in columns[k] for k in series))
    )
    rows = [
        [DraftClaim(text=period), *(columns[k].get(period, DraftClaim(text="—")) for k in series)]
        for period in order
    ]
    names = [groups[k][0][1].group("label").strip() for k in series]
    return [DraftTable(columns=["Period", *names], rows=rows)]


def _change(group: list[tuple[DraftClaim, re.Match[str]]]) -> str:
    """'; from Q3 FY2022 to Q3 FY2023 it fell 1.4%' (a rate: '… it fell 0.1 percentage points'): the move
    from the first period stated to the last."""
    first, last = group[0][1], group[-1][1]
    pronoun = "they" if verb_for(first.group("label").strip()) == "were" else "it"
    span = f"; from {first.group('period')} to {last.group('period')} {pronoun}"
    try:
        before, after = figure_value(first.group("value")), figure_value(last.group("value"))
        if "%" in first.group("value"):  # a rate moves in percentage points
            points = after - before
            moved = "rose" if points > 0 else "fell"
            return f"{span} {moved} {abs(points):.1f} percentage points" if round(points, 1) else ""
        rate = growth_rate(before, after)
    except CalculationError:
        return ""
    if round(rate, 1) == 0:
        return ""  # no move is not a change
    return f"{span} {'rose' if rate > 0 else 'fell'} {abs(rate):.1f}%"


#: Explanations the paragraph quotes at most: one per figure whose change was asked.
MAX_REASONS = 3


def _reasons(inputs: WriterInput, figures: list[DraftClaim]) -> list[DraftClaim]:
    """The filing's explanation of the first figure's change (see `_reason`), then of each other figure whose
    change was computed, when a sentence names most of that figure ("Membership fee revenue increased 9% …,
    driven by …" after net sales' own), each once. A share is no change to explain."""
    first = _reason(inputs, figures)
    reasons = [first] if first is not None else []
    for claim in figures[1:]:
        if len(reasons) >= MAX_REASONS:
            break
        if not states_amount_change(claim.text):
            continue
        found = _reason(inputs, [claim], names_most=True)
        if found is not None and all(found.text != r.text for r in reasons):
            reasons.append(found)
    return reasons


def _reason(inputs: WriterInput, figures: list[DraftClaim], *, names_most: bool = False) -> DraftClaim | None:
    """The filing's own explanation of the change asked about: among the passages the research read, a
    sentence that gives a reason ("driven by", "due to") and names, before the reason, the figure it explains
    (the R&D expense's sentence, not the revenue's), with the most of the figure's words; with the sentence
    after it when that one carries the explanation on."""
    # The figure asked first is what changed (a share computed from it names its whole, "revenue", too).
    subject = {t for claim in figures[:1] for t in content_terms(_figure_label(claim.text))}
    # Without a figure, what the question asks about, its period aside: "the second quarter" would make a
    # sentence about another figure in that quarter look like the explanation.
    subject = subject or set(content_terms(without_time_expressions(inputs.question)))
    # The line item the figure is ("Revenues" is revenue): a sentence that names only other line items
    # ("Cost of revenue increased …", "The increase was due to …" after it) explains them, not this one.
    item = line_item_for(_figure_label(figures[0].text)) if figures else None
    best: tuple[float, DraftClaim, Evidence] | None = None
    for step in inputs.steps:
        if step.tool != "search_10k":
            continue
        sources = {e.evidence_id: e for e in step.evidence}
        for card in step.cards:
            source = sources.get(card.evidence_ids[0]) if card.evidence_ids else None
            if source is None:
                continue
            score = reason_score(card.claim, source.text, subject)
            if names_most and score * 2 < len(subject):
                continue  # for a figure after the first: its own sentence, not one that shares a word
            if score and item is not None and _explains_another_item(card.claim, source.text, item):
                continue
            if score and (best is None or score > best[0]):
                explanation = explanation_with_continuation(prose_after_table(card.claim), source.text)
                best = (score, DraftClaim(text=explanation, evidence_ids=card.evidence_ids[:2]), source)
    if best is None:
        return None
    _, explanation, source = best
    # An explanation cut by a page break goes on in the next passage: when the research read that one too,
    # what offset the change is quoted from it ("These increases were offset by …").
    after = following_chunk_id(source.chunk_id or "")
    following = next((e for s in inputs.steps for e in s.evidence if after and e.chunk_id == after), None)
    if following is not None and following.evidence_id not in explanation.evidence_ids:
        offset = offset_after_the_break(explanation.text, source.text, following.text)
        if offset:
            explanation = DraftClaim(
                text=f"{explanation.text} {offset}", evidence_ids=[source.evidence_id, following.evidence_id]
            )
    return explanation


def _explains_another_item(sentence: str, passage: str, item: LineItem) -> bool:
    """Whether a reason sentence is about line items other than `item`: what it says changed names some, and
    not `item` ("cost of revenue", where revenue is asked, names cost of revenue only)."""
    named = line_items_in(what_changed(sentence, passage))
    return bool(named) and item not in named


def ranking_answer(question: str, figures: list[DraftClaim]) -> DraftClaim | None:
    """For "which of them brought in the most?", the figures computed, in the order asked (largest first, or
    smallest first when the question's first superlative is "least"), in one sentence citing each. None
    unless every figure was computed and states one amount."""
    asked = RANKING_RE.search(question)
    if asked is None or len(figures) < 2:
        return None
    ranked: list[tuple[float, str, str]] = []
    for claim in figures:
        label, _, stated = claim.text.split(" — ", 1)[0].partition(": ")
        amounts = find_figures(stated)
        if not claim.evidence_ids or not amounts or amounts[0].is_percent or ";" in stated:
            return None
        ranked.append((amounts[0].value, label.strip("* "), amounts[0].raw))
    fewest_first = bool(FEWEST_RE.fullmatch(asked.group(2)))
    ranked.sort(key=lambda r: r[0], reverse=not fewest_first)
    (_, first, amount), rest = ranked[0], ranked[1:]
    then = "; ".join(f"{label[:1].lower()}{label[1:]} {raw}" for _, label, raw in rest)
    word = "smallest" if fewest_first else "largest"
    evidence = list(dict.fromkeys(e for c in figures for e in c.evidence_ids[:1]))
    return DraftClaim(text=f"{first} is the {word}: {amount} (then {then}).", evidence_ids=evidence)


def _figure_name(headline: str, companies: set[str]) -> str:
    """A computed figure's name as a sentence names it: "research and development expense", "adjusted
    EBITDA", "Lyft adjusted EBITDA" (an acronym or a company's name keeps its capitals)."""
    name = _figure_words(headline)
    first = name.split(" ", 1)[0]
    return (
        name if first.isupper() or any(name.startswith(c) for c in companies) else name[:1].lower() + name[1:]
    )


def _figure_words(headline: str) -> str:
    """A computed figure's headline up to its period or values, as written."""
    return re.split(r":| \(|, \d", headline, maxsplit=1)[0].strip()


def _figure_label(headline: str) -> str:
    """What a computed figure is ("Revenue", "NVIDIA research and development expense"), its values aside."""
    return _figure_words(headline).lower()


def _narrative_answer(inputs: WriterInput, *, figures_stated: bool) -> list[DraftClaim]:
    """The best passage of each search that reads text (not the statement lookups behind figures): the
    anchor's (the question as asked) first when no figure answers the question, else only when it asks why
    or for a yes or no."""
    searches = [s for s in inputs.steps if _reads_words(s) and s.origin != "reflection"]
    anchors = [s for s in searches if s.origin == "anchor"]
    others = [s for s in searches if s.origin != "anchor"]
    if not figures_stated:
        ordered, limit = anchors + others, ANSWER_SENTENCES
    else:
        # A why needs the passages that explain; a yes or no, the sentence that says it (the figure backs it);
        # a part in words whose own search found nothing, what the question as asked found (a question that
        # asks for figures only has no such part, whatever its plan searched).
        explained = asks_why(inputs.question) or asks_yes_no(inputs.question)
        unanswered = asks_beyond_figures(inputs.question) and any(
            not any(_quotable(c) for c in s.cards) for s in others
        )
        ordered = others + (anchors if explained or unanswered else [])
        limit = ANSWER_SENTENCES
    claims: list[DraftClaim] = []
    seen: set[str] = set()
    companies = {f.filing_id: f.company for f in inputs.filings} if len(inputs.filings) > 1 else {}
    for step in ordered:
        for card in step.cards[:1]:
            if card.claim in seen or not _quotable(card):
                continue
            seen.add(card.claim)
            # With several filings, a passage's "we" and "the Company" need a name.
            source = next((e for e in step.evidence if e.evidence_id == card.evidence_ids[0]), None)
            if figures_stated and source is not None and _is_row(card.claim, source.text):
                continue  # the figures answer in figures: a row of a table is their evidence, not the filing's words
            owner = companies.get(source.filing_id or "") if source else None
            # The answer quotes the sentence, not a PDF table that ran into it (the step lists the claim whole).
            claim = prose_after_table(card.claim)
            text = f"{owner}: {claim}" if owner else claim
            claims.append(DraftClaim(text=text, evidence_ids=card.evidence_ids[:2]))
        if len(claims) >= limit:
            break
    if asks_current_status(inputs.question):
        newest = _newest_development(inputs.steps)
        if newest is not None:
            # Where a matter stands is its newest development: it leads, whichever search found it.
            claims = [newest, *(c for c in claims if c.text not in newest.text)]
    says = _second_quote(inputs.question)
    if claims and says is not None:
        # Then the filer's judgement of how the matter may end, or what the risk has cost already.
        second = _card_saying(inputs.steps, says, claims[0])
        if second is not None:
            claims = [claims[0], second, *(c for c in claims[1:] if c.text not in second.text)]
    return claims[:limit]


def _reads_words(step: StepDigest) -> bool:
    """A search of the filings for text, not a statement lookup behind a figure."""
    return step.tool == "search_10k" and not (step.reason or "").startswith(FIGURE_REASON)


def _is_row(claim: str, passage: str) -> bool:
    """Whether a card's claim is one of its passage's table rows (as the distiller cites them)."""
    return any(claim == row for row, *_ in cited_rows(passage))


def _quoted(text: str) -> str:
    """The filing's words in quotation marks, a sentence to a quote: “…” and “…” (one citation covers them).
    Only a sentence's end starts another quote: a table row's cells or a list's items stay in one."""
    quotes: list[str] = []
    for piece in split_sentences(text) or [text]:
        if quotes and not quotes[-1].rstrip().endswith((".", "!", "?")):
            quotes[-1] = f"{quotes[-1].rstrip()} {piece.strip()}"
        else:
            quotes.append(piece.strip())
    return " and ".join(f"“{q.rstrip('.;')}”" for q in quotes)


def _newest_development(steps: list[StepDigest]) -> DraftClaim | None:
    """The quotable card, of the searches that read text (reading on included), that states the latest date
    something happened on ("On February 8, 2022, the parties informed the court they had reached an
    agreement in principle …"), read with the sentence before it when that one is dated too (the
    development it follows) and with the sentence after it when that one only says what is due next
    ("NVIDIA's deadline to file a petition … is March 4, 2024"); None when no card states such a date."""
    best: tuple[date, DraftClaim] | None = None
    for step in filter(_reads_words, steps):
        passages = {e.evidence_id: e.text for e in step.evidence}
        for card in step.cards:
            happened = dates_happened(card.claim) if _quotable(card) else []
            if not happened or (best is not None and max(happened) <= best[0]):
                continue
            claim = prose_after_table(card.claim)
            passage = passages.get(card.evidence_ids[0], "")
            before, after = sentence_before(claim, passage), sentence_after(claim, passage)
            text = f"{before} {claim}" if before and dates_stated(before) else claim
            if after and dates_stated(after) and not dates_happened(after):
                text = f"{text} {after}"
            best = (max(happened), DraftClaim(text=text, evidence_ids=card.evidence_ids[:2]))
    return best[1] if best else None


def _card_saying(steps: list[StepDigest], says: Callable[[str], bool], near: DraftClaim) -> DraftClaim | None:
    """The quotable card, of the searches that read text, that `says` what is wanted ("… has accrued amounts
    … when a loss is probable and reasonably estimable"): one from the passage `near` quotes first, else the
    first found; None when no card does, or `near` says it already."""
    if says(near.text):
        return None
    found = [
        card
        for step in filter(_reads_words, steps)
        for card in step.cards
        if _quotable(card) and says(card.claim)
    ]
    chunk_of = {e.evidence_id: e.chunk_id or e.evidence_id for step in steps for e in step.evidence}
    near_passage = chunk_of.get(near.evidence_ids[0]) if near.evidence_ids else None
    found.sort(key=lambda card: chunk_of.get(card.evidence_ids[0]) != near_passage)
    return DraftClaim(text=found[0].claim, evidence_ids=found[0].evidence_ids[:2]) if found else None


def _second_quote(question: str) -> Callable[[str], bool] | None:
    """What the answer quotes after the filing's first words on a matter: for where it stands, the filer's
    judgement of how it may end; for a risk, what the risk has already cost; else nothing."""
    if asks_current_status(question):
        return judges_outcome
    return states_it_happened if classify_intent(question) == "risk" else None


def _quotable(card: KnowledgeCard) -> bool:
    """Whether a step's card is sure and cited enough to answer its part in the opening paragraph."""
    return bool(card.evidence_ids) and card.confidence >= 0.5


def offline_write(inputs: WriterInput, deps: AgentDeps) -> ReportDraft:
    """The answer first (each figure asked for, computed with cited inputs, or the best passages), then
    each step's best cards verbatim with their evidence ids; gaps say what was searched."""
    filings = _filings_label(inputs)
    sections: list[ReportSection] = []
    conflicts: list[DraftClaim] = []
    seen_claims: dict[str, int] = {}  # claim -> the step (1-based) that states it
    answered = 0
    for step in inputs.steps:
        claims = []
        for card in step.cards:
            if card.claim in seen_claims or not card.evidence_ids:
                continue
            seen_claims[card.claim] = step.index + 1
            claims.append(DraftClaim(text=card.claim, evidence_ids=card.evidence_ids[:2]))
            if card.contradiction and card.contradicting_evidence_ids:
                conflicts.append(
                    DraftClaim(
                        text=f"Step {step.index + 1}: {card.contradiction}",
                        evidence_ids=[card.evidence_ids[0], *card.contradicting_evidence_ids[:1]],
                    )
                )
            if len(claims) >= MAX_CLAIMS_PER_STEP:
                break
        stated_before = sorted(
            {
                seen_claims[c.claim]
                for c in step.cards
                if seen_claims.get(c.claim, step.index + 1) <= step.index
            }
        )
        answered += bool(claims or stated_before)
        gap = None if claims else describe_search(step, filings)
        if not claims and stated_before:
            # The step found passages, but every one is already stated under an earlier step.
            where = ", ".join(map(str, stated_before))
            gap = f"What this step found is already stated above (step {where})."
        if claims and step.note and step.note.open_questions:
            # Say what the passages did not cover rather than let the cited ones imply it.
            gap = "Open: " + "; ".join(step.note.open_questions)
        sections.append(ReportSection(heading=step_heading(step), claims=claims, gap=gap))
    missing = len(inputs.steps) - answered
    computed = _figures(inputs)
    figures = [claim for claim, _ in computed]
    ranking = ranking_answer(inputs.question, figures)
    verdict = None
    if ranking is not None:
        figures = [ranking, *figures]
    elif figures and figures[0].evidence_ids and (len(figures) == 1 or weighs_two_figures(inputs.question)):
        # "Did it grow its PP&E?": the figure's sign says yes or no; the answer says it first. "Did it earn more
        # than it paid?": the sign of the difference, stated first, does.
        verdict = yes_or_no(inputs.question, figures[0].text.split(" — ", 1)[0])
        if verdict:
            figures = [figures[0].model_copy(update={"text": f"{verdict}. {figures[0].text}"}), *figures[1:]]
    narrative = _narrative_answer(inputs, figures_stated=any(f.evidence_ids for f in figures))
    tables = period_tables(computed)  # the figures by period; each figure's working stays listed below it
    method = (
        f"Extractive answer from {filings}, researched in {len(inputs.steps)} step(s). Figures are computed from "
        f"the cited table rows; every other point quotes a cited passage."
    )
    if missing:
        method += f" {missing} step(s) found no supporting evidence; they say what was searched."
    return ReportDraft(
        answer=[*figures, *narrative],
        summary=answer_paragraph(inputs, computed, verdict, ranking, narrative),
        tables=tables,
        method=method,
        sections=sections,
        conflicts=conflicts,
    )


def _step_block(step: StepDigest) -> str:
    head = (
        f"Step {step.index + 1}: {step.sub_question} (tool {step.tool}, query “{step.query}”, "
        f"Item {step.document_section or 'any'})"
    )
    if not step.evidence:
        return f"{head}\n  (no evidence: {step.evidence_note or 'nothing found'})"
    body = "\n".join(
        untrusted(e.text[:1500], label=f"{e.evidence_id} {e.section or e.url or ''} p.{e.page}")
        for e in step.evidence
        if e.kind in ("filing", "web")
    )
    calc = [c.claim for c in step.cards] if step.tool == "calculator" else []
    return "\n".join([head, body, *[f"  calculation: {c}" for c in calc]])


_MARKUP_RE = re.compile(r"</?[A-Za-z_][\w-]*(\s[^<>]*)?/?>|untrusted_document_text|<\||\|>|```")


def claim_problem(
    text: str, evidence_ids: list[str], evidence: dict[str, Evidence], computed: list[str]
) -> str | None:
    """Why a model-written claim cannot be shown, or None: it must cite passages of the research, state
    only figures those passages (or the run's calculations) contain, and carry no prompt markup."""
    if _MARKUP_RE.search(text):
        return "it contains prompt markup"
    cited = [evidence[i] for i in evidence_ids if i in evidence and evidence[i].kind in ("filing", "web")]
    if not cited:
        return "it cites no passage of the research"
    missing = unsupported_figures(text, [e.text for e in cited] + computed)
    if missing:
        return f"it states {', '.join(missing[:3])}, which the cited passages do not"
    return None


def check_llm_draft(draft: ReportDraft, inputs: WriterInput) -> tuple[ReportDraft, list[str]]:
    """The model's draft with every claim that fails `claim_problem` removed, and the reasons."""
    evidence = {e.evidence_id: e for step in inputs.steps for e in step.evidence}
    computed = [e.text for e in evidence.values() if e.kind == "calculation"]
    problems: list[str] = []

    def keep(claims: list[DraftClaim], where: str) -> list[DraftClaim]:
        kept = []
        for claim in claims:
            problem = claim_problem(claim.text, claim.evidence_ids, evidence, computed)
            if problem:
                problems.append(f"{where}: {problem}")
            else:
                kept.append(claim)
        return kept

    answer = keep(draft.answer, "answer")
    sections = [s.model_copy(update={"claims": keep(s.claims, s.heading)}) for s in draft.sections]
    conflicts = keep(draft.conflicts, "conflicts")
    summary = draft.summary
    summary_problem = (
        claim_problem(summary, EVIDENCE_ID_RE.findall(summary), evidence, computed)
        if summary.strip()
        else None
    )
    if summary_problem:
        problems.append(f"summary: {summary_problem}")
        summary = ""
    # How the answer was made is the workbench's to say, not the model's.
    return ReportDraft(answer=answer, summary=summary, sections=sections, conflicts=conflicts), problems


def llm_write(inputs: WriterInput, deps: AgentDeps) -> ReportDraft:
    """LLM report, checked before it is shown: parts that fail the check are written by the offline writer
    (recorded as a fallback with the reasons); raises when the model returns nothing usable."""
    steps = "\n\n".join(_step_block(s) for s in inputs.steps)
    raw = structured_call(
        deps, WRITER_SYSTEM, WRITER_HUMAN, {"question": inputs.question, "steps": steps}, ReportDraft
    )
    if not raw.summary.strip() and not raw.answer and not any(s.claims for s in raw.sections):
        raise LLMOutputError("the model returned an empty report")
    draft, problems = check_llm_draft(raw, inputs)
    if problems:
        offline = offline_write(inputs, deps)
        replaced = []
        if not draft.answer:
            draft.answer = offline.answer
            replaced.append("answer")
        if not draft.summary.strip():
            draft.summary = offline.summary
            replaced.append("summary")
        if not any(s.claims for s in draft.sections):
            draft.sections = offline.sections
            replaced.append("evidence by step")
        deps.record_fallback(
            "writer",
            f"offline writer for {', '.join(replaced) or 'the removed claims'}",
            f"{len(problems)} part(s) of the model's answer failed the check: " + "; ".join(problems[:4]),
        )
    if not draft.summary.strip() and not draft.answer and not any(s.claims for s in draft.sections):
        raise LLMOutputError("nothing in the model's report could be checked against the evidence")
    filings = _filings_label(inputs)
    sections = list(draft.sections)
    # Steps that found nothing must say what was searched, whatever the model wrote.
    for step in inputs.steps:
        if not step.evidence:
            sections.append(ReportSection(heading=step_heading(step), gap=describe_search(step, filings)))
    # Figures the calculator computed (with cited inputs) lead the answer when the model stated none.
    answer = draft.answer or [f for f in figure_answers(inputs) if f.evidence_ids]
    return ReportDraft(
        answer=answer,
        summary=draft.summary,
        tables=period_tables(_figures(inputs)),
        sections=sections,
        conflicts=draft.conflicts,
    )
