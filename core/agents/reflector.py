"""Reflector agent: a research note per step (confirmed facts, open questions, conflicts)."""

from __future__ import annotations

import re

from core.agents.base import AgentDeps
from core.agents.clauses import figure_named
from core.agents.contracts import ReflectInput
from core.agents.distiller import wants_numbers
from core.agents.structured import structured_call
from core.finance.question import asks_why_it_moved
from core.finance.vocabulary import STATEMENTS, line_item_for, line_item_mentions, line_items_in
from core.models import Gap, ResearchNote
from core.prompts import REFLECTOR_HUMAN, REFLECTOR_SYSTEM
from core.text.markdown_table import is_table_line
from core.text.periods import MONTHS, YEAR, fiscal_years
from core.text.reasons import REASON_RE, reason_score
from core.text.tokens import content_terms

_CONFIRMED = 0.5
#: A currency or unit says how to state a figure, not what to find ("USD", "millions", "percent").
_UNIT_KEYWORD = re.compile(
    r"(?:usd|us\$|\$|dollars?|eur|gbp|(?:usd\s*)?(?:thousand|million|billion)s?|percent(?:age)?s?|%)", re.I
)


def _is_a_name(keyword: str, question: str | None, company: str | None) -> bool:
    """Whether a keyword is a name the question capitalises where no sentence starts ("App Store", "Greater
    China", "SBC"), the company's own and a month aside. The question's verbs and everyday words ("drove",
    "flag", "around", "big") name nothing a passage could be missing."""
    if not keyword[:1].isupper() or re.fullmatch(MONTHS, keyword, re.I):
        return False
    own = company.lower().split() if company else []
    if own and all(any(name.startswith(word) for name in own) for word in keyword.lower().split()):
        return False  # "Amazon" of "Amazon.com"
    if question is None:
        return True
    at = question.find(keyword)
    return at > 0 and not re.search(r"[.?!:]\s*$", question[:at])


#: A keyword that is a fiscal year ("2023", "FY2023", "fiscal 2023"; matched lower-cased); group 1 is the year.
_YEAR_KEYWORD_RE = re.compile(rf"(?:fy|fiscal\s*)?({YEAR})")


def missing_keywords(
    keywords: list[str], text: str, question: str | None = None, company: str | None = None
) -> list[str]:
    """Topic keywords none of whose words (by 5-letter prefix) occur in `text`: fiscal years, line items (found
    in any of their wordings: "capex" in "purchases of property, plant and equipment") and, when the
    `question` they come from is given, the names it capitalises (see `_is_a_name`); units and the
    words of a search for a reason are no topic."""
    prefixes = {t[:5] for t in content_terms(text)}
    items_named = {item.key for item in line_items_in(text)}
    years = {str(y) for y in fiscal_years(text)}
    missing = []
    for keyword in keywords:
        low = keyword.lower()
        if len(low) < 3 or _UNIT_KEYWORD.fullmatch(low.strip()) or REASON_RE.search(low):
            continue  # "primarily due to" words a search for a reason; it is no topic to find
        year = _YEAR_KEYWORD_RE.fullmatch(low)
        if year:
            if year.group(1) not in years:
                missing.append(keyword)
            continue
        item = line_item_for(keyword)
        if item is None and not _is_a_name(keyword, question, company):
            continue
        if item is not None and item.key in items_named:
            continue
        terms = content_terms(keyword)
        if terms and not any(t[:5] in prefixes for t in terms):
            missing.append(keyword)
    return missing


def _short(text: str, limit: int = 220) -> str:
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


#: How the gap of a calculator input the evidence lacks ends ("total assets for FY2018 not found").
FIGURE_NOT_FOUND = " not found"


