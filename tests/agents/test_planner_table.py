"""The offline planner on a table of analyst questions (the sample filing and invented companies):
which filings each step searches, in which Item, and where a calculator computes the figure asked for.

Questions and companies were written for this test; none comes from a benchmark.
"""

from __future__ import annotations

import pytest

from core.agents.base import AgentDeps
from core.agents.contracts import FilingInfo, PlannerInput
from core.agents.plan_tools import with_anchor
from core.agents.planner import offline_plan
from core.config import Settings
from core.finance.requests import figure_requests

NW = FilingInfo(
    filing_id="nw",
    label="Northwind Robotics, Inc. 10-K FY2025",
    company="Northwind Robotics, Inc.",
    fiscal_year=2025,
)
ACME = FilingInfo(
    filing_id="acme24", label="Acme Tools Corp 10-K FY2024", company="Acme Tools Corp", fiscal_year=2024
)
ACME23 = FilingInfo(
    filing_id="acme23", label="Acme Tools Corp 10-K FY2023", company="Acme Tools Corp", fiscal_year=2023
)
BOREALIS = FilingInfo(
    filing_id="bor", label="Borealis Foods Inc. 10-K FY2023", company="Borealis Foods Inc.", fiscal_year=2023
)

# (question, filings selected, expected (tool, Item, filing) of the planner's steps, in any order;
#  "*" matches any Item)
CASES: list[tuple[str, list[FilingInfo], list[tuple[str, str | None, str | None]]]] = [
    (
        "What was Northwind's total revenue for fiscal 2025?",
        [NW],
        [("search_10k", "Item 8", "nw"), ("calculator", None, "nw")],
    ),
    ("What competition risks does Northwind list?", [NW], [("search_10k", "Item 1A", "nw")]),
    ("Who are Northwind's main competitors?", [NW], [("search_10k", "Item 1", "nw")]),
    (
        "How many employees did Northwind have at the end of fiscal 2025?",
        [NW],
        [("search_10k", "Item 1", "nw")],
    ),
    ("What legal proceedings is Northwind involved in?", [NW], [("search_10k", "Item 3", "nw")]),
    ("How exposed is Northwind to interest rate risk?", [NW], [("search_10k", "Item 7A", "nw")]),
    ("Describe how Northwind manages cybersecurity risk.", [NW], [("search_10k", "Item 1C", "nw")]),
    ("What properties does Northwind lease?", [NW], [("search_10k", "Item 2", "nw")]),
    ("What executive compensation does Northwind disclose?", [NW], [("search_10k", "Item 11", "nw")]),
    (
        "What is Northwind's quick ratio for FY2025?",
        [NW],
        [("search_10k", "Item 8", "nw"), ("calculator", None, "nw")],
    ),
    (
        "What is Northwind's effective tax rate in FY2025?",
        [NW],
        [("search_10k", "Item 8", "nw"), ("calculator", None, "nw")],
    ),
    (
        "How much did Northwind pay in dividends in FY2025?",
        [NW],
        [("search_10k", "Item 8", "nw"), ("calculator", None, "nw")],
    ),
    (
        "What is Northwind's capex as a percentage of revenue in FY2025?",
        [NW],
        [("search_10k", "Item 8", "nw"), ("search_10k", "Item 8", "nw"), ("calculator", None, "nw")],
    ),
    (
        "How did Northwind's Fleet Software revenue change in FY2025?",
        [NW],
        [("search_10k", None, "nw"), ("calculator", None, "nw")],  # a segment: MD&A and notes, any Item
    ),
    (
        "What would a 100 basis point increase in SOFR do to Northwind's interest expense?",
        [NW],
        [("search_10k", "Item 7A", "nw")],  # a sensitivity the filing states, not a calculation
    ),
    ("What is the latest news about Northwind's largest customer?", [NW], [("search_web", None, None)]),
    (
        "What competition risks does Northwind list, and how does AMD's pricing affect them?",
        [NW],
        [("search_10k", "Item 1A", "nw"), ("search_web", None, None)],
    ),
    (
        "Compare Acme's and Borealis's research and development expense in FY2023.",
        [ACME, BOREALIS],
        [
            ("search_10k", "Item 8", "acme24"),
            ("calculator", None, "acme24"),
            ("search_10k", "Item 8", "bor"),
            ("calculator", None, "bor"),
        ],
    ),
    (
        "Compare the gross margin of Acme Tools and Borealis Foods.",
        [ACME, BOREALIS],
        [
            ("search_10k", "Item 8", "acme24"),
            ("calculator", None, "acme24"),
            ("search_10k", "Item 8", "bor"),
            ("calculator", None, "bor"),
        ],
    ),
    (
        "What was Borealis's revenue in FY2023?",
        [ACME, BOREALIS],
        [("search_10k", "Item 8", "bor"), ("calculator", None, "bor")],
    ),
    (
        "What risks does Acme describe about its suppliers?",
        [ACME, BOREALIS],
        [("search_10k", "Item 1A", "acme24")],
    ),
    (
        "What drove Borealis's operating margin change in FY2023?",
        [BOREALIS],
        [("search_10k", "Item 8", "bor"), ("calculator", None, "bor"), ("search_10k", "Item 7", "bor")],
    ),
    (
        "What is Borealis's days payable outstanding for FY2023? DPO is defined as: 365 * (average accounts "
        "payable between FY2022 and FY2023) / (FY2023 COGS + change in inventory between FY2022 and FY2023).",
        [BOREALIS],
        [("search_10k", "Item 8", "bor"), ("search_10k", "Item 8", "bor"), ("calculator", None, "bor")],
    ),
    (
        "Is Borealis a capital-intensive business based on FY2023 data?",
        [BOREALIS],
        [("search_10k", "Item 8", "bor"), ("search_10k", "Item 8", "bor"), ("calculator", None, "bor")],
    ),
    (
        "How did Acme's revenue change from FY2023 to FY2024?",
        [ACME23, ACME],
        [
            ("search_10k", "Item 8", "*"),
            ("calculator", None, "*"),
            ("search_10k", "Item 8", "*"),
            ("calculator", None, "*"),
        ],
    ),
    (
        "What were Acme's total assets in FY2024?",
        [ACME23, ACME],
        [("search_10k", "Item 8", "acme24"), ("calculator", None, "acme24")],  # the year picks the filing
    ),
]


