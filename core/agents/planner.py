"""Planner agent: splits a question into research steps (rule-based offline, or an LLM)."""

from __future__ import annotations

import re
from dataclasses import replace

from core.agents.base import AgentDeps
from core.agents.clauses import (
    as_question,
    clause_asks_only_for_figures,
    is_outside,
    keywords_for,
    resolve_pronouns,
    split_clauses,
    topic_beside_figures,
)
from core.agents.contracts import DraftStep, FilingInfo, PlanDraft, PlannerInput
from core.agents.plan_tools import FIGURE_REASON, finalise_plan
from core.agents.structured import LLMOutputError, structured_call
from core.finance.formula import FormulaError, operands, parse_formula
from core.finance.question import DEFINITION_RE, asks_for_reason, strip_instructions, unit_asked
from core.finance.requests import BY_PART_RE, FigureRequest, figure_requests
from core.finance.vocabulary import STATEMENTS, LineItem, item_for
from core.models import Plan
from core.prompts import PLANNER_HUMAN, PLANNER_SYSTEM
from core.retrieval.routing import company_forms, mentions_company, narrowed_to_period
from core.text.periods import fiscal_years


def offline_plan(inputs: PlannerInput, deps: AgentDeps) -> Plan:
    """Rule-based plan, decomposed the way an analyst would: for each filing in scope, the statements that
    report the figures asked for and a calculator step that computes them with cited inputs; then the
    narrative parts of the question, each in the Item that discusses it; the web only for what is outside
    the filings. (The graph puts the anchor step, the question as asked, in front of every plan.)"""
    need, _ = strip_instructions(inputs.question)
    scope = filings_in_scope(need, inputs.filings)
    figure_steps = figure_plan_steps(inputs)
    narrative = _narrative_steps(need, inputs.filings, scope, has_figures=bool(figure_steps))
    steps = _within_room(figure_steps, narrative, inputs.max_steps)
    if not steps:
        steps = [
            DraftStep(
                sub_question=as_question(need.strip(" ?.")),
                keywords=keywords_for(need, None),
                document_section=item_for(need),
                filing_id=scope[0].filing_id if len(scope) == 1 else None,
            )
        ]
    tools = ", ".join(sorted({s.tool for s in steps}))
    names = ", ".join(_short_name(f) for f in scope) or "the selected filings"
    rationale = (
        f"Rule-based plan over {names}: {len(steps)} step(s) ({tools}); figures are read from the financial "
        "statements and computed with their inputs cited."
    )
    return finalise_plan(PlanDraft(steps=steps, rationale=rationale), inputs.filings, inputs.max_steps)


#: Steps the planners leave free for reflection's follow-ups (and the anchor step).
RESERVED_FOR_REFLECTION = 3


def figure_plan_steps(inputs: PlannerInput) -> list[DraftStep]:
    """For each filing in scope, the statement searches that report the figures the question asks for and
    the calculator step that computes them (none when it asks for no figure)."""
    need, _ = strip_instructions(inputs.question)
    scope = filings_in_scope(need, inputs.filings)
    series = over_periods(scope)
    if series:
        scope = sorted(scope, key=period_order)
    return [
        s
        for f in scope
        for s in _figure_steps(need, inputs.question, f, single=len(scope) == 1, series=series)
    ]


def over_periods(scope: list[FilingInfo]) -> bool:
    """Several reports of one company, one of them quarterly: a question over them follows the company
    through its periods, each report giving the figure of its own period."""
    return (
        len(scope) > 1
        and len({f.company for f in scope}) == 1
        and any(f.calendar is not None and f.calendar.quarter for f in scope)
    )


def period_order(filing: FilingInfo) -> tuple[str, int, int]:
    """Where a report falls in the company's calendar: by the date its period ends, then fiscal year."""
    return (filing.period_end or "", filing.fiscal_year or 0, filing.fiscal_quarter or 5)


def _within_room(figure_steps: list[DraftStep], others: list[DraftStep], max_steps: int) -> list[DraftStep]:
    """Figure steps first, then the others, leaving room in the budget for reflection and the anchor."""
    room = max(2, max_steps - RESERVED_FOR_REFLECTION)
    return (figure_steps + others)[:room] if len(figure_steps) < room else figure_steps[:room]


_EACH_RE = re.compile(r"\b(each of them|each|both|either|they|them)\b", re.I)


def _without_company(text: str, company: str) -> str:
    """`text` with the company's name (in its usual forms) replaced by 'the company', a possessive kept: what
    follows "Apple's" may be a part of it ("Apple's Services")."""
    for form in company_forms(company):
        text = re.sub(
            rf"(?<![\w&]){re.escape(form)}(?:(['’]s)|['’])?(?![\w&])",
            lambda m: "the company's" if m.group(1) else "the company",
            text,
            flags=re.I,
        )
    return text


