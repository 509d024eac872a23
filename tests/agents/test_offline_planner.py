"""Rule-based planner: clauses, Items, web routing, calculator steps, budget, determinism."""

from __future__ import annotations

from core.agents.base import AgentDeps
from core.agents.clauses import item_for, split_clauses
from core.agents.contracts import FilingInfo, PlannerInput
from core.agents.plan_tools import ensure_step_ids, normalise_section
from core.agents.planner import offline_plan
from core.config import Settings
from core.models import Plan, PlanStep

NVDA = FilingInfo(
    filing_id="nv", label="NVIDIA Corporation 10-K FY2023", company="NVIDIA Corporation", fiscal_year=2023
)


def _plan(question: str, *, max_steps: int = 7, filings: list[FilingInfo] | None = None) -> Plan:
    deps = AgentDeps(settings=Settings())
    return offline_plan(PlannerInput(question=question, filings=filings or [NVDA], max_steps=max_steps), deps)


def test_quality_question_becomes_three_filing_steps() -> None:
    plan = _plan(
        "From NVIDIA's FY2023 10-K, what competition risks does it list, and how do its R&D and Data Center "
        "results relate to them?"
    )
    assert [s.tool for s in plan.steps] == ["search_10k"] * 3
    assert [s.document_section for s in plan.steps] == ["Item 1A", "Item 7", "Item 7"]
    assert "competition" in plan.steps[0].sub_question.lower()
    assert "R&D" in plan.steps[1].sub_question and "Data Center" in plan.steps[2].sub_question
    assert all(s.filing_id == "nv" for s in plan.steps)
    assert len({s.step_id for s in plan.steps}) == 3


def test_outside_company_and_time_sensitive_parts_go_to_the_web() -> None:
    plan = _plan(
        "From NVIDIA's FY2023 10-K, list the competition risks; then find AMD's 2024 AI-chip moves and assess "
        "how they change those risks."
    )
    tools = [s.tool for s in plan.steps]
    assert tools[0] == "search_10k" and plan.steps[0].document_section == "Item 1A"
    assert tools[1] == "search_web" and "AMD" in plan.steps[1].sub_question
    assert plan.steps[1].document_section is None
    assert _plan("What is the latest news about NVIDIA's export licenses?").steps[0].tool == "search_web"


def test_topics_map_to_items() -> None:
    assert item_for("What legal proceedings is it involved in?") == "Item 3"
    assert item_for("How exposed is it to interest rate risk?") == "Item 7A"
    assert item_for("What does the balance sheet show for goodwill?") == "Item 8"
    assert item_for("Who are its main competitors?") == "Item 1"
    assert item_for("What are its liquidity and capital resources?") == "Item 7"


def test_growth_question_reads_the_statement_then_calculates() -> None:
    plan = _plan("What was NVIDIA's revenue growth from fiscal 2022 to fiscal 2023?")
    assert [s.tool for s in plan.steps] == ["search_10k", "calculator"]
    search, calc = plan.steps
    # Revenue is reported in the income statement (Item 8), for both years asked.
    assert search.document_section == "Item 8" and "income statement" in search.sub_question
    assert (
        "NVIDIA" in search.sub_question
        and "FY2022" in search.sub_question
        and "FY2023" in search.sub_question
    )
    assert "revenue" in calc.sub_question and "how it changed" in calc.sub_question


def test_budget_and_determinism() -> None:
    question = (
        "What are the risks; what are the results; who are the competitors; what legal proceedings exist?"
    )
    assert len(_plan(question, max_steps=2).steps) == 2
    assert _plan(question) == _plan(question)
    assert len(split_clauses(question)) == 4


def test_plan_tools() -> None:
    assert normalise_section("1a") == "Item 1A"
    assert normalise_section("ITEM 7A.") == "Item 7A"
    assert normalise_section("Risk Factors") == "Item 1A"
    assert normalise_section("Item 99") is None
    # Another form's own sections are kept by their key, never read as a 10-K Item ("Item 2.02" is not Item 2).
    assert normalise_section("part ii item 1a") == "Part II Item 1A"
    assert normalise_section("Item 2.02") == "Item 2.02"
    assert normalise_section("Outlook") == "Outlook"
    plan = ensure_step_ids(
        Plan(
            steps=[
                PlanStep(step_id="s1", sub_question="a"),
                PlanStep(step_id="", sub_question="b"),
                PlanStep(step_id="s1", sub_question="c"),
            ]
        )
    )
    assert [s.step_id for s in plan.steps] == ["s1", "s2", "s3"]


