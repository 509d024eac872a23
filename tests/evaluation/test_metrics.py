"""Reference metrics on hand-built cases with known values, and number normalisation."""

from __future__ import annotations

import pytest

from core.evaluation.metrics import (
    citation_validity,
    context_precision,
    context_recall,
    faithfulness,
    gold_page_hit,
    headline,
    reference_metrics,
    token_f1,
)
from core.evaluation.numbers import figures_stated, main_figures, quantities, without_workings
from core.models import Citation, EvalContext, EvalQuestion, SystemAnswer

Q = EvalQuestion(
    qid="q1",
    question="What was FY2018 capital expenditure?",
    answer="$1,577 million",
    filing="acme.pdf",
    evidence_texts=["Purchases of property, plant and equipment (1,577) (1,373)"],
    evidence_pages=[60],
)


def ctx(page: int, text: str = "unrelated words about something else", filing: str = "F") -> EvalContext:
    return EvalContext(chunk_id=f"c{page}", filing_id=filing, page=page, text=text)


@pytest.mark.parametrize(
    ("reference", "question", "answer", "hits"),
    [
        ("$26,974 million", "", "26.974 billion", 1),
        ("26974", "", "revenue was $26,974 million", 1),  # one side states no unit: as printed
        ("$1577.00", "What was capex (in USD millions)?", "$1,577 million", 1),
        ("$8.70", "How much (in USD billions)?", "$8,738 million", 1),  # within 1% in the units both state
        ("$8.70", "How much?", "$8,738 million", 0),  # no unit on the reference's side: 8.70 is not 8,738
        ("(1,234)", "", "decreased by 1,234", 1),  # parentheses are negatives; signs are ignored
        ("-3.0%", "", "down 3.0 percentage points", 1),
        ("24.6%", "", "0.246", 1),  # percent vs fraction
        ("0.66", "", "66%", 1),
        ("12.5%", "", "13%", 0),  # outside the 1% tolerance and the reference's rounding
        ("20%", "", "20.4%", 1),  # a reference rounded to a whole percent
        ("In 2019 it had 5 plants", "", "2019", 0),  # years are not figures; "5" is
        ("0.69", "", "cash 689 and receivables", 0),  # no power of a thousand is guessed
        ("$1.6 billion", "", "$1,577 million", 1),  # the reference's rounding
        ("$0.55 per share", "", "$0.55 billion", 0),  # a per-share figure is not an amount
    ],
)
def test_figures_are_compared_through_the_units_both_sides_state(reference, question, answer, hits):
    assert figures_stated(reference, question, answer)[0] == hits


def test_the_main_figure_is_the_first_and_the_end_of_a_move():
    assert [
        q.number for q in main_figures("The quick ratio improved from 0.67 times to 0.69 times (3.4%)")
    ] == [
        0.67,
        0.69,
    ]
    assert [q.number for q in main_figures("No. Microsoft decreased its debt by $2.5bn in FY 2023")] == [2.5]
    assert main_figures("$1577.00", "What is capex (in USD millions)?")[0].value == 1577e6
    # A date's day, a numbered list's item number and a note's number are no figures of any reference.
    dated = "Apple disclosed that as of December 31, 2022, the Company had $1.7 billion of Commercial Paper."
    assert [q.raw for q in main_figures(dated)] == ["$1.7 billion"]
    listed = "Yes. Specifically:\n\n1. In Note 4, Microsoft reported $18.7 billion of commercial paper."
    assert [q.raw for q in main_figures(listed)] == ["$18.7 billion"]


def test_a_wrong_answer_whose_working_holds_the_digits_does_not_pass():
    question = Q.model_copy(
        update={"question": "Has the quick ratio improved?", "answer": "It improved from 0.67 to 0.69."}
    )
    wrong = _answer(
        "## Answer\n\n- **Quick ratio: FY2022 0.53; FY2023 0.57** — (689 + 1,321) / 3,800 = 0.53 [1]\n",
        {1: ("c1", "x")},
    )
    metrics = {m.name: m.value for m in reference_metrics(question, wrong, {}, "F")}
    assert metrics["number_match"] == 0.0
    right = _answer(
        "## Answer\n\n- **Quick ratio: FY2022 0.67; FY2023 0.69** — 1 / 2 = 0.5 [1]\n", {1: ("c1", "x")}
    )
    assert {m.name: m.value for m in reference_metrics(question, right, {}, "F")}["number_match"] == 1.0
    assert without_workings("- **A: 0.53** — 689 / 1,300 = 0.53 [1]") == "- **A: 0.53**"


