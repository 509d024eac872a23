"""Offline rewriter, distiller (cards + contradictions), reflector, policy and writer."""

from __future__ import annotations

from core.agents.base import AgentDeps
from core.agents.contracts import (
    DistilInput,
    PolicyInput,
    ReflectInput,
    RewriteInput,
    StepDigest,
    WriterInput,
)
from core.agents.distiller import offline_distil
from core.agents.policy import offline_decide
from core.agents.reflector import offline_reflect
from core.agents.report_assembly import assemble_report, best_quote
from core.agents.rewriter import offline_rewrite
from core.agents.writer import offline_write
from core.citations import validate_answer
from core.config import Settings
from core.finance.rows import cited_rows
from core.models import Evidence, KnowledgeCard
from core.text.escape import escape_markdown

DEPS = AgentDeps(settings=Settings())

RISK_TEXT = (
    "This Annual Report contains forward-looking statements that involve risks and uncertainties. "
    "We face intense competition from large companies and start-ups, which could reduce our market share. "
    "Competitors may introduce lower-priced products that could reduce our gross margin. "
    "We face intense competition from large companies and start-ups, which could lower our market share."
)
RESULTS_TEXT = (
    "Data Center revenue for fiscal year 2023 was $15,005 million, up 41% from fiscal year 2022. "
    "Our headquarters are located in a large and pleasant building in Santa Clara, California."
)
CONFLICT_TEXT = "Data Center revenue for fiscal year 2023 was $13,100 million according to the segment note."


def _ev(eid: str, text: str, rank: int = 0) -> Evidence:
    return Evidence(
        evidence_id=eid,
        text=text,
        chunk_id=f"chunk-{eid}",
        section="Item 1A",
        page=10 + rank,
        score=1.0 - rank / 10,
    )


def _anchor(sub_question: str, query: str, *evidence: Evidence) -> StepDigest:
    """The anchor step (the question as asked) with one confident claim quoting each passage it found."""
    return StepDigest(
        index=0,
        sub_question=sub_question,
        tool="search_10k",
        origin="anchor",
        query=query,
        cards=[KnowledgeCard(claim=e.text, evidence_ids=[e.evidence_id], confidence=0.9) for e in evidence],
        evidence=list(evidence),
    )


def test_cards_are_verbatim_relevant_deduplicated_sentences() -> None:
    evidence = [_ev("S1-E1", RISK_TEXT), _ev("S1-E2", RESULTS_TEXT, 1)]
    out = offline_distil(
        DistilInput(
            sub_question="What competition risks are listed?", keywords=["competition"], evidence=evidence
        ),
        DEPS,
    )
    claims = [c.claim for c in out.cards]
    assert claims, "expected at least one card"
    texts = {e.evidence_id: e.text for e in evidence}
    for card in out.cards:
        assert card.claim in texts[card.evidence_ids[0]]
    assert not any("forward-looking" in c for c in claims)
    assert not any("headquarters" in c for c in claims)
    # The near-identical competition sentence is one card, not two.
    assert sum("intense competition" in c for c in claims) == 1


def test_numeric_sub_question_prefers_figures_and_detects_conflicts() -> None:
    evidence = [_ev("S2-E1", RESULTS_TEXT), _ev("S2-E2", CONFLICT_TEXT, 1)]
    out = offline_distil(
        DistilInput(
            sub_question="What was Data Center revenue in fiscal 2023?",
            keywords=["Data Center", "revenue"],
            evidence=evidence,
        ),
        DEPS,
    )
    top = out.cards[0]
    assert "$15,005 million" in top.claim
    assert top.contradicting_evidence_ids == ["S2-E2"]
    assert top.contradiction and "2023" in top.contradiction


def test_a_sentence_dated_another_fiscal_year_gives_way_to_the_year_asked() -> None:
    """Two sentences alike in words: the one dated the fiscal year asked comes first."""
    text = (
        "During the second quarter and first half of fiscal year 2023, we repurchased 19 million and 28 million "
        "shares for $3.35 billion and $5.34 billion, respectively. "
        "During the second quarter and first half of fiscal year 2024, we repurchased 7.5 million shares of our "
        "common stock for $3.28 billion."
    )
    asked = DistilInput(
        sub_question="How many shares did NVIDIA repurchase in Q2 of fiscal 2024?",
        evidence=[_ev("S3-E1", text)],
    )
    assert "fiscal year 2024" in offline_distil(asked, DEPS).cards[0].claim
    earlier = asked.model_copy(update={"sub_question": "How many shares did NVIDIA repurchase in Q2 FY2023?"})
    assert "fiscal year 2023" in offline_distil(earlier, DEPS).cards[0].claim


def test_known_claims_are_not_repeated() -> None:
    evidence = [_ev("S1-E1", RISK_TEXT)]
    first = offline_distil(DistilInput(sub_question="competition risks", evidence=evidence), DEPS)
    again = offline_distil(
        DistilInput(
            sub_question="competition risks", evidence=evidence, known_claims=[c.claim for c in first.cards]
        ),
        DEPS,
    )
    assert not {c.claim for c in first.cards} & {c.claim for c in again.cards}


def test_the_answer_quotes_the_sentence_not_the_pdf_table_that_ran_into_it() -> None:
    """A PDF page prints a table's title, header and row, then the sentence under it with no period between:
    the answer quotes the sentence as the page prints it; the step's claim keeps the table's figures."""
    page = (
        "Comparison of Years Ended December 31, 2021 and 2020\nRevenue\nYear Ended December 31,\n"
        "2021 2020 Change\n(in thousands, except for percentages)\nRevenue $ 3,208,323 $ 2,364,681 36 %\n"
        "Revenue increased $843.6 million, or 36%, in 2021 as compared to the prior year, driven primarily by\n"
        "the significant increase in the number of Active Riders."
    )
    question = "What drove the increase in revenue in 2021?"
    evidence = _ev("S1-E1", page)
    step = StepDigest(
        index=0, sub_question=question, tool="search_10k", origin="anchor", query=question,
        cards=[KnowledgeCard(claim=page, evidence_ids=["S1-E1"], confidence=0.9)], evidence=[evidence],
    )  # fmt: skip
    draft = offline_write(WriterInput(question=question, steps=[step]), DEPS)
    assert draft.summary.startswith("The filing explains: “Revenue increased $843.6 million, or 36%")
    assert all(not c.text.startswith("Comparison") for c in draft.answer) and draft.answer
    assert draft.sections[0].claims[0].text == page


def test_rows_of_one_table_are_distinct_claims_though_their_labels_share_words() -> None:
    """Quarter rows share every word but the month: each prints its own figures, so none is dropped as a
    restatement of another."""
    table = (
        "Revenue per Active Rider\n2021 2020\n"
        "Three Months Ended June 30 $44.63 $39.06\nThree Months Ended September 30 $45.63 $39.94\n"
        "Three Months Ended December 31 $51.79 $45.40\n"
    )
    asked = "What was revenue per Active Rider in the three months ended each quarter?"
    cards = offline_distil(DistilInput(sub_question=asked, evidence=[_ev("S1-E1", table)]), DEPS).cards
    claims = " ".join(c.claim for c in cards)
    assert all(figure in claims for figure in ("44.63", "45.63", "51.79")), claims