def evidence_gaps(inputs: ReflectInput) -> list[Gap]:
    """What a follow-up search should look for after this step: each calculator input that was not found
    (searched across the whole filing under the line item's own wording), or, when an Item-filtered search
    found nothing, the same question over the whole filing."""
    gaps: list[Gap] = []
    company = f"{inputs.company} " if inputs.company else ""
    for missing in inputs.missing:
        # "total assets for FY2018", "Cloud Services revenue for Q1 FY2023": the figure, then its period.
        name, _, period = missing.rpartition(" for ")
        # A fiscal year is searched as the year the filing prints; a quarter's name is not printed (its
        # columns say "Three Months Ended September 30, 2022"), so only the query carries it.
        year = period.removeprefix("FY") if re.fullmatch(r"FY\d{4}", period) else ""
        item = line_item_for(name)
        words = item.search_terms if item else name
        statement = STATEMENTS[item.statement].search_terms if item else ""
        gaps.append(
            Gap(
                description=f"{missing}{FIGURE_NOT_FOUND}",
                query=f"{company}{name} {year or period} {statement}".strip(),
                document_section=None,
                filing_id=inputs.filing_id,
                keywords=[k for k in (words, year) if k],
            )
        )
    if inputs.tool == "search_10k" and not inputs.evidence and inputs.document_section:
        gaps.append(
            Gap(
                description=f"nothing in {inputs.document_section} answered “{inputs.sub_question}”",
                query=inputs.sub_question,
                document_section=None,
                filing_id=inputs.filing_id,
                keywords=inputs.keywords,
            )
        )
    return gaps


#: Best passages of a step whose continuation a read-on follow-up reads.
READ_ON_HITS = 2


def read_on_gap(inputs: ReflectInput) -> Gap | None:
    """After a passage search (not a figure lookup, not itself a read-on), a follow-up that reads what
    follows the prose passages the step's claims came from: a legal matter, a risk or an explanation often
    runs on past the passage the search found, into passages that share none of the question's words."""
    if inputs.tool != "search_10k" or inputs.reads_on or inputs.looks_up_figures:
        return None
    by_id = {ev.evidence_id: ev for ev in inputs.evidence}
    # The passages the step's claims were drawn from, best claim first: what the step found relevant.
    cited = dict.fromkeys(i for card in inputs.cards for i in card.evidence_ids if i in by_id)
    hits = [by_id[i] for i in cited if by_id[i].chunk_id and not _is_table(by_id[i].text)][:READ_ON_HITS]
    if not hits:
        return None
    where = "; ".join(f"p. {ev.page}, {ev.section}" if ev.section else f"p. {ev.page}" for ev in hits)
    return Gap(
        description=f"what follows the best passages ({where})",
        query=inputs.sub_question,
        document_section=None,
        filing_id=inputs.filing_id,
        keywords=inputs.keywords,
        reads_on_from=[ev.chunk_id for ev in hits if ev.chunk_id],
    )


def reason_gap(inputs: ReflectInput, claims: list[tuple[str, str]]) -> Gap | None:
    """After a search for a part that asks why a figure moved, when none of the run's `claims` so far (each
    with its passage) gives a reason naming most of that figure: a follow-up in MD&A worded the way a filing
    explains a change ("effective tax rate … higher … due primarily to")."""
    if inputs.tool != "search_10k" or inputs.reads_on or not asks_why_it_moved(inputs.sub_question):
        return None
    subject = figure_named(inputs.sub_question)
    terms = set(content_terms(subject or ""))
    if subject is None or any(
        reason_score(claim, passage, terms) * 2 >= len(terms) for claim, passage in claims
    ):
        return None
    company = f"{inputs.company} " if inputs.company else ""
    years = " ".join(str(y) for y in fiscal_years(inputs.sub_question))
    # MD&A explains a figure right after the table that prints it ("Provision for Income Taxes | Effective tax
    # rate …", then "The Company's effective tax rate for 2024 was higher … due primarily to …"): where the
    # step found such a table, the follow-up reads on from it; the caller searches instead when nothing
    # unread follows it.
    tables = [
        ev.chunk_id
        for ev in inputs.evidence
        if ev.chunk_id and _is_table(ev.text) and _prints(ev.text, subject)
    ]
    return Gap(
        description=f"no passage read explains the change in {subject}",
        query=f"{company}{subject} {years} increased or decreased primarily due to".replace("  ", " "),
        document_section="Item 7",
        filing_id=inputs.filing_id,
        keywords=[subject, "primarily due to", "driven by"],
        reads_on_from=tables[:READ_ON_HITS],
    )


