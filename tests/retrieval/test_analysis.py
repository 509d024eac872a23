"""Query analysis: entities, numbers, intent, Item hints, statements and line items asked for."""

from __future__ import annotations

import pytest

from core.retrieval.analysis import analyze_query


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
        ("Compute the quick ratio", "receivable"),
    ],
)
def test_metric_names_expand_to_line_items(query: str, line_item_word: str) -> None:
    from core.retrieval.analysis import vector_query_text

    analysis = analyze_query(query)
    assert line_item_word in analysis.keywords
    assert line_item_word in vector_query_text(analysis)
    assert line_item_word not in analysis.core_query.lower()