def test_quantities_skip_years_codes_and_keep_units():
    found = quantities("FY2019 revenue in the 10-K (S1-E2) was $6.5 billion, up 12% from 2018")
    assert [(q.value, q.percent) for q in found] == [(6.5e9, False), (12.0, True)]
    assert quantities("1,577", default_scale=1e6)[0].value == 1577e6


def test_context_precision_and_recall_zero_partial_perfect():
    assert context_precision(Q, [ctx(1), ctx(2)], "F") == 0.0
    assert context_precision(Q, [ctx(60), ctx(2)], "F") == 1.0
    assert context_precision(Q, [ctx(2), ctx(60)], "F") == pytest.approx(0.5)  # relevant only at rank 2
    assert context_recall(Q, [ctx(2)], "F") == 0.0 and context_recall(Q, [ctx(60)], "F") == 1.0
    # The right page of another filing does not count.
    assert gold_page_hit(Q, [ctx(60, filing="G")], "F") == 0.0
    # Gold evidence text on another page counts (a filing may repeat a table).
    text = ctx(5, "Purchases of property, plant and equipment (1,577) (1,373) (1,420)")
    assert gold_page_hit(Q, [text], "F") == 1.0
    two = Q.model_copy(update={"evidence_pages": [60, 61], "evidence_texts": ["a", "b"]})
    assert context_recall(two, [ctx(61)], "F") == pytest.approx(0.5)
    assert (
        context_precision(Q.model_copy(update={"evidence_pages": [], "evidence_texts": []}), [], "F") is None
    )


def _answer(text: str, quotes: dict[int, tuple[str, str]]) -> SystemAnswer:
    citations = [
        Citation(number=n, evidence_id=f"S1-E{n}", quote=quote, chunk_id=cid)
        for n, (cid, quote) in quotes.items()
    ]
    return SystemAnswer(system="deep", answer=text, citations=citations)


def test_faithfulness_and_citation_validity():
    chunks = {"c1": "Capital expenditures were $1,577 million in 2018.", "c2": "Revenue was $32,765 million."}
    good = _answer(
        "## Answer\n\n- Capital expenditures were $1,577 million [1]\n",
        {1: ("c1", "Capital expenditures were $1,577 million in 2018.")},
    )
    assert faithfulness(good, chunks) == 1.0
    # A figure the cited passage does not hold is not supported.
    bad = _answer(
        "## Answer\n\n- Capital expenditures were $2,000 million [1]\n", {1: ("c1", "Capital expenditures")}
    )
    assert faithfulness(bad, chunks) == 0.0
    half = _answer(
        "## Answer\n\n- Capital expenditures were $1,577 million [1]\n- Net income was $9 million [2]\n",
        {1: ("c1", "not in the passage"), 2: ("c2", "Revenue was $32,765 million.")},
    )
    assert faithfulness(half, chunks) == pytest.approx(0.5)
    # A computed figure is supported by its inputs, shown before the "=".
    computed = _answer(
        "## Answer\n\n- **Ratio: 20.78** — 32,765 / 1,577 = 20.78 [1][2]\n", {1: ("c1", "a"), 2: ("c2", "b")}
    )
    assert faithfulness(computed, chunks) == 1.0
    # An average's "/ 2" is the formula's, not a figure the passages must hold; an input they lack still fails.
    averaged = _answer(
        "## Answer\n\nRatio was 20.78 in FY2018 [1][2].\n\n- **Ratio (FY2018): 20.78** — 32,765 / ((1,577 + 1,577) / 2)"
        " = 20.78 [1][2]\n",
        {1: ("c1", "a"), 2: ("c2", "b")},
    )
    assert faithfulness(averaged, chunks) == 1.0
    unread = _answer(
        "## Answer\n\n- **Ratio (FY2018): 20.78** — 32,765 / ((1,577 + 1,500) / 2) = 21.29 [1][2]\n",
        {1: ("c1", "a"), 2: ("c2", "b")},
    )
    assert faithfulness(unread, chunks) == 0.0
    days = _answer(
        "## Answer\n\n- **Days (FY2018): 17.57 days** — 365 × 1,577 / 32,765 = 17.57 days [1][2]\n",
        {1: ("c1", "a"), 2: ("c2", "b")},
    )
    assert faithfulness(days, chunks) == 1.0
    # A quoted table row in the paragraph is one claim with its citation, not a claim per cell.
    quoted_row = _answer(
        "## Answer\n\nThe filing states: “Capital expenditures were $1,577 million in 2018; Revenue was $32,765 "
        "million” [1][2].\n",
        {1: ("c1", "a"), 2: ("c2", "b")},
    )
    assert faithfulness(quoted_row, chunks) == 1.0
    # The report prints its quotation marks plain.
    plain = quoted_row.model_copy(update={"answer": quoted_row.answer.replace("“", '"').replace("”", '"')})
    assert faithfulness(plain, chunks) == 1.0
    # A step's summary prints the same computed figure with a plain dash before its working.
    summarised = _answer(
        "## Answer\n\n- Ratio: 20.78, up $31,188 - 32,765 / 1,577 = 20.78 [1][2]\n",
        {1: ("c1", "a"), 2: ("c2", "b")},
    )
    assert faithfulness(summarised, chunks) == 1.0
    # A grouped mark cites each of its numbers, as the report validator reads it.
    grouped = _answer(
        "## Answer\n\n- **Ratio: 20.78** — 32,765 / 1,577 = 20.78 [1, 2]\n", {1: ("c1", "a"), 2: ("c2", "b")}
    )
    assert faithfulness(grouped, chunks) == 1.0
    assert citation_validity(good.citations, chunks) == 1.0
    assert citation_validity(bad.citations + half.citations, chunks) == pytest.approx(2 / 3)
    assert citation_validity([], chunks) is None