def _plan(question: str, filings: list[FilingInfo]):
    deps = AgentDeps(settings=Settings())
    return offline_plan(PlannerInput(question=question, filings=filings, max_steps=10), deps)


@pytest.mark.parametrize(("question", "filings", "expected"), CASES, ids=[c[0][:50] for c in CASES])
def test_planner_table(question, filings, expected):
    plan = _plan(question, filings)
    got = [(s.tool, s.document_section, s.filing_id) for s in plan.steps]
    for tool, item, filing in expected:
        match = next(
            (
                g
                for g in got
                if g[0] == tool
                and (item == "*" or g[1] == item)
                and ((filing in ("*", None) and tool != "search_10k") or g[2] == filing or filing == "*")
            ),
            None,
        )
        assert match is not None, f"expected {(tool, item, filing)} in {got}"
        got.remove(match)
    # Web search only where the question reaches outside the filings.
    if not any(t == "search_web" for t, _, _ in expected):
        assert all(s.tool != "search_web" for s in plan.steps), got


def test_entities_years_and_units_are_kept_in_every_step():
    plan = _plan(
        "How did Northwind's Fleet Software revenue change from FY2024 to FY2025 (in USD millions)?", [NW]
    )
    search = next(s for s in plan.steps if s.tool == "search_10k")
    calc = next(s for s in plan.steps if s.tool == "calculator")
    assert "Northwind" in search.sub_question and "Fleet Software" in search.sub_question
    assert "FY2024" in search.sub_question and "FY2025" in search.sub_question
    assert "Fleet Software" in calc.sub_question and "millions" in calc.sub_question