def _prints(table: str, figure: str) -> bool:
    """Whether a table prints the figure: most of its words, or its line item in any of the wordings filings
    use ("Services revenue" in a table of "Services" and "Total net sales") with the rest of its words."""
    terms, printed = set(content_terms(figure)), set(content_terms(table))
    if len(terms & printed) * 2 >= len(terms) + 1:
        return True
    mentions = line_item_mentions(figure)
    if not mentions or mentions[0].entry not in line_items_in(table):
        return False
    rest = set(content_terms(figure[: mentions[0].start] + " " + figure[mentions[0].end :]))
    return rest <= printed


def _is_table(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    return bool(lines) and sum(is_table_line(line) for line in lines) * 2 >= len(lines)


def offline_reflect(inputs: ReflectInput, deps: AgentDeps) -> ResearchNote:
    """Confirmed = confident cards; open = sub-question terms no evidence mentions; conflicts from cards."""
    where = inputs.document_section or "the selected filings"
    confirmed = [_short(c.claim) for c in inputs.cards if c.confidence >= _CONFIRMED]
    conflicts = [c.contradiction for c in inputs.cards if c.contradiction]
    open_questions: list[str] = []
    if not inputs.cards:
        reason = f" ({inputs.evidence_note})" if inputs.evidence_note else ""
        open_questions.append(f"Nothing in {where} answered: {inputs.sub_question}{reason}")
    else:
        evidence = " ".join(ev.text for ev in inputs.evidence)
        keywords = inputs.keywords
        if not wants_numbers(inputs.sub_question):
            # A narrative part's year scopes the filing (its FY2023 10-K); its passages need not print it.
            keywords = [k for k in keywords if not _YEAR_KEYWORD_RE.fullmatch(k.strip().lower())]
        missing = missing_keywords(keywords, evidence, inputs.sub_question, inputs.company)
        if missing:
            open_questions.append("Not found in the evidence: " + ", ".join(missing))
        if not confirmed:
            open_questions.append("Only weakly supported claims were found; the answer may be incomplete.")
    summary = (
        f"{len(inputs.cards)} claim(s) from {len(inputs.evidence)} passage(s) in {where}"
        + (f"; {len(conflicts)} conflict(s)" if conflicts else "")
        + "."
    )
    return ResearchNote(
        confirmed_facts=confirmed,
        open_questions=open_questions,
        conflicts=conflicts,
        summary=summary,
        gaps=evidence_gaps(inputs),
    )


def llm_reflect(inputs: ReflectInput, deps: AgentDeps) -> ResearchNote:
    """LLM research note."""
    cards = "\n".join(
        f"- {c.claim} (evidence {', '.join(c.evidence_ids)}, confidence {c.confidence:.2f})"
        + (f" CONFLICT: {c.contradiction}" if c.contradiction else "")
        for c in inputs.cards
    )
    note = structured_call(
        deps,
        REFLECTOR_SYSTEM,
        REFLECTOR_HUMAN,
        {
            "sub_question": inputs.sub_question,
            "section": inputs.document_section or "(any)",
            "note": inputs.evidence_note or "(none)",
            "cards": cards or "(no cards)",
        },
        ResearchNote,
    )
    # The model's gaps search this step's filing; their Items are normalised by the graph.
    gaps = [
        g.model_copy(update={"filing_id": g.filing_id or inputs.filing_id})
        for g in note.gaps[:3]
        if g.query.strip()
    ]
    return note.model_copy(update={"gaps": gaps})