def test_rewriter_keeps_self_sufficient_queries_and_completes_references() -> None:
    plain = offline_rewrite(
        RewriteInput(
            question="q",
            sub_question="How do NVIDIA's R&D results relate to them?",
            keywords=["research and development expenses"],
            earlier_claims=["We face intense competition from rivals."],
            earlier_keywords=["competition"],
            company="NVIDIA",
        ),
        DEPS,
    )
    assert "relate to them" not in plain.query
    assert "research and development expenses" in plain.query
    assert "competition" not in plain.query
    thin = offline_rewrite(
        RewriteInput(
            question="q",
            sub_question="Assess how they change those risks.",
            earlier_claims=["Competitors launched accelerators.", "Competitors cut accelerator prices."],
            earlier_keywords=["competition"],
        ),
        DEPS,
    )
    assert "competition" in thin.added_terms
    assert any(t.startswith("accelerator") or t == "competitors" for t in thin.added_terms)
    # "IPO-related" is a word of the topic, not "relate to" something found before.
    hyphenated = offline_rewrite(
        RewriteInput(
            question="q",
            sub_question="What's the status of the IPO-related securities litigation?",
            keywords=["IPO-related", "securities"],
            earlier_claims=["The Company completed its IPO in April 2019."],
        ),
        DEPS,
    )
    assert hyphenated.query == "What's the status of the IPO-related securities litigation"


def test_a_step_that_asks_the_whole_question_again_searches_with_the_words_its_findings_share() -> None:
    """The planned step repeats the question as asked: what the first search's claims share and the question
    does not leads further into the filing. A step that asks one part of it keeps its own words."""
    question = "What risks does Acme flag around export controls and its China business?"
    findings = [
        "Export controls could disrupt our supply chain and reduce demand for our accelerators.",
        "New licensing requirements for accelerators could harm our competitive position and supply chain.",
    ]

    def rewrite(sub_question: str) -> list[str]:
        out = offline_rewrite(
            RewriteInput(
                question=question,
                sub_question=sub_question,
                earlier_claims=findings,
                company="Acme Holdings, Inc.",
            ),
            DEPS,
        )
        return out.added_terms

    again = rewrite(
        "What risks does Acme flag around export controls and Acme's China business in fiscal 2024?"
    )
    assert {"supply", "accelerators"} <= set(again), again
    # The company's full name put for "its" is no word of its own.
    assert (
        rewrite("What risks does Acme flag around export controls and Acme Holdings's China business?")
        == again
    )
    assert rewrite("What risks does Acme flag around its China business?") == []
    alone = offline_rewrite(
        RewriteInput(question=question, sub_question=question, earlier_claims=findings[:1]), DEPS
    )
    assert alone.added_terms == []


def test_reflector_lists_open_questions_when_nothing_found() -> None:
    note = offline_reflect(
        ReflectInput(
            sub_question="What is the dividend policy?",
            document_section="Item 5",
            evidence_note="no passage matched",
        ),
        DEPS,
    )
    assert note.open_questions and "Item 5" in note.open_questions[0]
    card = KnowledgeCard(
        claim="Revenue grew.", evidence_ids=["S1-E1"], confidence=0.9, contradiction="x vs y"
    )
    note = offline_reflect(ReflectInput(sub_question="revenue", cards=[card]), DEPS)
    assert note.confirmed_facts == ["Revenue grew."] and note.conflicts == ["x vs y"]


def test_policy_finishes_on_plan_end_budget_and_diminishing_returns() -> None:
    base = {"question": "q", "max_steps": 7}
    assert offline_decide(PolicyInput(**base, steps_done=2, remaining=[]), DEPS).action == "finish"
    assert (
        offline_decide(
            PolicyInput(
                **base | {"max_steps": 2}, steps_done=2, remaining=["x"], remaining_tools=["search_10k"]
            ),
            DEPS,
        ).action
        == "finish"
    )
    stale = offline_decide(
        PolicyInput(
            **base,
            steps_done=3,
            remaining=["x"],
            remaining_tools=["search_10k"],
            new_claims_per_step=[3, 0, 0],
            tools_done=["search_10k"] * 3,
        ),
        DEPS,
    )
    assert stale.action == "finish" and "Diminishing" in stale.reason
    going = offline_decide(
        PolicyInput(
            **base,
            steps_done=2,
            remaining=["x"],
            remaining_tools=["search_10k"],
            new_claims_per_step=[3, 1],
            tools_done=["search_10k"] * 2,
        ),
        DEPS,
    )
    assert going.action == "continue"


def _risk_card() -> KnowledgeCard:
    """A card stating RISK_TEXT's competition risk, citing evidence S1-E1."""
    return KnowledgeCard(
        claim="Competitors may introduce lower-priced products that could reduce our gross margin.",
        evidence_ids=["S1-E1"],
        confidence=0.8,
    )


def test_writer_cites_every_claim_and_says_what_was_searched() -> None:
    risk = _ev("S1-E1", RISK_TEXT)
    card = _risk_card()
    steps = [
        StepDigest(
            index=0,
            sub_question="What competition risks?",
            tool="search_10k",
            query="competition risks",
            document_section="Item 1A",
            strategy="hybrid",
            candidates=10,
            cards=[card],
            evidence=[risk],
        ),
        StepDigest(
            index=1,
            sub_question="What is the dividend policy?",
            tool="search_10k",
            query="dividend policy",
            document_section="Item 5",
            strategy="keyword",
            candidates=0,
        ),
    ]
    draft = offline_write(WriterInput(question="q", steps=steps), DEPS)
    answer, citations = assemble_report(draft, {"S1-E1": risk})
    assert "[1]" in answer and len(citations) == 1
    assert citations[0].quote == card.claim and citations[0].chunk_id == "chunk-S1-E1"
    assert "No supporting passage found" in answer and '"dividend policy"' in answer and "Item 5" in answer
    checked = validate_answer(answer, citations, None, chunk_text=lambda ids: {"chunk-S1-E1": RISK_TEXT})
    assert checked.ok


def test_a_passage_two_steps_found_is_one_source() -> None:
    from core.agents.contracts import DraftClaim, ReportDraft

    first = _ev("S1-E3", RISK_TEXT)
    again = first.model_copy(update={"evidence_id": "S3-E1"})  # the same passage, found by a later step
    claim = RISK_TEXT.split(". ")[0] + "."
    draft = ReportDraft(
        summary="The filing states it [S1-E3].",
        answer=[DraftClaim(text=claim, evidence_ids=["S3-E1"])],
        sections=[],
    )
    answer, citations = assemble_report(draft, {"S1-E3": first, "S3-E1": again})
    assert len(citations) == 1 and "[2]" not in answer, answer


def test_a_quote_in_the_opening_cites_its_own_sentence_though_an_abbreviation_ends_in_a_full_stop() -> None:
    """ "U.S." inside the quotation is no sentence's end: the citation's quote is the sentence quoted, not
    another of the passage that shares the words after the abbreviation."""
    from core.agents.contracts import ReportDraft

    lawsuit = (
        "On March 21, 2024, the DOJ filed a civil antitrust lawsuit against the Company alleging monopolization "
        "in the markets for smartphones in violation of U.S. antitrust laws."
    )
    other = "In addition, civil litigation matters have been filed alleging similar violations of U.S. antitrust laws."
    passage = _ev("S1-E1", f"{lawsuit} {other}")
    draft = ReportDraft(
        summary=f"The filing states: “{lawsuit.rstrip('.')}” [S1-E1].", answer=[], sections=[]
    )
    _, citations = assemble_report(draft, {"S1-E1": passage})
    assert [c.quote for c in citations] == [lawsuit]


def test_quotes_and_escaping() -> None:
    assert best_quote("reduce our gross margin", RISK_TEXT).startswith("Competitors may introduce")
    assert escape_markdown("[1] *bold* <b>$5</b>") == r"\[1\] \*bold\* \<b\>\$5\</b\>"


