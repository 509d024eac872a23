"""The filer's judgement of how a legal matter may end, in the loss-contingency wording of its notes."""

from core.text.contingencies import judges_outcome


def test_a_judgement_of_a_matters_outcome_is_told_from_ordinary_prose() -> None:
    assert judges_outcome(
        "Although the Company believes these lawsuits are without merit and intends to vigorously defend against "
        "them, the Company has accrued amounts related to such matters when a loss is probable and reasonably "
        "estimable."
    )
    assert judges_outcome(
        "As of January 28, 2024, we have not recorded any accrual for contingent liabilities associated with the "
        "legal proceedings described above based on our belief that liabilities, while possible, are not probable."
    )
    assert judges_outcome(
        "Any possible loss or range of loss in these matters cannot be reasonably estimated."
    )
    assert judges_outcome("We cannot reasonably estimate a range of loss, if any, not covered by insurance.")
    # One word of likelihood, or an accrual that is no matter's, is ordinary prose.
    assert not judges_outcome("It is possible that demand for our products may fall.")
    assert not judges_outcome("Accrued interest was $5 million at year end.")
    assert not judges_outcome("We cannot predict the demand for our products in future periods.")
    assert not judges_outcome(
        "The Company had lower income, primarily driven by the accrual of litigation costs related to talc."
    )
    assert not judges_outcome("On February 8, 2022, the parties reached an agreement in principle to settle.")
