"""How a question reads: instructions apart from the information need, and the words of what it asks."""

from __future__ import annotations

import pytest

from core.finance.question import (
    asks_for_change,
    asks_why,
    direction,
    is_instruction,
    strip_instructions,
    unit_asked,
)


@pytest.mark.parametrize(
    ("query", "must_keep", "must_drop"),
    [
        (
            "What is the FY2018 capital expenditure amount (in USD millions) for 3M? Give a response to the "
            "question by relying on the details shown in the cash flow statement.",
            ["FY2018 capital expenditure", "3M"],
            ["USD millions", "Give a response", "relying"],
        ),
        (
            "Assume that you are a public equities analyst. Answer the following question by primarily using "
            "information that is shown in the balance sheet: what is the year end FY2018 net PPNE for 3M?",
            ["net PPNE", "3M"],
            ["Assume", "equities analyst", "primarily using"],
        ),
        (
            "In agreement with the information outlined in the income statement, what is the FY2015 - FY2017 "
            "3 year average net profit margin (as a %) for Best Buy? Answer in units of percents and round to "
            "one decimal place.",
            ["net profit margin", "Best Buy"],
            ["In agreement", "Answer in units", "decimal place"],
        ),
        (
            "We want to calculate a financial metric. Please help us compute it by basing your answers off of "
            "the cash flow statement. Here's the question: what is the FY2022 retention ratio for General Mills? "
            "Round answer to two decimal places.",
            ["retention ratio", "General Mills"],
            ["We want", "Here's the question", "Round answer"],
        ),
        (
            "Does Verizon have a healthy liquidity profile based on its quick ratio for FY 2022? If the quick "
            "ratio is not relevant to measure liquidity, please state that and explain why.",
            ["liquidity profile", "quick ratio for FY 2022"],
            ["please state", "explain why"],
        ),
    ],
)
def test_instruction_boilerplate_is_removed(query: str, must_keep: list[str], must_drop: list[str]) -> None:
    core, removed = strip_instructions(query)
    for text in must_keep:
        assert text in core
    for text in must_drop:
        assert text not in core
    assert removed


def test_definitions_are_kept_as_part_of_the_need() -> None:
    core, _ = strip_instructions(
        "What is the FY2017 operating cash flow ratio for Adobe? Operating cash flow ratio is defined as: "
        "cash from operations / total current liabilities. Round your answer to two decimal places."
    )
    assert "total current liabilities" in core and "Round" not in core


def test_a_plain_question_is_untouched() -> None:
    query = "What are the main competition risks NVIDIA describes?"
    assert strip_instructions(query) == (query, [])
    assert not is_instruction(query)


def test_all_instruction_query_falls_back_to_itself() -> None:
    query = "Round your answer to two decimal places."
    assert strip_instructions(query)[0] == query


@pytest.mark.parametrize(
    ("text", "moved"),
    [
        ("Did it grow its PP&E?", 1),
        ("Has debt decreased since last year?", -1),
        ("revenue rose 12% while margins fell", 0),
        ("Net income was $4.0 million", 0),
        ("gross margin improved", 1),
        ("costs were lowered", -1),
    ],
)
def test_direction_is_read_the_same_in_questions_and_filings(text: str, moved: int) -> None:
    assert direction(text) == moved


def test_change_and_unit_words() -> None:
    assert asks_for_change("How has the margin changed compared with FY2021?")
    assert asks_for_change("Is the trajectory improving?")
    assert not asks_for_change("What was revenue in FY2022?")
    assert unit_asked("in USD millions") == "millions" and unit_asked("What was revenue?") is None


def test_an_abbreviation_does_not_end_a_clause():
    from core.finance.question import clause_texts

    assert clause_texts("What risks does it flag around U.S. export controls in the FY2024 10-K?") == [
        "What risks does it flag around U.S. export controls in the FY2024 10-K"
    ]
    assert clause_texts("What was revenue in 2023. What was net income?") == [
        "What was revenue in 2023",
        "What was net income",
    ]


def test_a_question_word_after_a_preposition_opens_a_clause():
    from core.finance.question import clause_texts

    assert clause_texts("Who does NVIDIA name as its competitors, and on what factors does it compete?") == [
        "Who does NVIDIA name as its competitors",
        "on what factors does it compete",
    ]
    assert clause_texts("What risks does Apple see and in which markets does it sell?") == [
        "What risks does Apple see",
        "in which markets does it sell",
    ]
    # A preposition before a period or a figure opens nothing.
    assert clause_texts("What was revenue in 2023 and in 2022?") == ["What was revenue in 2023 and in 2022"]


def test_give_is_an_instruction_only_when_it_asks_for_the_answer_itself():
    from core.finance.question import is_instruction

    assert is_instruction("Give a solution to the question by using the income statement.")
    assert is_instruction("Please provide your answer in USD millions.")
    assert not is_instruction("Give SBC as a % of revenue.")


@pytest.mark.parametrize(
    ("question", "why"),
    [
        ("What factors drove the decline in gross margin?", True),
        ("Why did operating expenses rise in fiscal 2023?", True),
        ("What risk factors does the 10-Q point to?", False),  # a section's name, not a reason asked for
        ("List the risk factors about competition, and what caused revenue to fall.", True),
    ],
)
def test_asks_why_reads_risk_factors_as_a_section(question, why):
    assert asks_why(question) is why