def test_text_in_the_middle_of_a_line_escapes_only_what_markdown_needs() -> None:
    from core.agents.contracts import DraftClaim, DraftTable, ReportDraft

    cited = ["S1-E1"]
    draft = ReportDraft(
        answer=[
            DraftClaim(
                text="Effective tax rate (Q3 FY2023): 696.2% — -362 / -52 = 696.2%", evidence_ids=cited
            )
        ],
        tables=[
            DraftTable(
                columns=["Period", "Gross margin"],
                rows=[[DraftClaim(text="Q1 FY2023"), DraftClaim(text="69.2% [x]", evidence_ids=cited)]],
            )
        ],
    )
    answer, _ = assemble_report(draft, {"S1-E1": _ev("S1-E1", "Effective tax rate 696.2% 69.2%")})
    assert "— -362 / -52 = 696.2% [1]" in answer  # a minus sign after "— " starts no list
    assert "| 69.2% \\[x\\] [1] |" in answer  # "69.2%" starts no ordered list; brackets stay inert


TABLE_TEXT = (
    "Operating Expenses\n"
    "|  | 2023 |  | 2022 |\n|---|---|---|---|\n"
    "| Research and development expenses |  | $ 7,339 |  | $ 5,268 |\n"
    "| Other income (expense), net |  | (48) |  | 107 |"
)


def test_numeric_questions_read_table_rows_and_cite_the_row_verbatim() -> None:
    table = _ev("S2-E1", TABLE_TEXT)
    out = offline_distil(
        DistilInput(
            sub_question="What were R&D expenses?",
            keywords=["research and development expenses"],
            evidence=[table],
        ),
        DEPS,
    )
    claims = [c.claim for c in out.cards]
    assert claims == [
        "Operating Expenses — Research and development expenses: $ 7,339 (2023); $ 5,268 (2022)"
    ]
    draft = offline_write(
        WriterInput(
            question="q",
            steps=[
                StepDigest(index=0, sub_question="R&D?", tool="search_10k", cards=out.cards, evidence=[table])
            ],
        ),
        DEPS,
    )
    _, citations = assemble_report(draft, {"S2-E1": table})
    assert citations[0].quote == "| Research and development expenses |  | $ 7,339 |  | $ 5,268 |"


def test_list_questions_prefer_sentences_naming_things() -> None:
    text = (
        "Competition in our markets is intense and could reduce our margins over the coming years. "
        "Our competitors include Kestrel Warehouse Systems, Brightline Automation and Halden Robotik in every region."
    )
    out = offline_distil(
        DistilInput(sub_question="Which competitors are listed?", evidence=[_ev("S1-E1", text)]), DEPS
    )
    assert "Kestrel" in out.cards[0].claim


def test_a_listed_competitor_is_a_card_read_with_the_list_s_lead_in() -> None:
    text = (
        "We expect competition to increase from existing competitors and new entrants.\n\n"
        "Our current competitors include:\n\n"
        "•suppliers and licensors of hardware for integrated GPUs, such as Kestrel Devices and Halden Chips;\n\n"
        "•large cloud services companies designing their own chips, such as Brightline Cloud;"
    )
    out = offline_distil(
        DistilInput(
            sub_question="Who does the company name as its competitors?", evidence=[_ev("S1-E1", text)]
        ),
        DEPS,
    )
    claims = [c.claim for c in out.cards]
    assert (
        "Our current competitors include: suppliers and licensors of hardware for integrated GPUs, such as "
        "Kestrel Devices and Halden Chips;" in claims
    )
    assert any(c.startswith("Our current competitors include: large cloud services") for c in claims)
    # The quote cited for the item is the item, verbatim in the passage.
    assert best_quote(claims[claims.index(next(c for c in claims if "Kestrel" in c))], text) in text


def test_a_list_the_passage_before_began_reads_its_items_with_that_lead_in() -> None:
    """The list's lead-in and first item end one passage; its other items start the next (by the filing's
    reading order): read together, each item is a card with the lead-in, citing both passages. Without the
    passage before, the items say nothing on their own."""
    began = _ev(
        "S1-E1",
        "We expect an increasingly competitive environment.\n\nOur current competitors include:\n\n"
        "•suppliers and licensors of hardware for integrated GPUs, such as Kestrel Devices;",
    ).model_copy(update={"chunk_id": "f00d-00064"})
    items = _ev(
        "S1-E2",
        "integrated GPUs, such as Kestrel Devices;\n\n•large cloud services companies with internal teams "
        "designing chips and software, such as Brightline Cloud and Mesa Systems;\n\nSome competitors may "
        "have greater resources than we do.\n\n•volatility in the market price of our stock due to "
        "competitor announcements;",
    )
    question = "Who does the company name as its competitors?"

    def cards(evidence: list[Evidence]) -> list[KnowledgeCard]:
        return offline_distil(DistilInput(sub_question=question, evidence=evidence), DEPS).cards

    following = items.model_copy(update={"chunk_id": "f00d-00065"})
    cloud = [c for c in cards([began, following]) if "Brightline" in c.claim]
    assert [(c.claim[:45], c.evidence_ids) for c in cloud] == [
        ("Our current competitors include: large cloud ", ["S1-E2", "S1-E1"])
    ]
    # An item of another list, after a sentence that ends this one, is not read as a competitor.
    assert not [c for c in cards([began, following]) if "volatility" in c.claim]
    elsewhere = items.model_copy(update={"chunk_id": "f00d-00090"})
    assert not [c for c in cards([began, elsewhere]) if "Brightline" in c.claim]


def test_a_point_in_words_reads_with_the_sentence_that_adds_to_it() -> None:
    """A risk's card carries the sentence after it that goes on with "also"; asked for figures, a card is the
    sentence alone."""
    text = (
        "Export controls have impacted and may in the future impact demand for our products. Reduced demand due "
        "to export controls could also lead to excess inventory or related supply charges."
    )
    evidence = [_ev("S1-E1", text)]

    def claims(question: str) -> list[str]:
        return [
            c.claim for c in offline_distil(DistilInput(sub_question=question, evidence=evidence), DEPS).cards
        ]

    assert claims("What risks do export controls pose?")[0] == text
    assert text not in claims("How much did export controls reduce revenue in fiscal 2024?")


def test_a_step_whose_findings_are_already_stated_says_so_instead_of_finding_nothing() -> None:
    risk = _ev("S1-E1", RISK_TEXT)
    card = _risk_card()
    steps = [
        StepDigest(
            index=i, sub_question=q, tool="search_10k", query=q, candidates=10, cards=[card], evidence=[risk]
        )
        for i, q in enumerate(["What risks does Acme list?", "What competition risks does Acme face?"])
    ]
    draft = offline_write(WriterInput(question="q", steps=steps), DEPS)
    second = draft.sections[1]
    assert not second.claims
    assert second.gap == "What this step found is already stated above (step 1)."
    assert "step(s) found no supporting evidence" not in draft.summary


def test_a_yes_or_no_answer_states_the_figure_and_the_sentence_that_says_it() -> None:
    said = _ev("S1-E1", "The Company has paid cash dividends every quarter since becoming a public company.")
    anchor = _anchor("Has the company paid dividends in FY2022?", "paid dividends FY2022", said)
    figure = StepDigest(
        index=1,
        sub_question="Dividends paid (FY2022)",
        tool="calculator",
        cards=[KnowledgeCard(claim="Dividends paid (FY2022): $2,907 million", evidence_ids=["S2-E1"])],
    )
    for question, states_sentence in (
        ("Has the company paid dividends in FY2022?", True),
        ("What were dividends paid in FY2022?", False),  # the figure is the whole answer
    ):
        draft = offline_write(WriterInput(question=question, steps=[anchor, figure]), DEPS)
        claims = [c.text for c in draft.answer]
        # The amount paid says yes, first; a question for the amount gets the amount.
        assert claims[0].startswith("Yes. Dividends paid (FY2022)" if states_sentence else "Dividends paid")
        assert (said.text in claims) is states_sentence, claims


