"""Query analysis: instruction stripping, time expressions, entities, numbers, intent, Item hints."""

from __future__ import annotations

import pytest

from core.retrieval.analysis import (
    analyze_query,
    find_time_expressions,
    is_instruction,
    strip_instructions,
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
    ("text", "years"),
    [
        ("capex in FY2018 and FY19", [2018, 2019]),
        ("fiscal 2022 versus fiscal year 2021", [2021, 2022]),
        ("as of Q2 of FY2023", [2023]),
        ("Q3 2023 results", [2023]),
        ("As of Q2'2023, is Pfizer spinning off", [2023]),
        ("the latest filing", []),
        ("revenue in 2020", [2020]),
    ],
)
def test_time_expressions(text: str, years: list[int]) -> None:
    expressions, found = find_time_expressions(text)
    assert found == years
    assert expressions


def test_relative_time_and_quarters_are_expressions() -> None:
    expressions, _ = find_time_expressions("most recent quarter vs Q4 of FY2023")
    assert "most recent quarter" in expressions and "Q4 of FY2023" in expressions


def test_entities_numbers_and_quotes() -> None:
    a = analyze_query('Did Johnson & Johnson mention "Kenvue" when revenue hit $1,577.5 million, up 12%?')
    assert "Johnson & Johnson" in a.entities
    assert "Kenvue" in a.quoted_terms
    assert a.numbers == ["1577.5", "12"]


def test_sentence_initial_words_are_not_entities() -> None:
    a = analyze_query("Roughly how many stores does Best Buy operate in FY2023?")
    assert a.entities == ["Best Buy"]
    b = analyze_query("Does Verizon pay dividends?")
    assert b.entities == ["Verizon"]


@pytest.mark.parametrize(
    ("query", "first_item"),
    [
        ("What are the key risks to the supply chain?", "Item 1A"),
        ("How did segment results and liquidity change?", "Item 7"),
        ("What does the cash flow statement show for capex?", "Item 8"),
        ("Who are the main competitors and what products compete?", "Item 1"),
        ("Is there any pending litigation or legal proceedings?", "Item 3"),
        ("What is the interest rate risk and foreign currency exposure?", "Item 7A"),
        ("Where are the headquarters and principal properties?", "Item 2"),
        ("Were the internal controls over financial reporting effective?", "Item 9A"),
        ("How is executive compensation determined?", "Item 11"),
        ("How does the company manage cybersecurity threats?", "Item 1C"),
        ("Summarise Item 7A of the filing", "Item 7A"),
    ],
)
def test_item_hints(query: str, first_item: str) -> None:
    assert analyze_query(query).item_hints[0] == first_item


def test_statement_named_in_an_instruction_still_hints_item_8() -> None:
    a = analyze_query(
        "What is the FY2019 net income for Acme? Address the question by using the line items shown in the "
        "statement of cash flows."
    )
    assert "Item 8" in a.item_hints
    assert "statement" not in a.core_query and "cash" in a.keywords


@pytest.mark.parametrize(
    ("query", "intent"),
    [
        ("What are the risks of rising interest rates?", "risk"),
        ("How does Acme's margin compare to Beta's?", "comparison"),
        ("How has revenue changed from FY2020 to FY2022?", "trend"),
        ("How much did Acme spend on capex in FY2022?", "numeric"),
        ("Who is the CEO of Acme?", "fact"),
    ],
)
def test_intent(query: str, intent: str) -> None:
    assert analyze_query(query).intent == intent


def test_density_and_abstractness_move_in_opposite_directions() -> None:
    specific = analyze_query("FY2022 EBITDA margin of AMD and capex of $1,577 million")
    abstract = analyze_query("How does the company approach its overall strategy and what drives it?")
    assert specific.term_density > 0.6 > abstract.term_density
    assert abstract.abstractness > 0.5 > specific.abstractness


@pytest.mark.parametrize(
    ("query", "line_item_word"),
    [
        ("What was 3M's capex in FY2022?", "purchases"),
        ("What is the FY2021 COGS for Nike?", "sales"),
        ("Net PPNE at year end", "equipment"),
        ("Compute the quick ratio", "receivables"),
    ],
)
def test_metric_names_expand_to_line_items(query: str, line_item_word: str) -> None:
    from core.retrieval.analysis import vector_query_text

    analysis = analyze_query(query)
    assert line_item_word in analysis.keywords
    assert line_item_word in vector_query_text(analysis)
    assert line_item_word not in analysis.core_query.lower()