def test_answer_metrics_read_the_headline_first():
    text = "## Answer\n\n- **Capex (FY2018): $1,577 million** [1]\n\n### 1. Step\n- Revenue $1,000 [1]\n"
    assert headline(text).strip().startswith("- **Capex")
    answer = _answer(text, {1: ("c1", "Capital expenditures were $1,577 million in 2018.")})
    metrics = {m.name: m.value for m in reference_metrics(Q, answer, {"c1": answer.citations[0].quote}, "F")}
    assert metrics["number_match"] == 1.0 and metrics["answer_correctness"] == 1.0
    assert metrics["refusal"] == 0.0 and metrics["citation_validity"] == 1.0
    late = _answer(
        "## Answer\n\n- Revenue $1,000 [1]\n\n### 1. Step\n- Capex $1,577 million [1]\n", {1: ("c1", "x")}
    )
    metrics = {m.name: m.value for m in reference_metrics(Q, late, {}, "F")}
    assert metrics["number_match"] == 0.0 and metrics["number_anywhere"] == 1.0
    # A figure computed by another definition names the input it lacked: that is an answer, not a refusal.
    other_definition = _answer(
        "## Answer\n\n- **Quick ratio: 0.71** — (36,728 − 3,055) / 47,160 = 0.71 (defined as (total current "
        "assets - inventories) / total current liabilities, as short-term investments is not reported) [1]\n",
        {1: ("c1", "x")},
    )
    assert {m.name: m.value for m in reference_metrics(Q, other_definition, {}, "F")}["refusal"] == 0.0
    missing = _answer(
        "## Answer\n\n- Capex (FY2018): not computed — capex for FY2018 not found [1]\n", {1: ("c1", "x")}
    )
    assert {m.name: m.value for m in reference_metrics(Q, missing, {}, "F")}["refusal"] == 1.0
    assert token_f1("Gross margin improved", "gross margin improved") == 1.0
    assert token_f1("a b c", "") == 0.0


def test_a_paragraph_is_read_sentence_by_sentence_and_may_restate_a_supported_computation():
    chunks = {"c1": "Capital expenditures were $1,577 million in 2018.", "c2": "Revenue was $32,765 million."}
    quotes = {1: ("c1", "a"), 2: ("c2", "b")}
    answer = _answer(
        "## Answer\n\nThe ratio was 20.78 in FY2018 [1][2]. Capital expenditures were $1,577 million [1].\n\n"
        "- **Ratio (FY2018): 20.78** — 32,765 / 1,577 = 20.78 [1][2]\n",
        quotes,
    )
    assert faithfulness(answer, chunks) == 1.0  # three claims: two sentences and the working
    # A restated figure that no supported working computed is not supported.
    made_up = _answer(
        "## Answer\n\nThe ratio was 31.5 in FY2018 [1][2]. Capital expenditures were $1,577 million [1].\n",
        quotes,
    )
    assert faithfulness(made_up, chunks) == pytest.approx(0.5)