def test_two_figures_weighed_are_answered_by_their_difference_first_and_each_is_kept() -> None:
    figures = StepDigest(
        index=0,
        sub_question="What is the interest and dividend income minus interest expense for FY2023?",
        tool="calculator",
        cards=[
            KnowledgeCard(
                claim="Interest and dividend income minus interest expense (FY2023): −$183 million — 3,750 − "
                "3,933 = −$183 million",
                evidence_ids=["S1-E1", "S1-E2"],
                statement="Interest and dividend income minus interest expense was −$183 million in FY2023.",
            ),
            KnowledgeCard(
                claim="Interest and dividend income (FY2023): $3,750 million",
                evidence_ids=["S1-E1"],
                statement="Interest and dividend income was $3,750 million in FY2023.",
            ),
            KnowledgeCard(
                claim="Interest expense (FY2023): $3,933 million",
                evidence_ids=["S1-E2"],
                statement="Interest expense was $3,933 million in FY2023.",
            ),
        ],
    )
    question = (
        "Give Apple's interest and dividend income and its interest expense. Did it earn more than it paid?"
    )
    draft = offline_write(WriterInput(question=question, steps=[figures]), DEPS)
    claims = [c.text for c in draft.answer]
    assert claims[0].startswith("No. Interest and dividend income minus interest expense")
    assert any(c.startswith("Interest expense (FY2023)") for c in claims)  # the figures weighed stay stated
    assert draft.summary.startswith("No. ")


def test_which_of_several_figures_is_largest_is_answered_first_and_cites_each() -> None:
    def computed(index: int, text: str) -> StepDigest:
        return StepDigest(
            index=index,
            sub_question=text.split(":")[0],
            tool="calculator",
            cards=[KnowledgeCard(claim=text, evidence_ids=[f"S{index + 1}-E1"])],
        )

    steps = [
        computed(0, "Cash from operations (FY2023): $1,824 million — 1,824 = $1,824 million"),
        computed(1, "Cash from investing activities (FY2023): −$962 million — (962) = −$962 million"),
        computed(2, "Cash from financing activities (FY2023): −$1,806 million — (1,806) = −$1,806 million"),
    ]
    most = (
        "Among operations, investing and financing activities, which brought in the most (or lost the least)?"
    )
    claim = offline_write(WriterInput(question=most, steps=steps), DEPS).answer[0]
    assert claim.text == (
        "Cash from operations (FY2023) is the largest: $1,824 million (then cash from investing activities "
        "(FY2023) −$962 million; cash from financing activities (FY2023) −$1,806 million)."
    )
    assert claim.evidence_ids == ["S1-E1", "S2-E1", "S3-E1"]
    least = "Which of operating, investing and financing activities used the least cash?"
    first = offline_write(WriterInput(question=least, steps=steps), DEPS).answer[0]
    assert first.text.startswith("Cash from financing activities (FY2023) is the smallest: −$1,806 million")
    # Not a ranking question, or a figure not computed: the figures alone, in their order.
    plain = offline_write(WriterInput(question="What were the cash flows?", steps=steps), DEPS).answer[0]
    assert plain.text.startswith("Cash from operations (FY2023): $1,824 million")
    missing = (
        "Cash from investing activities (FY2023): not computed - cash from investing activities not found"
    )
    steps[1] = steps[1].model_copy(update={"cards": [], "evidence_note": missing})
    partial = offline_write(WriterInput(question=most, steps=steps), DEPS).answer[0]
    assert partial.text.startswith("Cash from operations (FY2023): $1,824 million")


def test_the_answer_is_a_paragraph_of_cited_figures_and_the_filing_s_own_reason() -> None:
    """A figure + share + why question: the paragraph states each figure in a sentence with its period and
    citations, and quotes the sentence that explains the figure asked about — not one about another line."""
    revenue_reason = _ev(
        "S1-E1", "Total revenue grew 18% to $422.6 million, driven mainly by Fleet Software."
    )
    rd_reason = _ev(
        "S1-E2",
        "Research and development expense increased 20.0% to $86.3 million, primarily due to an increase of 58 "
        "engineering employees and higher cloud computing costs.",
    )
    anchor = _anchor(
        "What drove the increase in research and development expense?",
        "research and development expense increase",
        revenue_reason,
        rd_reason,
    )
    figures = StepDigest(
        index=1,
        sub_question="R&D and its share of revenue",
        tool="calculator",
        cards=[
            KnowledgeCard(
                claim="Research and development expense: FY2024 $71.9 million, FY2025 $86.3 million; change "
                "+$14.4 million, +20.0% — FY2024: 71.9 = $71.9 million; FY2025: 86.3 = $86.3 million",
                evidence_ids=["S2-E2"],
                statement="Research and development expense was $86.3 million in FY2025, up 20.0% from $71.9 "
                "million in FY2024.",
            ),
            KnowledgeCard(
                claim="Research and development expense as a share of revenue (FY2025): 20.4% — 86.3 / 422.6 = 20.4%",
                evidence_ids=["S2-E2", "S2-E3"],
                statement="Research and development expense as a share of revenue was 20.4% in FY2025.",
            ),
        ],
        evidence_note="Revenue per employee (FY2025): not computed — number of employees for FY2025 not found",
    )
    question = (
        "How much did it spend on R&D in FY2025, what share of revenue was that, and what drove the increase?"
    )
    draft = offline_write(WriterInput(question=question, steps=[anchor, figures]), DEPS)
    assert draft.summary.startswith(
        "Research and development expense was $86.3 million in FY2025, up 20.0% from $71.9 million in FY2024 [S2-E2]."
    )
    assert "20.4% in FY2025 [S2-E2, S2-E3]." in draft.summary
    assert "58 engineering employees" in draft.summary and "Fleet Software" not in draft.summary
    assert "do not state number of employees for FY2025" in draft.summary
    assert " — " not in draft.summary and " = " not in draft.summary  # no workings in the paragraph
    # The paragraph leads the assembled answer; the figures with their workings follow; the method note last.
    evidence = {e.evidence_id: e for e in [revenue_reason, rd_reason]}
    evidence |= {
        i: _ev(i, "| Research and development | 86.3 | 71.9 |\n| Total revenue | 422.6 | 358.5 |")
        for i in ("S2-E2", "S2-E3")
    }
    markdown, _ = assemble_report(draft, evidence)
    body = markdown.split("## Answer", 1)[1].strip()
    assert body.startswith("Research and development expense was") and body.index("- **") > body.index("[1]")
    assert body.index("_Extractive answer") > body.index("- **")
    # With no passage that explains it, the paragraph says so, of the figure asked about.
    silent = anchor.model_copy(update={"cards": anchor.cards[:1], "evidence": [revenue_reason]})
    draft = offline_write(WriterInput(question=question, steps=[silent, figures]), DEPS)
    assert "No passage the research read explains the change in research and development expense." in (
        draft.summary
    )
    from core.agents.writer import _figure_name

    # A company's name and an acronym keep their capitals.
    assert _figure_name("Lyft adjusted EBITDA: FY2021 $92.9 million", {"Lyft"}) == "Lyft adjusted EBITDA"
    assert _figure_name("EBITDA margin (FY2021): 4.2%", set()) == "EBITDA margin"