def test_the_anchor_step_is_always_first_and_verbatim():
    for question, filings, _ in CASES[:5]:
        plan = with_anchor(_plan(question, filings), question, 10)
        assert plan.steps[0].is_anchor and plan.steps[0].sub_question == question
        assert plan.steps[0].filing_id is None and plan.steps[0].document_section is None
    # The budget holds with the anchor in it.
    question = CASES[17][0]
    assert len(with_anchor(_plan(question, [ACME, BOREALIS]), question, 3).steps) == 3


# A quarterly report of a company whose fiscal year runs ahead of the calendar (quarter ended April 30, 2024).
BOREALIS_Q1 = FilingInfo(
    filing_id="borq1",
    label="Borealis Foods Inc. 10-Q Q1 FY2025",
    company="Borealis Foods Inc.",
    fiscal_year=2025,
    form="10-Q",
    fiscal_quarter=1,
    period_end="2024-04-30",
)


@pytest.mark.parametrize(
    ("question", "named"),
    [
        # The calendar year the quarter ends in, without "fiscal": the report's own quarter.
        ("What was Borealis's revenue in Q1 2024 and how did it change?", "Q1 FY2024 and Q1 FY2025"),
        ("What was Borealis's revenue for the quarter?", "Q1 FY2025"),
    ],
)
def test_a_quarterly_reports_figures_are_asked_for_its_quarter(question: str, named: str) -> None:
    plan = _plan(question, [BOREALIS_Q1])
    calculator = next(s for s in plan.steps if s.tool == "calculator")
    assert named in calculator.sub_question
    search = next(s for s in plan.steps if s.tool == "search_10k")
    assert "Q1 FY2025" in search.sub_question


def _quarter(n: int, year: int, end: str) -> FilingInfo:
    return FilingInfo(
        filing_id=f"q{n}-{year}", label=f"Borealis Foods Inc. 10-Q Q{n} FY{year}", company="Borealis Foods Inc.",
        fiscal_year=year, form="10-Q", fiscal_quarter=n, period_end=end,
    )  # fmt: skip


# Fiscal years end June 30; listed out of order, as a library lists them.
BOREALIS_QUARTERS = [
    _quarter(3, 2024, "2024-03-31"), _quarter(1, 2024, "2023-09-30"), _quarter(1, 2025, "2024-09-30"),
    _quarter(2, 2024, "2023-12-31"),
]  # fmt: skip


def test_a_company_followed_over_its_quarters_gets_one_calculator_per_report_in_period_order() -> None:
    plan = _plan(
        "How has Borealis's operating income changed over the last four quarters?", BOREALIS_QUARTERS
    )
    calculators = [s for s in plan.steps if s.tool == "calculator"]
    assert [s.filing_id for s in calculators] == ["q1-2024", "q2-2024", "q3-2024", "q1-2025"]
    assert [s.sub_question.rsplit("for ", 1)[1] for s in calculators] == [
        "Q1 FY2024?", "Q2 FY2024?", "Q3 FY2024?", "Q1 FY2025?",
    ]  # fmt: skip


def test_a_quarter_or_the_latest_report_named_narrows_the_plan_to_it() -> None:
    plan = _plan("What was Borealis's operating income in the latest 10-Q?", BOREALIS_QUARTERS)
    assert {s.filing_id for s in plan.steps if s.tool == "calculator"} == {"q1-2025"}
    plan = _plan("What was Borealis's operating income in Q2 FY2024?", BOREALIS_QUARTERS)
    assert {s.filing_id for s in plan.steps if s.tool == "calculator"} == {"q2-2024"}


def test_a_figure_asked_by_segment_keeps_its_parts_in_the_calculator_step() -> None:
    plan = _plan("What was Acme's revenue across its business segments in FY2024?", [ACME])
    [calculator] = [s for s in plan.steps if s.tool == "calculator"]
    assert "revenue" in calculator.sub_question and "by its segments" in calculator.sub_question
    # Parts named one by one in the analyst's words travel to the calculator as they were asked.
    plan = _plan(
        "What were the sales figures for Acme's gaming and professional GPU segments in FY2024?", [ACME]
    )
    [calculator] = [s for s in plan.steps if s.tool == "calculator"]
    [request] = figure_requests(calculator.sub_question, 2024)
    assert request.by_part and request.parts_asked == "gaming and professional GPU segments"
