"""Offline strategy supervisor on a table of example sub-questions."""

from __future__ import annotations

import pytest

from core.retrieval.analysis import analyze_query
from core.retrieval.strategy_rules import strategy_by_rules


@pytest.mark.parametrize(
    ("sub_question", "strategy", "signal"),
    [
        ('Find mentions of "export controls" in the filing', "keyword", "quoted"),
        ("FY2023 capex of $1,577 million in the cash flow statement", "keyword", "numbers"),
        ("Item 7A interest rate sensitivity table, EBITDA and EPS", "keyword", "Item reference"),
        ("How does the company think about its long-term strategy?", "vector", "abstract"),
        ("Describe the overall competitive landscape and how it is changing", "vector", "abstract"),
        ("What are the main challenges the business faces?", "vector", "specific terms"),
        ("What drove AMD's growth in FY2022?", "hybrid", "abstract"),
        ("How does NVIDIA position CUDA against AMD's ROCm?", "hybrid", "acronyms"),
        # Figures from the statements: metric acronyms are not what the rows say, so both rankings.
        (
            "What is the FY2018 DPO for Walmart, using COGS and average accounts payable?",
            "hybrid",
            "balance sheet",
        ),
        (
            "How did NVIDIA's data center revenue change between FY2022 and FY2023?",
            "hybrid",
            "income statement",
        ),
    ],
)
def test_strategy_table(sub_question: str, strategy: str, signal: str) -> None:
    decision = strategy_by_rules(analyze_query(sub_question))
    assert decision.strategy == strategy, decision.justification
    assert signal in decision.justification
    assert decision.justification.startswith(f"Chose {strategy}:")
    assert decision.justification.count(".") >= 1 and "\n" not in decision.justification
    assert decision.decided_by == "offline"


def test_no_signal_is_hybrid_and_says_so() -> None:
    decision = strategy_by_rules(analyze_query("Tell me about Acme"))
    assert decision.strategy in {"hybrid", "vector"}
    assert decision.justification