def test_an_explanation_the_filing_carries_into_the_next_sentence_is_quoted_whole() -> None:
    """The reason sentence names the change; the next one says what drove that ("Strong demand for … was
    driven by …"): both are quoted, with one citation. A next sentence about another change is not."""
    led_by = "Segment revenue was up 171% from a year ago, led by cloud providers."
    because = "Strong demand for the Falcon platform was primarily driven by new language models."
    other = "Gaming revenue was down 10% from a year ago, due to lower sell-in."
    question = "What drove the increase in segment revenue in the quarter?"

    def draft_for(passage: str) -> str:
        evidence = _ev("S1-E1", passage)
        step = StepDigest(
            index=0, sub_question=question, tool="search_10k", origin="anchor", query=question,
            cards=[KnowledgeCard(claim=led_by, evidence_ids=["S1-E1"], confidence=0.9)], evidence=[evidence],
        )  # fmt: skip
        return offline_write(WriterInput(question=question, steps=[step]), DEPS).summary

    assert draft_for(f"{led_by} {because} {other}") == (
        f"The filing explains: “{led_by.rstrip('.')}” and “{because.rstrip('.')}” [S1-E1]."
    )
    assert draft_for(f"{led_by} {other}") == f"The filing explains: “{led_by.rstrip('.')}” [S1-E1]."
    # What offset the change is part of its explanation, though it states a change of its own.
    offset = "These increases were partially offset by higher customer incentives recorded as a reduction to revenue."
    assert draft_for(f"{led_by} {offset} {other}") == (
        f"The filing explains: “{led_by.rstrip('.')}” and “{offset.rstrip('.')}” [S1-E1]."
    )
    # A sentence that merely begins with "The" and names another offset is not this change's.
    unrelated = "The company offset its currency exposure with forward contracts that increased in 2024."
    assert draft_for(f"{led_by} {unrelated}") == f"The filing explains: “{led_by.rstrip('.')}” [S1-E1]."


def test_what_offset_a_change_is_read_past_the_page_break_that_cuts_the_explanation() -> None:
    """The explanation is the passage's last whole sentence and the next one is cut by the page's end; the
    research also read the passage that follows (by the filing's reading order): what offset the change is
    quoted from it, citing both. A passage from elsewhere in the filing is not read as its continuation."""
    led_by = "Revenue increased $843.6 million, or 36%, in 2021, driven primarily by more Active Riders."
    cut = "Revenue in 2021 also benefited from licensing agreements, beginning in the\n63"
    offset = "These increases were offset by driver incentives recorded as a reduction to revenue."
    question = "What drove the growth in revenue in 2021?"

    def draft_for(next_chunk: str) -> str:
        first = _ev("S1-E1", f"{led_by} {cut}").model_copy(update={"chunk_id": "f00d-00426"})
        after = _ev("S2-E1", f"second quarter of 2021. {offset} Revenue in 2020 was also higher.")
        step = StepDigest(
            index=0, sub_question=question, tool="search_10k", origin="anchor", query=question,
            cards=[KnowledgeCard(claim=led_by, evidence_ids=["S1-E1"], confidence=0.9)], evidence=[first],
        )  # fmt: skip
        read = StepDigest(
            index=1, sub_question=question, tool="search_10k", origin="reflection", query=question,
            evidence=[after.model_copy(update={"chunk_id": next_chunk})],
        )  # fmt: skip
        return offline_write(WriterInput(question=question, steps=[step, read]), DEPS).summary

    assert draft_for("f00d-00427") == (
        f"The filing explains: “{led_by.rstrip('.')}” and “{offset.rstrip('.')}” [S1-E1, S2-E1]."
    )
    assert draft_for("f00d-00433") == f"The filing explains: “{led_by.rstrip('.')}” [S1-E1]."


def test_a_part_that_asks_for_words_is_answered_in_the_paragraph_beside_the_figures() -> None:
    risk = _ev("S1-E1", "Regulators could require changes to the App Store that reduce Services net sales.")
    search = StepDigest(
        index=0, sub_question="What risks does it see for Services?", tool="search_10k", query="Services risks",
        cards=[KnowledgeCard(claim=risk.text, evidence_ids=["S1-E1"], confidence=0.9)], evidence=[risk],
    )  # fmt: skip
    figure = StepDigest(
        index=1,
        sub_question="Services share of net sales",
        tool="calculator",
        cards=[
            KnowledgeCard(
                claim="Services as a share of revenue (FY2024): 24.6% — 96,169 / 391,035 = 24.6%",
                evidence_ids=["S2-E2", "S2-E3"],
                statement="Services as a share of revenue was 24.6% in FY2024.",
            )
        ],
    )
    both = (
        "What share of net sales came from Services in fiscal 2024, and what risks does it see for Services?"
    )
    summary = offline_write(WriterInput(question=both, steps=[search, figure]), DEPS).summary
    assert summary.startswith("Services as a share of revenue was 24.6% in FY2024 [S2-E2, S2-E3].")
    assert "App Store" in summary
    only_figure = "What share of net sales came from Services in fiscal 2024?"
    assert (
        "App Store"
        not in offline_write(WriterInput(question=only_figure, steps=[search, figure]), DEPS).summary
    )


def test_figures_of_one_item_from_several_reports_are_tabulated_by_period_in_the_order_read() -> None:
    steps = []
    for n, (period, value) in enumerate(
        [("Q3 FY2022", "15,338"), ("Q1 FY2023", "11,715"), ("Q2 FY2023", "12,949")]
    ):
        row = f"| Net revenue | $ {value} |"
        source = Evidence(
            evidence_id=f"S{n + 2}-E2", text=row, chunk_id=f"c{n}", filing_id=f"filing-{n}", page=6, quote=row
        )
        claim = f"Intel revenue ({period}): ${value} million — {value} = ${value} million"
        card = KnowledgeCard(claim=claim, evidence_ids=[source.evidence_id], confidence=0.9)
        steps.append(
            StepDigest(index=n + 1, sub_question=f"What is the revenue amount for {period}?", tool="calculator",
                       cards=[card], evidence=[source], evidence_note=claim)
        )  # fmt: skip
    # The reports' rows are in the steps' evidence, not in the run's pool of search passages.
    draft = offline_write(WriterInput(question="How did Intel's revenue move?", steps=steps), DEPS)
    [table] = draft.tables
    assert table.columns == ["Period", "Intel revenue"]
    assert [[c.text for c in row] for row in table.rows] == [
        ["Q3 FY2022", "$15,338 million"], ["Q1 FY2023", "$11,715 million"], ["Q2 FY2023", "$12,949 million"],
    ]  # fmt: skip
    assert [row[1].evidence_ids for row in table.rows] == [["S2-E2"], ["S3-E2"], ["S4-E2"]]
    assert "fell 15.6%" in draft.summary
    assert len(draft.answer) == 3  # each figure with its working, below the table


def test_an_impact_asked_of_a_matter_with_no_figure_gets_the_filings_words_not_a_missing_change() -> None:
    said = _ev(
        "S1-E1",
        "We have not recorded any accrual for contingent liabilities associated with the legal proceedings.",
    )
    anchor = _anchor(
        "What legal proceedings were disclosed, and what impact could they have?",
        "legal proceedings impact",
        said,
    )
    question = "What legal proceedings were disclosed, and what impact could they have?"
    draft = offline_write(WriterInput(question=question, steps=[anchor]), DEPS)
    assert draft.summary.startswith("The filing states:") and "explains the change" not in draft.summary


def test_a_reason_worded_due_primarily_to_is_the_explanation_quoted() -> None:
    """ "due primarily to" gives a reason as "due to" does; a definition that merely names the figure ("consists
    of net sales … directly attributable to the segment") names fewer of its words and is not chosen."""
    definition = _ev(
        "S1-E1",
        "Operating income for each segment consists of net sales to third parties, related cost of sales, and "
        "operating expenses directly attributable to the segment.",
    )
    reason = _ev(
        "S1-E2",
        "Greater China net sales decreased during 2024 compared to 2023 due primarily to lower net sales of "
        "iPhone and iPad.",
    )
    step = _anchor(
        "Why did Greater China sales fall in fiscal 2024?", "Greater China sales fall", definition, reason
    )
    draft = offline_write(
        WriterInput(question="Why did Greater China sales fall in fiscal 2024?", steps=[step]), DEPS
    )
    assert draft.summary.startswith("The filing explains: “Greater China net sales decreased"), draft.summary


