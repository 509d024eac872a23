"""Whether a sentence says something has happened, or only that it may."""

from core.text.modality import states_it_happened


def test_what_has_happened_is_told_from_what_may() -> None:
    assert states_it_happened(
        "We have also written-down our inventory, incurred cancellation penalties, and more."
    )
    assert states_it_happened("This mismatch has resulted in both product shortages and excess inventory.")
    assert states_it_happened("The Company has implemented changes to the App Store in the EU.")
    # A modal or a condition anywhere in it: what may be (a broader reading, which let "… has continued to
    # impact our business, and such impact could worsen" in, chose worse cards end to end).
    assert not states_it_happened("Failure to estimate demand has led and could lead to mismatches.")
    assert not states_it_happened("If we overestimate demand, we may not be able to reduce our inventory.")
    assert not states_it_happened(
        "In the past, we have experienced lower prices, and we may need to continue them."
    )
    # Someone else's doing, or no perfect tense.
    assert not states_it_happened("Competitors have introduced lower-priced products.")
    assert not states_it_happened("We believe that drivers are independent contractors.")