def test_a_why_clause_keeps_the_subject_of_the_clause_before_it():
    clauses = split_clauses(
        "How much did NVIDIA spend on research and development in fiscal year 2023, and what share of revenue "
        "was that? What drove the increase?"
    )
    assert clauses[-1] == "What drove the increase in research and development expense"
    assert split_clauses("What were Costco's net sales in fiscal 2021 and what drove the growth?")[
        -1
    ].endswith("the growth in revenue")
    # A why that names its own figure is left as asked.
    assert (
        split_clauses("What was revenue in 2023? Why did operating expenses rise?")[-1]
        == "Why did operating expenses rise"
    )


def test_the_latest_report_is_read_in_the_filings_not_on_the_web() -> None:
    from core.agents.clauses import is_outside

    assert not is_outside("What did NVIDIA report for Data Center in the latest 10-Q?", [NVDA])
    assert not is_outside("How did margins move in the most recent quarter?", [NVDA])
    assert is_outside("What is the latest news about NVIDIA?", [NVDA])


def test_the_company_named_with_a_possessive_keeps_what_it_owns():
    from core.agents.planner import _without_company

    assert _without_company("Gross margin % on Apple's Services?", "Apple Inc.") == (
        "Gross margin % on the company's Services?"
    )
    assert _without_company("How much did Apple spend?", "Apple Inc.") == "How much did the company spend?"


def test_a_question_asks_beyond_figures_only_with_a_clause_no_figure_answers():
    from core.agents.clauses import asks_beyond_figures

    assert asks_beyond_figures("What risks does Apple see for its App Store?")
    assert asks_beyond_figures("How much did NVIDIA spend on R&D in fiscal 2024 and what drove the increase?")
    # An instruction or a definition asks for nothing; figures weighed against each other are figures.
    assert not asks_beyond_figures(
        "What is the FY2018 capital expenditure amount (in USD millions) for 3M? Give a response to the "
        "question by relying on the details shown in the cash flow statement."
    )
    assert not asks_beyond_figures(
        "What is the FY2019 fixed asset turnover ratio for Activision Blizzard? Fixed asset turnover ratio is "
        "defined as: FY2019 revenue / (average PP&E between FY2018 and FY2019)."
    )
    assert not asks_beyond_figures("Goodwill on Uber's balance sheet at year-end 2021, in USD millions?")
    # A topic joined to a figure asks for words too; a parenthesis saying where to read it does not.
    assert asks_beyond_figures("Were there changes in Intel's debt structure or interest costs in 2023?")
    assert not asks_beyond_figures("What is the FY2019 D&A (from cash flow statement) for 3M?")
    # A clause that only says when asks for nothing.
    assert not asks_beyond_figures("In the latest quarter, what was NVIDIA's revenue by segment?")


def test_the_topic_beside_a_figure_is_asked_alone() -> None:
    from core.agents.clauses import topic_beside_figures

    assert topic_beside_figures("What changes in debt structure or interest expenses did Apple disclose") == (
        "What changes in debt structure did Apple disclose"
    )
    assert topic_beside_figures("Did interest expense or the debt structure change in 2023") == (
        "Did the debt structure change in 2023"
    )
    # Figures, companies and periods are no topic.
    assert topic_beside_figures("What were Apple's net sales and operating income in 2023") is None
    assert topic_beside_figures("What was Intel's or AMD's revenue in 2023") is None
    assert (
        topic_beside_figures("What were revenue and capex (from the cash flow statement) in FY2022") is None
    )


def test_a_topic_joined_to_a_figure_gets_its_own_search() -> None:
    # "debt structure" is no figure: the figure steps read interest expense, a narrative step the debt.
    plan = _plan("What changes in debt structure or interest expenses did NVIDIA disclose in fiscal 2023?")
    tools = [s.tool for s in plan.steps]
    assert "calculator" in tools
    narrative = [s for s in plan.steps if s.tool == "search_10k" and "debt structure" in s.sub_question]
    assert len(narrative) == 1
    assert "interest" not in narrative[0].sub_question.lower()
    assert narrative[0].document_section == "Item 8"  # its own Item: a debt's terms are in the notes
    # Two figures joined by "and" stay figures: no narrative step.
    plan = _plan("What were NVIDIA's interest expense and total debt in fiscal 2023?")
    assert not [s for s in plan.steps if s.tool == "search_10k" and not (s.reason or "")]


def test_the_figure_a_clause_names_keeps_its_adjusted():
    from core.agents.clauses import figure_named

    assert figure_named("Why did Acme's adjusted EBITDA improve in 2021?") == "adjusted EBITDA"
    assert figure_named("Why did Acme's EBITDA improve in 2021?") == "EBITDA"