def test_the_increase_explained_right_after_the_figure_is_its_own_reason() -> None:
    """ "The increase was due primarily to …" after "Cost of revenue increased $202.0 million" explains cost of
    revenue, ahead of a sentence about another cost that merely says "costs … driven by"."""
    own = _ev(
        "S1-E1",
        "Cost of revenue increased $202.0 million, or 14%, in 2021 as compared to the prior year. The increase "
        "was due primarily to $160.6 million higher insurance costs driven by increased rider demand.",
    )
    other = _ev(
        "S1-E2",
        "In addition, there was an increase of $48.4 million in transaction fees and $14.9 million in bikes and "
        "scooter related costs driven by the increased ride volume.",
    )
    question = "Why did Acme's cost of revenue rise in 2021?"
    step = _anchor(question, question, other).model_copy(
        update={
            "cards": [
                KnowledgeCard(claim=other.text, evidence_ids=["S1-E2"], confidence=0.9),
                KnowledgeCard(
                    claim="The increase was due primarily to $160.6 million higher insurance costs driven by "
                    "increased rider demand.",
                    evidence_ids=["S1-E1"],
                    confidence=0.8,
                ),
            ],
            "evidence": [other, own],
        }
    )
    draft = offline_write(WriterInput(question=question, steps=[step]), DEPS)
    assert "The filing explains: “The increase was due primarily to $160.6 million" in draft.summary, (
        draft.summary
    )


def test_a_share_allotted_to_a_segment_is_no_reason_and_led_by_is_one() -> None:
    """ "… attributable to the Compute & Networking segment" allots a customer's revenue, it states no change;
    "Data Center revenue was up 171% …, led by CSPs" explains the change asked about, and another figure's
    reason in the quarter asked does not."""
    allotted = _ev(
        "S1-E1",
        "One data center distributor customer represented approximately 17% of total revenue for the second "
        "quarter of fiscal year 2024 and was attributable to the Compute & Networking segment.",
    )
    led = _ev(
        "S1-E2",
        "Data Center revenue was up 171% from a year ago and up 141% sequentially, led by CSPs and large "
        "consumer internet companies.",
    )
    # Another figure's reason in the same quarter shares only the period with the question.
    other = _ev(
        "S1-E3",
        "Graphics segment operating income increased during the second quarter of fiscal year 2024 primarily "
        "due to higher revenue.",
    )
    question = "What drove Kestrel's Data Center revenue in the second quarter of fiscal 2024?"
    steps = [_anchor(question, question, other, allotted, led)]
    draft = offline_write(WriterInput(question=question, steps=steps), DEPS)
    assert draft.summary.startswith("The filing explains: “Data Center revenue was up 171%"), draft.summary


def test_a_change_that_names_another_figure_is_not_explained_by_the_sentence_before() -> None:
    """ "The decrease in our effective tax rate … was primarily due to …" after a sentence about R&D expenses
    explains the tax rate; the R&D expense's own sentence is the reason quoted for R&D."""
    tax = _ev(
        "S1-E1",
        "The fiscal year 2023 effective tax rate includes the mandatory capitalization and amortization of "
        "research and development expenses. The decrease in our effective tax rate in fiscal year 2023 was "
        "primarily due to increased tax benefits of the FDII deduction and the research tax credit.",
    )
    own = _ev(
        "S1-E2",
        "The increase in research and development expense for fiscal year 2023 was primarily driven by "
        "increased compensation, employee growth, engineering development costs, and data center "
        "infrastructure.",
    )
    question = "Why did research and development expense rise in fiscal 2023?"
    step = _anchor(question, question, own).model_copy(
        update={
            "cards": [
                KnowledgeCard(
                    claim="The decrease in our effective tax rate in fiscal year 2023 was primarily due to "
                    "increased tax benefits of the FDII deduction and the research tax credit.",
                    evidence_ids=["S1-E1"],
                    confidence=0.9,
                ),
                KnowledgeCard(claim=own.text, evidence_ids=["S1-E2"], confidence=0.8),
            ],
            "evidence": [tax, own],
        }
    )
    draft = offline_write(WriterInput(question=question, steps=[step]), DEPS)
    assert "The filing explains: “The increase in research and development expense" in draft.summary, (
        draft.summary
    )


def test_each_figure_whose_change_was_asked_gets_its_own_explanation() -> None:
    """Two figures and "what drove the growth": each is explained by the filing's sentence that names it, each
    quote cited; a sentence that shares only one word with the second figure does not explain it."""
    sales_reason = _ev(
        "S1-E1",
        "Net sales increased 12% to $84,300, driven by a 9% increase in comparable sales and new clubs.",
    )
    fees_reason = _ev(
        "S1-E2",
        "Membership fees increased 9% to $1,900, driven by sign-ups and upgrades to premium membership.",
    )
    loose = _ev("S1-E3", "Fee income from the credit card program increased due to higher card usage.")
    question = "What were net sales and membership fees in fiscal 2022, and what drove the growth?"
    anchor = _anchor(question, question, loose, sales_reason, fees_reason)
    figures = StepDigest(
        index=1,
        sub_question="net sales and membership fees",
        tool="calculator",
        cards=[
            KnowledgeCard(
                claim="Net sales: FY2021 $78,100 million, FY2022 $84,300 million; change +$6,200 million, +7.9%",
                evidence_ids=["S2-E1"],
                statement="Net sales were $84,300 million in FY2022, up 7.9% from $78,100 million in FY2021.",
            ),
            KnowledgeCard(
                claim="Membership fees: FY2021 $1,750 million, FY2022 $1,900 million; change +$150 million, +8.6%",
                evidence_ids=["S2-E2"],
                statement="Membership fees were $1,900 million in FY2022, up 8.6% from $1,750 million in FY2021.",
            ),
        ],
    )
    summary = offline_write(WriterInput(question=question, steps=[anchor, figures]), DEPS).summary
    assert "The filing explains: “Net sales increased 12%" in summary, summary
    assert "new clubs” [S1-E1]; and “Membership fees increased 9%" in summary
    assert "premium membership” [S1-E2]." in summary and "credit card" not in summary
    # With no sentence naming the second figure, only the first is explained.
    alone = anchor.model_copy(update={"cards": anchor.cards[:2], "evidence": [loose, sales_reason]})
    summary = offline_write(WriterInput(question=question, steps=[alone, figures]), DEPS).summary
    assert "Net sales increased 12%" in summary and "Membership" not in summary.split("explains:")[1]


def test_a_part_asking_what_drove_a_figure_reads_its_own_explanation_before_rows_and_other_items() -> None:
    """For "what drove the increase in R&D expense" (as asked, and as reflection words its search), the sentence
    that states R&D's change and its cause leads; the statement's rows and another figure's explanation fall
    out of reach of it."""
    table = (
        "(In millions)\n| | 2023 | | 2022 |\n|---|---|---|---|\n| Research and development | 7,339 | | 5,268 |\n"
        "| Sales, general and administrative | 2,440 | | 2,166 |\n| Total operating expenses | 11,132 | | 7,434 |\n"
    )
    other = (
        "Gross margin increased in fiscal year 2023 primarily due to a favorable product mix. Operating "
        "expenses increased 50% to $11,132 million driven by the acquisition termination cost."
    )
    prose = (
        "Research and development costs rose. The increase in research and development expense for fiscal year "
        "2023 was primarily driven by increased compensation, employee growth, engineering development costs, "
        "and data center infrastructure."
    )
    evidence = [_ev("S1-E1", table), _ev("S1-E2", other, 1), _ev("S1-E3", prose, 2)]
    for sub_question in (
        "What drove the increase in research and development expense in fiscal 2023?",
        "research and development expense 2023 increased or decreased primarily due to",
    ):
        inputs = DistilInput(sub_question=sub_question, keywords=["driven by"], evidence=evidence)
        claims = [c.claim for c in offline_distil(inputs, DEPS).cards]
        assert claims[0].startswith("The increase in research and development expense"), claims
        assert not any("7,339" in c or "Gross margin" in c for c in claims), claims