def _short_name(filing: FilingInfo) -> str:
    forms = company_forms(filing.company)
    year = f" FY{filing.fiscal_year}" if filing.fiscal_year else ""
    return (forms[0] if forms else filing.label) + year


def filings_in_scope(question: str, filings: list[FilingInfo]) -> list[FilingInfo]:
    """The filings a question is about: those whose company it names (narrowed to the fiscal years it
    names when a company has several filings), or every selected filing when it names none."""
    named = [f for f in filings if mentions_company(question, f.company)]
    scope = named or list(filings)
    years = set(fiscal_years(question))
    if years and len(scope) > 1:
        in_years = [f for f in scope if f.fiscal_year in years]
        companies = {f.company for f in scope}
        # Keep one filing per company at least: a year can be reported in the next year's filing.
        if in_years and {f.company for f in in_years} == companies:
            scope = in_years
    if len(scope) > 1 and all(f.period_end for f in scope):
        # "Q2 FY2024", "the latest 10-Q": the report of that period, as the search routes to it.
        scope = narrowed_to_period(question, scope)
    return scope


def _request_question(request: FigureRequest) -> str:
    """A calculator sub-question that names the request so the calculator reads it back exactly."""
    years = " and ".join(request.period_name(y) for y in request.years)
    how = {"change": " and how it changed", "cagr": " and its compound annual growth"}.get(
        request.aggregate or "", ""
    )
    lead = f"the {len(request.years)}-year average of " if request.aggregate == "average" else ""
    unit = f" (in USD {request.unit_asked})" if request.unit_asked else ""
    if request.by_part:
        # Read back as the line item's parts, in the question's words: "by its service offerings", or, for
        # parts named one by one, "(its gaming and professional GPU segments)".
        asked = request.parts_asked or "segments"
        by = f"by its {asked}"
        unit = f" {by if BY_PART_RE.search(by) else f'(its {asked})'}{unit}"
    if request.defined_in_question:
        return (
            f"What is {lead}the {request.name} for {years}{how}{unit}? "
            f"{request.name} is defined as: {request.formula}."
        )
    if request.formula == request.name:
        return f"What is {lead}the {request.name} amount for {years}{how}{unit}?"
    return f"What is {lead}the {request.name} for {years}{how}{unit}?"


def _figure_steps(
    need: str, question: str, filing: FilingInfo, *, single: bool, series: bool = False
) -> list[DraftStep]:
    """Statement searches for the line items the requested figures need, then one calculator step each. In a
    `series` (one company's reports over periods) each report gives its own period's figures, and its
    calculator reads them from the report's statements directly: one step per report."""
    try:
        # The company's own name is not a segment: "How much did American Water Works pay in dividends".
        requests = figure_requests(
            _without_company(need, filing.company), filing.fiscal_year, filing.calendar
        )
    except FormulaError:
        return []
    if not requests:
        return []
    if series and filing.fiscal_year:
        requests = [replace(r, years=[filing.fiscal_year], aggregate=None) for r in requests]
    unit = unit_asked(question)
    name = _short_name(filing).rsplit(" FY", 1)[0]
    steps: list[DraftStep] = []
    by_statement: dict[str, list[LineItem]] = {}
    unknown: list[str] = []
    segments: list[str] = []  # line items of a segment or product, reported in MD&A and segment notes
    years: set[int] = set()
    periods: dict[int, str] = {}  # how each year's figures are named ("FY2023", "Q2 FY2023")
    for request in requests:
        periods.update((y, request.period_name(y)) for y in request.years)
        request.unit_asked = request.unit_asked or unit
        years.update(request.years)
        tree = parse_formula(request.formula)
        for operand in operands(tree):
            years.update(y for y in operand.resolved(max(request.years)).years if isinstance(y, int))
            if operand.qualifier:
                segments.append(operand.phrase)
            elif operand.item is None:
                unknown.append(operand.phrase)
            else:
                by_statement.setdefault(operand.item.statement, []).append(operand.item)
    year_text = ", ".join(periods.get(y, f"FY{y}") for y in sorted(years))

    def search(what: list[str], keywords: list[str], section: str | None, reason: str) -> DraftStep:
        return DraftStep(
            sub_question=f"{name} {', '.join(dict.fromkeys(what))}{where} for {year_text}",
            keywords=list(dict.fromkeys(keywords))[:8],
            document_section=section,
            filing_id=filing.filing_id,
            reason=reason,
        )

    for statement, items in ({} if series else by_statement).items():
        items = list(dict.fromkeys(items))
        where = f" in the {STATEMENTS[statement].title}"
        keywords = [STATEMENTS[statement].search_terms, *(i.search_terms for i in items)]
        steps.append(search([i.name for i in items], keywords, "Item 8", f"{FIGURE_REASON} from{where[3:]}"))
    where = ""
    if series:
        segments, unknown = [], []  # the calculator finds them among the report's facts, by meaning
    if segments:  # a segment's or product's figures are reported in MD&A and the segment notes
        steps.append(
            search(segments, segments, None, f"{FIGURE_REASON} (segment figures: MD&A and the notes)")
        )
    if unknown:
        steps.append(search(unknown, unknown, "Item 8", FIGURE_REASON))
    # One calculator step per defined metric (its definition must travel with it); the other figures of
    # the filing are computed together by one step.
    groups = [[r] for r in requests if r.defined_in_question] + (
        [[r for r in requests if not r.defined_in_question]]
        if any(not r.defined_in_question for r in requests)
        else []
    )
    for group in groups:
        steps.append(
            DraftStep(
                sub_question=" ".join(_request_question(r) for r in group),
                tool="calculator",
                keywords=[],
                filing_id=filing.filing_id,
            )
        )
    return steps