def test_a_clause_that_asks_of_the_company_by_it_stays_a_part_of_its_own():
    plan = _plan("Who does NVIDIA name as its competitors, and on what factors does it compete?")
    asked = [s.sub_question for s in plan.steps if s.origin == "planner"]
    assert "Who does NVIDIA name as NVIDIA's competitors?" in asked
    assert "On what factors does NVIDIA compete?" in [q.replace(" in fiscal 2023", "") for q in asked]
    # "does it" may be the company or the thing before: that clause stays with the one before it.
    assert split_clauses("What competition risks does NVIDIA list, and how does it address them?") == [
        "What competition risks does NVIDIA list; and how does it address them"
    ]


def test_a_pronoun_pointing_back_is_resolved_to_what_the_clause_before_asked_about():
    # The things asked about ...
    assert split_clauses("What legal proceedings does NVIDIA disclose, and what do they allege?") == [
        "What legal proceedings does NVIDIA disclose",
        "what do the legal proceedings allege",
    ]
    assert split_clauses(
        "What government antitrust actions does Apple disclose in its 2024 annual report, and what penalties "
        "could they bring?"
    ) == [
        "What government antitrust actions does Apple disclose in its 2024 annual report",
        "what penalties could the government antitrust actions bring",
    ]
    # ... or the subject asked about, and a yes-or-no part with its own subject is a part of its own.
    assert split_clauses(
        "Where does the class action over Acme's disclosures stand as of the FY2024 10-K, and has Acme accrued "
        "anything for it?"
    ) == [
        "Where does the class action over Acme's disclosures stand as of the FY2024 10-K",
        "has Acme accrued anything for the class action over Acme's disclosures",
    ]
    # A clause naming its subject owns its possessives: "its approach" is the company's.
    assert split_clauses(
        "How big is Acme's workforce and how does the company describe its approach to its people and pay?"
    ) == ["How big is Acme's workforce", "how does the company describe its approach to its people and pay"]
    # A yes-or-no part reads as a question, a request as a request.
    from core.agents.clauses import as_question

    assert as_question("has Acme accrued anything for it") == "Has Acme accrued anything for it?"
    assert as_question("Calculate the margin") == "Calculate the margin."
    # A question verb is not a thing asked about: "they" stays as written.
    assert "what could they cost" in split_clauses(
        "What does Acme say is its biggest risk, and what could they cost?"
    )
    # Nothing to point back to: the clause joins the one before, as before.
    assert len(split_clauses("What was revenue, and is it growing?")) == 1


def test_only_the_why_beside_a_figure_is_sent_to_mdna() -> None:
    """Beside a figure, "what drove it" is read in MD&A; another part with no Item of its own ("how does it
    describe its approach to its people") is searched in the whole filing."""
    plan = _plan(
        "How much did NVIDIA spend on research and development in fiscal 2023, what drove the increase, and how "
        "does the company describe its approach to its people and pay?"
    )
    searches = {
        s.sub_question: s.document_section for s in plan.steps if s.tool == "search_10k" and s.reason is None
    }
    why = next(q for q in searches if "drove" in q)
    people = next(q for q in searches if "approach" in q)
    assert searches[why] == "Item 7" and searches[people] is None, searches


def test_a_figure_restated_in_words_beside_its_lookups_searches_the_whole_filing() -> None:
    """A ratio the statements do not print, asked again in words beside the lookups of its inputs, is searched
    in the whole filing (where MD&A or a note may state it), not in the statements its words point to."""
    plan = _plan(
        "What is the FY2023 fixed asset turnover ratio for NVIDIA? Fixed asset turnover ratio is defined as: "
        "FY2023 revenue / (average PP&E between FY2022 and FY2023). Base your judgments on the information "
        "provided primarily in the statement of income and the statement of financial position."
    )
    (restated,) = [s for s in plan.steps if s.tool == "search_10k" and s.reason is None]
    assert "turnover ratio" in restated.sub_question and restated.document_section is None
    assert {s.document_section for s in plan.steps if s.reason} == {"Item 8"}  # the lookups read statements


def test_the_figure_a_clause_names_is_of_the_part_its_heading_or_clause_names():
    from core.agents.clauses import figure_named

    heading = "Apple FY2024 Services: revenue, growth, share of total net sales, why it grew?"
    assert figure_named(heading) == "Services revenue"
    assert figure_named("What drove revenue in the Delivery business?") == "Delivery revenue"
    # The company is no part: "Lyft 2021: revenue, …" asks about the company's revenue.
    assert figure_named("Lyft 2021: revenue, growth, why it grew") == "revenue"