def test_an_explanation_of_another_line_item_that_contains_the_figures_word_is_not_its_reason() -> None:
    """Revenue asked: "The increase was due primarily to … insurance costs" follows "Cost of revenue
    increased …", so it explains cost of revenue, though "revenue" is in its figure's name; revenue's own
    sentence is quoted, and without one the paragraph says that nothing read explains revenue's change."""
    cost = _ev(
        "S1-E1",
        "Cost of revenue increased $202.0 million, or 14%, in 2021 as compared to the prior year. The increase "
        "was due primarily to an increase of $160.6 million in insurance costs driven by increased rider demand.",
    )
    own = _ev(
        "S1-E2",
        "Revenue increased $843.6 million, or 36%, in 2021 as compared to the prior year, driven primarily by "
        "the increase in the number of Active Riders.",
    )
    question = "What were revenues in 2021, how fast did they grow, and what drove the growth?"
    cost_card = KnowledgeCard(
        claim="The increase was due primarily to an increase of $160.6 million in insurance costs driven by "
        "increased rider demand.",
        evidence_ids=["S1-E1"],
        confidence=0.9,
    )
    own_card = KnowledgeCard(claim=own.text, evidence_ids=["S1-E2"], confidence=0.8)
    figures = StepDigest(
        index=1,
        sub_question="revenue",
        tool="calculator",
        cards=[
            KnowledgeCard(
                claim="Revenues: FY2020 $2,364.7 million, FY2021 $3,208.3 million; change +$843.6 million, +35.7%",
                evidence_ids=["S2-E1"],
                statement="Revenues were $3,208.3 million in FY2021, up 35.7% from $2,364.7 million in FY2020.",
            )
        ],
    )
    anchor = _anchor(question, question, cost, own).model_copy(update={"cards": [cost_card, own_card]})
    summary = offline_write(WriterInput(question=question, steps=[anchor, figures]), DEPS).summary
    assert "The filing explains: “Revenue increased $843.6 million" in summary, summary
    assert "insurance" not in summary
    alone = anchor.model_copy(update={"cards": [cost_card], "evidence": [cost]})
    summary = offline_write(WriterInput(question=question, steps=[alone, figures]), DEPS).summary
    assert "No passage the research read explains the change in revenues." in summary, summary


def test_where_a_matter_stands_is_read_from_its_newest_development() -> None:
    """Two sentences about the class action alike in words: asked for its status, the newer one leads; asked
    what happened, the passage's order stands."""
    text = (
        "On May 14, 2020, the court in the securities class action granted in part the Company's motion to "
        "dismiss the consolidated complaint. On February 8, 2022, the parties to the securities class action "
        "informed the court they had reached an agreement in principle to settle the case."
    )
    evidence = [_ev("S1-E1", text)]
    status = DistilInput(sub_question="What's the status of the securities class action?", evidence=evidence)
    assert offline_distil(status, DEPS).cards[0].claim.startswith("On February 8, 2022")
    history = status.model_copy(update={"sub_question": "What happened in the securities class action?"})
    assert offline_distil(history, DEPS).cards[0].claim.startswith("On May 14, 2020")
    # A status in a matter's name is no question on where it stands.
    named = status.model_copy(update={"sub_question": "What happened in the driver-status class action?"})
    assert offline_distil(named, DEPS).cards[0].claim.startswith("On May 14, 2020")


def test_a_part_whose_own_search_found_nothing_is_answered_by_the_question_as_asked() -> None:
    """Beside a figure, a part's own search may find nothing while the search of the whole question found
    its passage: the opening paragraph quotes that, rather than answer the figure alone."""
    question = "How many employees did it have, and how does it describe its approach to pay?"
    approach = _ev("S1-E1", "The Company believes that compensation should be competitive and equitable.")
    anchor = _anchor(question, question, approach)
    figure = StepDigest(
        index=1,
        sub_question="number of employees",
        tool="calculator",
        cards=[
            KnowledgeCard(
                claim="Number of employees (FY2023): 161,000",
                evidence_ids=["S2-E1"],
                statement="Number of employees was 161,000 in FY2023.",
            )
        ],
    )
    empty = StepDigest(
        index=2,
        sub_question="How does it describe its approach to pay?",
        tool="search_10k",
        query="approach to pay",
    )
    summary = offline_write(WriterInput(question=question, steps=[anchor, figure, empty]), DEPS).summary
    assert summary.startswith("Number of employees was 161,000 in FY2023 [S2-E1].")
    assert "competitive and equitable" in summary
    found = empty.model_copy(
        update={
            "cards": [
                KnowledgeCard(claim="Pay is reviewed every year.", evidence_ids=["S3-E1"], confidence=0.9)
            ],
            "evidence": [_ev("S3-E1", "Pay is reviewed every year.")],
        }
    )
    summary = offline_write(WriterInput(question=question, steps=[anchor, figure, found]), DEPS).summary
    assert "reviewed every year" in summary and "competitive and equitable" not in summary
    # A question that asks for the figure only has no part in words, whatever its plan searched.
    only = offline_write(
        WriterInput(question="How many employees did it have?", steps=[anchor, figure, empty]), DEPS
    )
    assert not any("competitive" in claim.text for claim in only.answer), only.answer


def test_a_question_on_where_a_matter_stands_opens_with_its_newest_development() -> None:
    """The question as asked found how the case began; reading on found what the court did since: the
    opening quotes the latest dated development, whichever step found it. Asked what the case alleges, the
    opening keeps the question's own best passage."""
    began = _ev(
        "S1-E1",
        "Beginning in April 2019, several class actions were filed against the Company alleging violations.",
    )
    since = _ev(
        "S2-E1",
        "The court certified the class on August 20, 2021, and on January 25, 2022, the court stayed the state case.",
    )
    older = _ev(
        "S2-E2", "On April 2, 2019, the Company completed its initial public offering of Class A shares."
    )

    def step(index: int, origin: str, evidence: list[Evidence], question: str) -> StepDigest:
        return StepDigest(
            index=index, sub_question=question, tool="search_10k", origin=origin, query=question,
            cards=[KnowledgeCard(claim=e.text, evidence_ids=[e.evidence_id], confidence=0.9) for e in evidence],
            evidence=evidence,
        )  # fmt: skip

    def opening(question: str) -> str:
        steps = [step(0, "anchor", [began], question), step(1, "reflection", [older, since], question)]
        return offline_write(WriterInput(question=question, steps=steps), DEPS).summary

    assert opening("What's the status of the securities litigation against the Company?").startswith(
        "The filing states: “The court certified the class on August 20, 2021, and on January 25, 2022"
    )
    assert opening("What does the securities litigation against the Company allege?").startswith(
        "The filing states: “Beginning in April 2019"
    )


