"""Sentence splitting, boilerplate detection and table rows used by extractive reading."""

from __future__ import annotations

from core.text.sentences import (
    is_boilerplate,
    list_item_lead_ins,
    normalise_ws,
    sentence_starts,
    sequel,
    split_sentences,
)
from core.text.tokens import content_terms


def test_sentences_are_verbatim_and_respect_abbreviations() -> None:
    text = "NVIDIA Corp. designs GPUs. Revenue was $26.97 billion in the U.S. and abroad.\n\nWe compete."
    sentences = split_sentences(text)
    assert sentences == [
        "NVIDIA Corp. designs GPUs.",
        "Revenue was $26.97 billion in the U.S. and abroad.",
        "We compete.",
    ]
    assert all(s in text for s in sentences)


def test_a_blank_line_ends_a_sentence_even_after_an_abbreviation() -> None:
    # A risk factor's heading ending "... outside of the U.S." is its own paragraph, not part of the next.
    text = "It depends on partners located outside of the U.S.\n\nSubstantially all manufacturing is in Asia."
    assert split_sentences(text) == [
        "It depends on partners located outside of the U.S.",
        "Substantially all manufacturing is in Asia.",
    ]


def test_an_initial_does_not_end_a_sentence() -> None:
    text = "A claim by 25 drivers, including Mr. Y. Aslam, was brought in 2015. The Tribunal ruled for them."
    assert split_sentences(text) == [
        "A claim by 25 drivers, including Mr. Y. Aslam, was brought in 2015.",
        "The Tribunal ruled for them.",
    ]


def test_questions_split_like_passages() -> None:
    assert split_sentences("Is U.S. revenue up? Yes. See Acme Inc. filings.") == [
        "Is U.S. revenue up?",
        "Yes.",
        "See Acme Inc. filings.",
    ]


def test_clauses_split_at_semicolons_and_bullets_but_chunks_only_at_sentence_ends() -> None:
    text = 'Margins fell; Costs rose. He said "sales grew." (a) Not a sentence end • bullet one'
    assert split_sentences(text) == [
        "Margins fell;",
        "Costs rose.",
        'He said "sales grew."',
        "(a) Not a sentence end",
        "bullet one",
    ]
    # Chunks are cut only where a sentence ends: after "rose." and after the closing quote.
    assert [text[i : i + 3] for i in sentence_starts(text)] == ["Mar", "He ", "(a)"]


def test_boilerplate() -> None:
    assert is_boilerplate("This report contains forward-looking statements within the meaning of the Act.")
    assert is_boilerplate("Item 1A. Risk Factors")
    assert is_boilerplate("Table of Contents")
    assert is_boilerplate("Business ........ 4   Risk Factors ........ 12")
    assert not is_boilerplate(
        "We face intense competition from large companies and from start-ups in every market."
    )


def test_a_pointer_to_another_part_of_the_filing_is_boilerplate() -> None:
    assert is_boilerplate(
        "See further discussion of fixed-price contracts in Note 13 to our Financial Statements."
    )
    assert is_boilerplate("For additional information, see Item 7 of this Annual Report.")
    assert is_boilerplate("For more information about these risks, see Part I, Item 1A.")
    assert not is_boilerplate("Seeing strong demand, we expanded production in Note 3 markets across Asia.")
    assert not is_boilerplate("We see further growth in the categories described in Item 1 of this report.")


def test_terms_stem_plurals_together() -> None:
    assert set(content_terms("risks competitors expenses")) == set(content_terms("risk competitor expense"))
    assert normalise_ws("a\u00a0 b\n c ’") == "a b c '"


def test_certifications_and_update_disclaimers_are_boilerplate():
    from core.text.sentences import is_boilerplate

    assert is_boilerplate("I have reviewed this quarterly report on Form 10-Q of Intel Corporation;")
    assert is_boilerplate('Each of the terms the "Company" and "Apple" as used herein refers to Apple Inc.')
    assert is_boilerplate("Based on my knowledge, this report does not contain any untrue statement.")
    # Wherever a PDF breaks its lines.
    assert is_boilerplate("You should read this Quarterly Report on\nForm 10-Q completely and with care.")
    assert is_boilerplate(
        "Readers are urged to carefully review and consider the various disclosures made in this report."
    )
    assert is_boilerplate(
        "Intel does not undertake, and expressly disclaims any duty, to update such statements."
    )
    assert is_boilerplate(
        'Refer to "Note 13: Contingencies" within the Notes to Financial Statements for further information.'
    )
    assert not is_boilerplate(
        "We recorded $800 million of employee severance expenses related to these job eliminations."
    )


def test_list_items_know_the_sentence_that_introduces_them() -> None:
    text = (
        "We expect competition to increase. Our current competitors include:\n\n"
        "•suppliers of discrete GPUs, such as Brightline Inc.;\n\n"
        "•large cloud services companies with internal chip teams; and\n\n"
        "Competition is intense."
    )
    sentences = split_sentences(text)
    lead_ins = dict(zip(sentences, list_item_lead_ins(text, sentences), strict=True))
    assert (
        lead_ins["suppliers of discrete GPUs, such as Brightline Inc.;"] == "Our current competitors include:"
    )
    assert lead_ins["large cloud services companies with internal chip teams; and"] == (
        "Our current competitors include:"
    )
    # The lead-in itself and the sentence after the list are no item.
    assert lead_ins["Our current competitors include:"] is None
    assert lead_ins["Competition is intense."] is None


def test_a_bulleted_item_at_a_passage_start_is_an_item_and_a_cut_sentence_is_not() -> None:
    bulleted = "•large cloud services companies with internal teams designing chips, such as Kestrel;"
    assert list_item_lead_ins(bulleted, split_sentences(bulleted)) == [""]
    cut = "23, 2023, the regulator informed us.\n\nthe rest of a sentence cut at a page."
    assert list_item_lead_ins(cut, split_sentences(cut)) == [None, None]
    # A lead-in cut at the passage's start introduces nothing its items could be read with.
    cut_lead_in = "demand and supply, and hurt our results, including:\n\n•write-downs of inventory;"
    assert list_item_lead_ins(cut_lead_in, split_sentences(cut_lead_in))[-1] == ""


def test_a_sequel_is_the_next_sentence_when_it_carries_on_with_also() -> None:
    passage = (
        "Export controls have impacted and may in the future impact demand for our products. Reduced demand due "
        "to export controls could also lead to excess inventory. In addition, our suppliers may be affected. "
        "Also, regulators may inquire about our sales."
    )
    first, second, third, _ = split_sentences(passage)
    assert sequel(first, passage) == second
    assert sequel(second, passage) == ""  # "In addition, …" starts a point of its own
    assert sequel(third, passage) == ""  # and so does "Also, …"