def _narrative_steps(
    need: str, filings: list[FilingInfo], scope: list[FilingInfo], *, has_figures: bool
) -> list[DraftStep]:
    """Clauses that ask for text (risks, drivers, descriptions), one step per clause and filing in scope."""
    steps: list[DraftStep] = []
    latest = max((f.fiscal_year for f in filings if f.fiscal_year), default=None)
    years = [y for y in fiscal_years(need) if latest is None or y <= latest]
    for clause in split_clauses(need):
        if DEFINITION_RE.search(clause):
            continue  # "X is defined as ..." tells the calculator how, it is nothing to search for
        if is_outside(clause, filings):
            steps.append(
                DraftStep(
                    sub_question=as_question(clause), tool="search_web", keywords=keywords_for(clause, None)
                )
            )
            continue
        beside = None
        if has_figures:
            if clause_asks_only_for_figures(clause):
                continue  # the figure steps answer it
            # "debt structure or interest expenses": the figure steps answer the figure, this step the topic.
            beside = topic_beside_figures(clause)
            clause = beside or clause
        if years and not fiscal_years(clause):
            # The question's period holds for each of its parts: "... in fiscal 2023, and how many employees".
            clause = f"{clause.rstrip(' ?.')} in fiscal {' and '.join(map(str, years))}"
        named = [f for f in scope if mentions_company(clause, f.company)] or scope
        for filing in named:
            company = _short_name(filing).rsplit(" FY", 1)[0]
            text = resolve_pronouns(clause, company)
            if len(named) > 1 and not mentions_company(text, filing.company):
                # "how many employees did each have" -> "how many employees did Apple have"
                text, replaced = _EACH_RE.subn(company, text, count=1)
                if not replaced:
                    text = f"{text} ({company})"
            item = item_for(text)
            if has_figures and not beside and item in (None, "Item 8"):
                # What drove a figure is discussed in MD&A. Any other clause beside figures searches the whole
                # filing: the statements (Item 8) print the figures, not a ratio or a description restated.
                item = "Item 7" if asks_for_reason(text) else None
            steps.append(
                DraftStep(
                    sub_question=as_question(text),
                    keywords=keywords_for(text, company),
                    document_section=item,
                    filing_id=filing.filing_id,
                )
            )
    return steps


def llm_plan(inputs: PlannerInput, deps: AgentDeps) -> Plan:
    """LLM plan through structured output; raises when the model's plan is empty or invalid."""
    filings = "\n".join(f"- {f.filing_id}: {f.label}" for f in inputs.filings) or "- (none selected)"
    draft = structured_call(
        deps,
        PLANNER_SYSTEM,
        PLANNER_HUMAN,
        {"max_steps": inputs.max_steps, "filings": filings, "question": inputs.question},
        PlanDraft,
    )
    if not draft.steps:
        raise LLMOutputError("the model returned a plan with no steps")
    figure_steps = figure_plan_steps(inputs)
    if figure_steps:
        # A figure the question asks for is read from the statements and computed from cited inputs the
        # way the offline planner does, whatever the model planned for it: its own calculator steps give
        # way to these, its other steps follow.
        others = [s for s in draft.steps if s.tool != "calculator"]
        draft = draft.model_copy(update={"steps": _within_room(figure_steps, others, inputs.max_steps)})
    plan = finalise_plan(draft, inputs.filings, inputs.max_steps)
    if not plan.steps:
        raise LLMOutputError("the model returned a plan with no steps")
    return plan