def test_parts_answered_counts_each_listed_part_by_its_figures_or_its_key_phrases():
    from core.evaluation.metrics import parts_answered
    from core.models import EvalPart

    question = Q.model_copy(
        update={
            "parts": [
                EvalPart(part="figure", figures=["8,675"]),
                EvalPart(part="derived", figures=["18.2%"]),
                EvalPart(part="why", key_phrases=["compensation and benefits", "employee growth"]),
                EvalPart(part="note"),  # says neither: not judged
            ]
        }
    )
    full = "R&D was $8,675 million, up 18.2%, driven by compensation and benefits reflecting employee growth."
    assert parts_answered(question, full) == 1.0
    assert parts_answered(question, "R&D was $8,675 million, up 18.2%.") == pytest.approx(2 / 3)
    assert parts_answered(question, "R&D was $8,675 million; the rise reflects hiring.") == pytest.approx(
        1 / 3
    )
    assert parts_answered(Q, full) is None


def test_document_coverage_counts_the_cited_documents_the_evidence_comes_from():
    from core.evaluation.metrics import document_coverage

    quarters = ["2022 Q3 AAPL.pdf", "2023 Q1 AAPL.pdf", "2023 Q2 AAPL.pdf", "2023 Q3 AAPL.pdf"]
    names = {f"id{i}": name for i, name in enumerate(quarters)} | {"other": "2023 Q3 MSFT.pdf"}
    question = Q.model_copy(update={"filing": quarters[0], "filings": quarters, "cited_filings": []})
    # Cites nothing: every document of the question counts; repeats and other filings add nothing.
    two = [ctx(1, filing="id0"), ctx(2, filing="id0"), ctx(3, filing="id3"), ctx(4, filing="other")]
    assert document_coverage(question, two, names) == pytest.approx(0.5)
    assert document_coverage(question, [ctx(i, filing=f"id{i}") for i in range(4)], names) == 1.0
    assert document_coverage(question, [], names) == 0.0
    assert document_coverage(question, [ctx(1, filing="unknown")], names) == 0.0
    # Cites two of the four: only those count.
    cited = question.model_copy(update={"cited_filings": [quarters[1], quarters[3]]})
    assert document_coverage(cited, two, names) == pytest.approx(0.5)
    assert document_coverage(cited, [ctx(1, filing="id1"), ctx(2, filing="id3")], names) == 1.0
    assert document_coverage(cited, [ctx(1, filing="id0"), ctx(2, filing="id2")], names) == 0.0
    # One document: not measured.
    assert document_coverage(Q, [ctx(1)], {"F": "acme.pdf"}) is None
    # Through the metrics of an answer, with the names the harness gives.
    answer = SystemAnswer(system="naive", answer="", contexts=two)
    metrics = {m.name: m.value for m in reference_metrics(question, answer, {}, "id0", None, names)}
    assert metrics["document_coverage"] == pytest.approx(0.5)
    assert {m.name: m.value for m in reference_metrics(Q, answer, {}, "F")}["document_coverage"] is None


def test_a_systems_passages_are_ranked_as_its_answer_cites_them():
    from core.evaluation.systems import cited_first

    found = [ctx(page, f"passage {page}") for page in (1, 2, 3, 4)]
    ranked = cited_first(found, ["c3", None, "c1", "c3"])
    assert [c.chunk_id for c in ranked] == ["c3", "c1", "c2", "c4"]
    assert cited_first(found, []) == found


def test_a_part_is_accounted_for_when_answered_or_declared_unanswered_in_its_words():
    from core.evaluation.metrics import parts_accounted, parts_answered
    from core.models import EvalPart

    question = Q.model_copy(
        update={
            "parts": [
                EvalPart(part="list", ask="what the plaintiffs allege", key_phrases=["channel inventory"]),
                EvalPart(
                    part="narrative", ask="whether NVIDIA accrued a liability", key_phrases=["no accrual"]
                ),
                EvalPart(
                    part="narrative", ask="the current status of the appeal", key_phrases=["certiorari"]
                ),
            ]
        }
    )
    answer = (
        "## Answer\n\nThe plaintiffs allege misleading statements about channel inventory [1].\n\n"
        "### 1. Where does the class action stand?\n- The plaintiffs allege … channel inventory. [1]\n"
        "_Open: Not found in the evidence: accrued, liability_\n\n"
        "### 2. Has the appeal moved?\n"
        "_No supporting passage found. Searched: query “status of the appeal” in all Items._\n"
    )
    assert parts_answered(question, answer) == pytest.approx(1 / 3)
    # The accrual is declared in its own words; the appeal's status only by a search's quoted query and a
    # heading that does not name it: not declared.
    assert parts_accounted(question, answer) == pytest.approx(2 / 3)
