"""Tokenizer behaviour on financial text."""

from __future__ import annotations

import pytest

from core.text.tokens import STOPWORDS, fold_plural, normalize_number, stem, tokenize


@pytest.mark.parametrize(
    ("query", "document"),
    [
        ("1,577", "Total revenue was $1,577 million."),
        ("$1,577.00", "revenue of 1,577"),
        ("12.5%", "grew 12.50 percent"),
        ("1,234", "a loss of $(1,234)"),
    ],
)
def test_number_forms_match(query: str, document: str) -> None:
    assert set(tokenize(query)) <= set(tokenize(document))


def test_numbers_are_normalised() -> None:
    assert tokenize("$1,577.00 12.50% 0.05 (3,000)") == ["1577", "12.5", "0.05", "3000"]
    assert normalize_number("$") is None


def test_comma_lists_of_years_split() -> None:
    assert tokenize("2021,2022 and 2023,") == ["2021", "2022", "2023"]


def test_items_and_forms_are_single_tokens() -> None:
    tokens = tokenize("See Item 1A, Item 7 and ITEM 7A of our Form 10-K and 8-K.")
    assert {"item_1a", "item_7", "item_7a", "10-k", "8-k"} <= set(tokens)
    assert "1a" not in tokens and "10" not in tokens


def test_stopwords_and_case() -> None:
    tokens = tokenize("What is THE Net Income of the company?")
    assert tokens == ["net", "income", "company"]
    assert "the" in tokenize("the company", keep_stopwords=True)
    assert not (set(tokenize("of the and to in with")) & STOPWORDS)


def test_hyphenated_compound_and_parts() -> None:
    tokens = tokenize("long-term debt")
    assert tokens == ["long-term", "long", "term", "debt"]
    # The query "long term" therefore matches text written "long-term".
    assert set(tokenize("long term")) <= set(tokens)


def test_possessive_and_plurals() -> None:
    assert tokenize("NVIDIA's liabilities and revenues") == ["nvidia", "liability", "revenue"]
    assert fold_plural("business") == "business"
    assert fold_plural("analysis") == "analysis"
    assert fold_plural("gas") == "gas"
    assert tokenize("revenues", fold_plurals=False) == ["revenues"]


def test_alphanumeric_names_kept() -> None:
    assert tokenize("3M reported Q3 results") == ["3m", "reported", "q3", "result"]


def test_fiscal_years_match_plain_years() -> None:
    assert tokenize("FY2023") == ["fy2023", "2023"]
    assert tokenize("FY23 and FY 2023 and FY'23") == ["fy2023", "2023"] * 3
    assert "2023" in tokenize("fiscal 2023")


def test_a_noun_in_ual_meets_its_verb() -> None:
    """ "Has it accrued anything?" is answered by "we have not recorded any accrual"."""
    assert {stem(w) for w in ("accrual", "accruals", "accrued", "accrue", "accruing")} == {"accru"}
    assert stem("annual") == "annual"  # too short to strip