def test_with_the_figures_stated_a_table_row_is_not_quoted_as_the_filings_words() -> None:
    """A search for the why found a table's row first: the figures already answer in figures, so the answer
    quotes the explanation, not the row (the step still lists it). With no figure stated, the row stays."""
    table = "| (in millions) | 2024 | 2023 |\n|---|---|---|\n| Total net sales | 391,035 | 383,285 |"
    row_passage = _ev("S1-E1", table)
    (row,) = [claim for claim, *_ in cited_rows(table)]
    reason = _ev(
        "S1-E2", "Services net sales increased during 2024 due primarily to higher advertising sales."
    )
    question = "How much did Services revenue grow in fiscal 2024, and why?"
    search = StepDigest(
        index=0, sub_question="Why did Services revenue grow?", tool="search_10k", origin="planner",
        query="Services revenue drivers", evidence=[row_passage, reason],
        cards=[KnowledgeCard(claim=row, evidence_ids=["S1-E1"], confidence=0.9),
               KnowledgeCard(claim=reason.text, evidence_ids=["S1-E2"], confidence=0.8)],
    )  # fmt: skip
    figure = StepDigest(
        index=1, sub_question="Services revenue growth", tool="calculator",
        cards=[KnowledgeCard(
            claim="Services revenue: FY2023 $85,200 million, FY2024 $96,169 million; change +$10,969 million, "
            "+12.9% — 96,169 − 85,200 = 10,969", evidence_ids=["S2-E1"],
        )],
    )  # fmt: skip
    with_figure = offline_write(WriterInput(question=question, steps=[search, figure]), DEPS)
    assert all(claim.text != row for claim in with_figure.answer)
    assert any("96,169" in claim.text for claim in with_figure.answer)
    without = offline_write(WriterInput(question=question, steps=[search]), DEPS)
    assert any(claim.text == row for claim in without.answer)


def _status_opening(evidence: list[Evidence], question: str) -> tuple[StepDigest, str]:
    """The anchor step the extractive distiller makes of `evidence`, and the answer's opening paragraph."""
    cards = offline_distil(DistilInput(sub_question=question, evidence=evidence), DEPS).cards
    step = StepDigest(
        index=0, sub_question=question, tool="search_10k", origin="anchor", query=question, cards=cards,
        evidence=evidence,
    )  # fmt: skip
    return step, offline_write(WriterInput(question=question, steps=[step]), DEPS).summary


def test_a_status_reads_the_newest_dated_sentence_of_a_passage_that_answers_it() -> None:
    """The passage that names the class action ends with developments that do not name it: asked where
    the matter stands, the latest of them becomes a card too, and the opening quotes it with what is due
    next; asked what happened, the cards are the passage's sentences on the matter."""
    text = (
        "On May 14, 2020, the court in the securities class action granted in part the Company's motion to "
        "dismiss the consolidated complaint. The plaintiffs in the securities class action appealed the "
        "dismissal to the Ninth Circuit. On December 5, 2023, the Ninth Circuit granted the Company's motion "
        "to stay the mandate. The Company's deadline to file a petition for a writ of certiorari is March 4, "
        "2024."
    )
    evidence = [_ev("S1-E1", text)]
    question = "What's the status of the securities class action?"
    step, summary = _status_opening(evidence, question)
    assert any(c.claim.startswith("On December 5, 2023") for c in step.cards)
    # A deadline is what comes next, not the newest development: it follows the development it is read with.
    assert summary.startswith(
        "The filing states: “On December 5, 2023, the Ninth Circuit granted the Company's motion to stay the "
        "mandate” and “The Company's deadline to file a petition"
    ), summary
    dated = text.replace("The plaintiffs in", "On August 25, 2023, the plaintiffs in")
    evidence = [_ev("S1-E1", dated)]
    cards = offline_distil(DistilInput(sub_question=question, evidence=evidence), DEPS).cards
    step = step.model_copy(update={"cards": cards, "evidence": evidence})
    draft = offline_write(WriterInput(question=question, steps=[step]), DEPS)
    # Read with the development before it, when that one is dated too.
    assert draft.summary.startswith(
        "The filing states: “On August 25, 2023, the plaintiffs in the securities class action appealed the "
        "dismissal to the Ninth Circuit” and “On December 5, 2023"
    ), draft.summary
    # The development before it is quoted once, with the newest, not again on its own.
    assert sum("On August 25, 2023" in claim.text for claim in draft.answer) == 1
    history = DistilInput(sub_question="What happened in the securities class action?", evidence=evidence)
    assert not any(c.claim.startswith("The Company's deadline") for c in offline_distil(history, DEPS).cards)


def test_a_date_set_for_the_future_is_no_development() -> None:
    """The trial was set, in 2021, for a date after the settlement reached in 2022: the status opens with the
    settlement, the latest thing that happened."""
    text = (
        "The Company filed its answer in the securities class action on October 2, 2020, and the court certified "
        "the class action on August 20, 2021, and set trial to commence on December 5, 2022. On February 8, "
        "2022, the parties informed the court they had reached an agreement in principle to settle the case."
    )
    _, summary = _status_opening([_ev("S1-E1", text)], "What's the status of the securities class action?")
    assert "agreement in principle" in summary.split("”")[-2], summary


def test_a_status_reads_the_filers_judgement_of_the_outcome_with_the_newest_development() -> None:
    """Where a matter stands is its newest development and the filer's judgement of how it may end: the
    accrual sentence of the passage the status is read from becomes a card too, though it names neither the
    matter nor a date; asked what happened, it does not."""
    text = (
        "Beginning in April 2019, putative class actions were filed against the Company in connection with the "
        "IPO alleging violation of securities laws. The court certified the class action on August 20, 2021. "
        "On February 8, 2022, the parties informed the court they had reached an agreement in principle to "
        "settle the case on a class-wide basis. The Company adopted a new office lease in 2021. Although the "
        "Company believes these lawsuits are without merit, the Company has accrued amounts related to such "
        "matters when a loss is probable and reasonably estimable."
    )
    evidence = [_ev("S1-E1", text)]
    question = "What's the status of the IPO-related securities class actions?"
    claims = [
        c.claim for c in offline_distil(DistilInput(sub_question=question, evidence=evidence), DEPS).cards
    ]
    assert any(c.startswith("On February 8, 2022") for c in claims), claims
    assert any("has accrued amounts" in c for c in claims), claims
    history = DistilInput(sub_question="What is alleged in the IPO-related class actions?", evidence=evidence)
    assert not any("has accrued amounts" in c.claim for c in offline_distil(history, DEPS).cards)
    # The opening says both: the development, then the judgement.
    _, summary = _status_opening(evidence, question)
    assert summary.index("agreement in principle") < summary.index("has accrued amounts"), summary


def test_a_risk_reads_what_it_has_already_cost() -> None:
    """Asked about a risk, the sentence of a quoted passage that says the risk has come to pass joins the
    cards, though it shares no word with the question; asked something else, it does not."""
    text = (
        "If we overestimate customer demand for our products, we may not be able to reduce our inventory or "
        "other purchase commitments. Our demand estimates can be incorrect and create volatility in our supply. "
        "Lead times for our products have lengthened. We have also written-down our inventory, incurred "
        "cancellation penalties, and recorded impairments."
    )
    evidence = [_ev("S1-E1", text)]
    risk = DistilInput(
        sub_question="What does the 10-K say about the risk of misjudging demand?", evidence=evidence
    )
    assert any("written-down" in c.claim for c in offline_distil(risk, DEPS).cards)
    other = risk.model_copy(update={"sub_question": "How does the company estimate customer demand?"})
    assert not any("written-down" in c.claim for c in offline_distil(other, DEPS).cards)
    # The opening quotes it after the filing's first words on the risk.
    _, summary = _status_opening(evidence, risk.sub_question)
    assert "It adds: “We have also written-down our inventory" in summary, summary


def test_a_quoted_table_row_stays_one_quote() -> None:
    """Only a sentence's end starts another quote: a row's cells, separated by semicolons, are one."""
    table = "| (in millions) | 2023 | 2022 |\n|---|---|---|\n| Greater China | 72,559 | 74,200 |"
    (row,) = [claim for claim, *_ in cited_rows(table)]
    question = "What were Greater China net sales?"
    step = StepDigest(
        index=0, sub_question=question, tool="search_10k", origin="anchor", query=question,
        evidence=[_ev("S1-E1", table)], cards=[KnowledgeCard(claim=row, evidence_ids=["S1-E1"], confidence=0.9)],
    )  # fmt: skip
    summary = offline_write(WriterInput(question=question, steps=[step]), DEPS).summary
    assert summary == f"The filing states: “{row}” [S1-E1].", summary
