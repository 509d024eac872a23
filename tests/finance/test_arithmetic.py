"""Safe arithmetic, figure parsing, and growth, ratio and difference over figures stated in evidence."""

from __future__ import annotations

import pytest

from core.finance.arithmetic import (
    CalculationError,
    difference,
    evaluate,
    figure_value,
    growth_rate,
    is_expression,
    ratio,
)
from core.finance.evidence_figures import detect_operation, metric_parts, run_calculations
from core.models import Evidence
from core.text.figures import find_figures, parse_figure
from core.text.periods import fiscal_years


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("1 + 2 * 3", 7.0),
        ("(1 + 2) * 3", 9.0),
        ("2 ** 10", 1024.0),
        ("-(4 - 10) / 3", 2.0),
        ("$1,234 + 766", 2000.0),
        ("12.5% * 200", 25.0),
        ("(26,974 - 26,914) / 26,914 * 100", pytest.approx(0.22293, rel=1e-3)),
    ],
)
def test_evaluate_arithmetic(expression: str, expected: float) -> None:
    assert evaluate(expression) == expected


@pytest.mark.parametrize(
    "expression",
    [
        "__import__('os').system('true')",
        "open('x')",
        "a + 1",
        "[1, 2]",
        "1 if 1 else 2",
        "9 ** 9 ** 9",
        "1 / 0",
    ],
)
def test_evaluate_rejects_anything_but_arithmetic(expression: str) -> None:
    with pytest.raises(CalculationError):
        evaluate(expression)


def test_is_expression_only_for_arithmetic() -> None:
    assert is_expression("(15,005 - 10,613) / 10,613")
    assert not is_expression("revenue growth")
    assert not is_expression("2023")


def test_helpers() -> None:
    assert growth_rate(100, 125) == 25.0
    assert growth_rate(-50, -25) == 50.0
    assert ratio(1, 4) == 0.25
    assert difference(10, 4) == 6
    with pytest.raises(CalculationError):
        growth_rate(0, 5)
    with pytest.raises(CalculationError):
        ratio(1, 0)


def test_figures_from_filing_text() -> None:
    assert figure_value("$26,974 million") == 26_974e6
    assert figure_value("(1,234)") == -1234
    negative = parse_figure("a loss of (1,234) in 2022")
    assert negative is not None and negative.value == -1234
    pct = parse_figure("up 12.5% from a year ago")
    assert pct is not None and pct.is_percent and pct.value == 12.5
    assert [f.value for f in find_figures("$15.01 billion, up 41% in fiscal 2023")] == [15.01e9, 41.0]
    # A typographic minus attached to a figure is a sign; between two figures it is the working's operator.
    assert [f.value for f in find_figures("−$962 million, −3.5%")] == [-962e6, -3.5]
    assert [f.value for f in find_figures("7,453 − 5,175")] == [7453, 5175]
    # The day of a date is not a figure (two dates of one year are not two values of a "December" metric).
    dates = "As of December 31, 2022 and Sept. 24, 2022, deferred revenue was $12.6 billion over 12 months"
    assert [f.raw for f in find_figures(dates)] == ["$12.6 billion", "12"]
    assert fiscal_years("fiscal year 2023 compared with fiscal 2022") == [2023, 2022]


def _ev(eid: str, text: str) -> Evidence:
    return Evidence(evidence_id=eid, kind="filing", text=text, chunk_id=eid)


def test_growth_from_earlier_evidence_per_metric() -> None:
    prior = [
        _ev(
            "S1-E1",
            "Total revenue grew 17.9% to $422.6 million in fiscal 2025 from $358.5 million in fiscal 2024.",
        ),
        _ev(
            "S1-E2",
            "Fleet Software revenue increased 44.0% to $112.5 million from $78.1 million in fiscal 2024.",
        ),
        _ev("S1-E3", "Research and development expense increased from $71.9 million to $86.3 million."),
    ]
    question = "How did Fleet Software revenue and R&D spending change in FY2025?"
    assert detect_operation(question) == "growth"
    assert len(metric_parts(question)) == 2
    outcomes = run_calculations(question, [], prior, step_index=1)
    assert [o.source_evidence_ids for o in outcomes] == [["S1-E2"], ["S1-E3"]]
    assert "+44.0%" in outcomes[0].note
    # "from X to Y" names the prior figure first.
    assert "+20.0%" in outcomes[1].note
    assert all(o.evidence is not None and o.evidence.kind == "calculation" for o in outcomes)


def test_calculation_without_figures_says_so() -> None:
    outcomes = run_calculations(
        "What was the growth in headcount?", [], [_ev("S1-E1", "We hire.")], step_index=1
    )
    assert outcomes[0].evidence is None
    assert "no compared pair of figures" in outcomes[0].note


def test_explicit_expression_in_keywords() -> None:
    outcomes = run_calculations("Compute the margin", ["expr: (10 - 4) / 10"], [], step_index=2)
    assert outcomes[0].note.endswith("= 0.6")


def test_ratio_between_two_figures() -> None:
    prior = [
        _ev("S1-E1", "Research and development expenses were $7,339 million in fiscal 2023."),
        _ev("S1-E2", "Revenue for fiscal 2023 was $26,974 million."),
    ]
    out = run_calculations(
        "What is the ratio of research and development expenses to revenue?", [], prior, step_index=1
    )
    assert out[0].operation == "ratio"
    assert "27.2%" in out[0].note
    assert out[0].source_evidence_ids == ["S1-E1", "S1-E2"]
