"""Metric formulas: parsing analysts' wording, evaluating over rows, and what a question asks for."""

from __future__ import annotations

import pytest

from core.finance.compute import compute, yes_or_no
from core.finance.formula import FormulaError, defined_formula, operands, parse_formula
from core.finance.lookup import SourcedRow, make_lookup
from core.finance.requests import figure_requests
from core.finance.rows import read_rows
from core.finance.vocabulary import label_rank, line_item_for, metrics_in, search_terms_for

BALANCE = """CONSOLIDATED BALANCE SHEETS (in millions)
2019 2018
Cash and cash equivalents 500 400
Accounts receivable, net 300 250
Inventories 200 180
Total current assets 1,100 900
Property, plant and equipment 2,000 1,900
Property, plant and equipment — net 800 700
Accounts payable 150 130
Total current liabilities 600 500
"""
INCOME = """CONSOLIDATED STATEMENTS OF INCOME (in millions)
2019 2018
Total net revenues 6,000 5,000
Cost of revenues 3,600 3,100
Operating income 900 700
Income before income taxes 800 600
Provision for income taxes (200) (150)
Net income 600 450
"""
CASH = """CONSOLIDATED STATEMENTS OF CASH FLOWS (in millions)
2019 2018
Net cash provided by operating activities 1,000 900
Purchases of property and equipment (120) (100)
Net cash used in investing activities (962) (1,372)
Net cash provided by (used in) financing activities (1,806) 250
"""


@pytest.fixture
def lookup():
    rows = [SourcedRow(r, "test") for text in (BALANCE, INCOME, CASH) for r in read_rows(text)]
    return make_lookup(rows)


def _value(question, lookup, default_year=2019):
    requests = figure_requests(question, default_year)
    assert requests, question
    return compute(requests[0], lookup)


def test_defined_formula_with_average_and_explicit_years(lookup):
    q = (
        "What is the FY2019 fixed asset turnover ratio? Fixed asset turnover ratio is defined as: "
        "FY2019 revenue / (average PP&E between FY2018 and FY2019). Round to two decimals."
    )
    result = _value(q, lookup)
    assert result.value == pytest.approx(6000 / 750)
    assert "24" not in result.headline and "8.00" in result.headline
    assert "((700 + 800) / 2)" in result.working


def test_lexicon_metric_change_between_years(lookup):
    result = _value("Has the operating margin improved in FY2019?", lookup)
    assert result.request.years == [2018, 2019]
    assert result.value == pytest.approx((900 / 6000 - 700 / 5000) * 100)
    assert (
        "15.0%" in result.headline
        and "14.0%" in result.headline
        and "up 1.0 percentage points" in result.headline  # as precise as the margins it compares
    )


HISTORY = """CONSOLIDATED STATEMENTS OF EARNINGS (in millions)
2019 2018 2017
Revenue 6,000 5,000 4,000
Cost of sales 3,600 3,100 2,400
"""
DEBT = """CONSOLIDATED BALANCE SHEETS (in millions)
2019 2018
Commercial paper 30 0
Current portion of long-term debt 50 40
Long-term debt 700 760
Total current liabilities 600 500
"""


def _rows_lookup(*texts):
    return make_lookup([SourcedRow(r, "test") for text in texts for r in read_rows(text)])


def test_a_history_question_gets_every_year_on_year_move():
    result = _value("Are the gross margins historically consistent?", _rows_lookup(HISTORY))
    assert result.request.years == [2017, 2018, 2019] and result.request.aggregate == "change"
    # 40.0% -> 38.0% -> 40.0%: flat end to end, but it moved two points each year.
    assert "year on year: −2.0 percentage points, +2.0 percentage points" in result.headline


def test_total_debt_adds_every_debt_row_the_balance_sheet_has():
    result = _value("Has the company increased its debt on balance sheet in FY2019?", _rows_lookup(DEBT))
    assert result.request.years == [2018, 2019]
    per_year = {year: e.value for year, e in result.per_year.items()}
    assert per_year == {2018: 800, 2019: 780}
    assert "change −$20 million, −2.5%" in result.headline


def test_total_debt_without_short_term_borrowings_says_which_definition_it_used():
    no_paper = DEBT.replace("Commercial paper 30 0\n", "")
    result = _value("What was the company's total debt in FY2019?", _rows_lookup(no_paper))
    assert result.value == 750
    assert "as short-term borrowings is not reported" in result.working


def test_gross_margin_from_product_and_service_costs_when_no_total_cost_is_printed():
    income = """CONSOLIDATED STATEMENTS OF OPERATIONS (in millions)
2019 2018
Total revenues 1,000 900
Cost of products (600) (560)
Cost of services (150) (130)
Operating earnings 90 70
"""
    result = _value("What was the FY2019 gross margin?", _rows_lookup(income))
    assert result.value == pytest.approx(0.25)
    assert "as gross profit is not reported" in result.working and "25.0%" in result.headline


def test_whether_cash_was_paid_is_answered_with_the_amount():
    cash = CASH + "Dividends paid (300) (250)\nRepurchases of common stock (500) (0)\n"
    result = _value("Has the company paid dividends to common shareholders in FY2019?", _rows_lookup(cash))
    assert result.value == 300 and "$300 million" in result.headline
    result = _value("Did the company buy back shares in FY2019?", _rows_lookup(cash))
    assert result.value == 500 and "$500 million" in result.headline
    assert figure_requests("Has the company disclosed any cybersecurity incidents?", 2019) == []


def test_growth_that_names_no_figure_is_revenue_growth(lookup):
    result = _value("Is this a high growth company as of FY2019?", lookup)
    assert result.request.name == "revenue" and result.request.years == [2018, 2019]
    assert "+$1,000 million, +20.0%" in result.headline


def test_outflows_are_stated_unsigned_and_amounts_keep_their_unit(lookup):
    capex = _value("What is the FY2019 capital expenditure amount (in USD millions)?", lookup)
    assert capex.value == 120 and "$120 million" in capex.headline
    tax = _value("What is the FY2019 effective tax rate?", lookup)
    assert tax.value == pytest.approx(0.25) and "25.0%" in tax.headline


def test_net_ppe_prefers_the_net_row_and_converts_to_the_unit_asked(lookup):
    ppe = _value("What is the year end FY2019 net PP&E? Answer in USD billions.", lookup)
    assert ppe.value == 800 and "$0.80 billion" in ppe.headline


def test_growth_of_an_amount_is_a_percentage(lookup):
    result = _value("What is the year-over-year change in revenue from FY2018 to FY2019?", lookup)
    assert result.value == pytest.approx(20.0) and "+20.0%" in result.headline


def test_missing_inputs_are_named_not_guessed(lookup):
    result = _value("What is the FY2017 current ratio?", lookup, default_year=2017)
    assert result.value is None
    assert ("total current assets", 2017) in result.missing
    assert "not computed" in result.headline


def test_fallback_definition_when_a_component_is_not_reported(lookup):
    result = _value("What is the FY2019 quick ratio?", lookup)
    # No short-term investments row: only that term is dropped (not prepaid and other current assets too)
    # and the working says so.
    assert result.value == pytest.approx((500 + 300) / 600)
    assert "as short-term investments is not reported" in result.working


def test_parse_formula_and_errors():
    tree = parse_formula("365 * (average accounts payable between FY2016 and FY2017) / (FY2017 COGS)")
    ops = operands(tree)
    assert [o.item.key for o in ops] == ["accounts_payable", "cost_of_revenue"]
    assert ops[0].mode == "average" and ops[0].years == (2016, 2017)
    with pytest.raises(FormulaError):
        parse_formula("(revenue / ")
    with pytest.raises(FormulaError):
        parse_formula("2 * 3")
    assert defined_formula("What is the FY2020 current ratio for Acme?") is None


def test_lexicon_lookups():
    assert line_item_for("average PP&E").key == "ppe_net"
    assert line_item_for("income before income taxes").key == "pretax_income"
    assert [m.key for m in metrics_in("Is the EBITDA margin or free cash flow conversion better?")] == [
        "ebitda_margin",
        "fcf_conversion",
    ]
    from core.finance.vocabulary import LINE_ITEM_BY_KEY

    revenue = LINE_ITEM_BY_KEY["revenue"]
    assert label_rank(revenue, "Total net sales") is not None
    assert label_rank(revenue, "Cost of sales") is None
    assert label_rank(revenue, "Sales and marketing") is None
    assert "purchases of property plant and equipment capital expenditures" in search_terms_for("capex")


def test_questions_that_ask_for_no_figure():
    assert figure_requests("What are the main competition risks?", 2022) == []
    assert figure_requests("Which segment dragged down growth?", 2022) == []
    assert figure_requests("Which of the segments grew fastest in FY2022?", 2022) == []


def test_which_of_several_cash_flows_asks_for_each_of_them(lookup):
    question = (
        "Among operations, investing, and financing activities, which brought in the most (or lost the "
        "least) cash flow in FY2019?"
    )
    requests = figure_requests(question, 2019)
    assert [r.name for r in requests] == [
        "cash from operations",
        "cash from investing activities",
        "cash from financing activities",
    ]
    computed = [compute(r, lookup) for r in requests]
    assert [c.value for c in computed] == [1000, -962, -1806]
    # A negative amount is signed before its currency, as analysts write it.
    assert "−$962 million" in computed[1].headline
    # Without a ranking word or a figure, the list of activities is prose ("operating activities").
    assert figure_requests("Describe its operating, investing and financing activities.", 2019) == []


def test_cash_flow_rows_as_filings_label_them():
    cfo, cfi, cff = (
        line_item_for(name)
        for name in ("cash from operations", "investing activities", "financing activities")
    )
    assert label_rank(cfo, "Cash provided (used) by operations") is not None
    assert (
        label_rank(cfo, "Adjustments to reconcile net income to net cash provided (used) by operations")
        is None
    )
    assert label_rank(cfi, "Net cash (used in) provided by investing activities") is not None
    assert label_rank(cfi, "Other investing activities") is None
    assert label_rank(cff, "Cash provided (used) by financing activities") is not None


@pytest.mark.parametrize(
    ("question", "headline", "verdict"),
    [
        (
            "Has it increased its debt between FY2022 and FY2023?",
            "Total debt: FY2022 $49,781 million, FY2023 $47,237 million; change −$2,544 million, −5.1%",
            "No",
        ),
        (
            "Did it grow its PPNE between FY20 and FY21?",
            "Property, plant and equipment, net: FY2020 $13,745 million, FY2021 $14,882 million; change +$1,137 "
            "million, +8.3%",
            "Yes",
        ),
        (
            "Did gross margin decline?",
            "Gross margin: FY2021 68.2%, FY2022 67.3%; down 0.9 percentage points",
            "Yes",
        ),
        (
            "Does it have positive working capital in FY2022?",
            "Working capital (FY2022): −$1,561 million",
            "No",
        ),
        (
            "Does it have positive working capital in FY2022?",
            "Working capital (FY2022): $2,278 million",
            "Yes",
        ),
        ("Has it paid dividends in FY2022?", "Dividends paid (FY2022): $2,907 million", "Yes"),
        # A judgement of size, a question that is not a yes or no, a figure not computed: no verdict.
        ("Is it a high growth company?", "Revenue: FY2021 93,775, FY2022 94,943; change +1.2%", None),
        ("What was revenue growth in FY2022?", "Revenue: FY2021 93,775, FY2022 94,943; change +1.2%", None),
        ("Did revenue grow?", "Revenue (FY2021, FY2022): not computed — revenue for FY2021 not found", None),
        ("Did revenue grow?", "Revenue (FY2022): $94,943 million", None),
    ],
)
def test_a_yes_or_no_settled_by_a_figures_sign(question, headline, verdict):
    assert yes_or_no(question, headline) == verdict


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # The part named after the whole: a part of the company is that part's row of the whole.
        (
            "What share of Apple's total net sales came from Services in fiscal 2024?",
            [("Services as a share of revenue", "Services revenue / revenue")],
        ),
        (
            "What percentage of total revenue did Data Center contribute in fiscal 2023?",
            [("Data Center as a share of revenue", "Data Center revenue / revenue")],
        ),
        # The part names a line item, with the company it belongs to left out.
        (
            "What share of revenue went to R&D at NVIDIA in fiscal 2024?",
            [
                (
                    "research and development expense as a share of revenue",
                    "research and development expense / revenue",
                )
            ],
        ),
        # The part is a figure the vocabulary does not list: found by its words.
        (
            "Stock-based compensation as a percentage of revenue in 2021?",
            [("Stock-based compensation as a share of revenue", "Stock-based compensation / revenue")],
        ),
        # "that" is the figure asked just before: the amount first, then its share.
        (
            "How much did NVIDIA spend on research and development in fiscal year 2023, and what share of revenue "
            "was that?",
            [
                ("research and development expense", "research and development expense"),
                (
                    "research and development expense as a share of revenue",
                    "research and development expense / revenue",
                ),
            ],
        ),
        # "How much of it came from X" asks for the part's amount of the figure just asked, and its share.
        (
            "Uber 2021: what was total revenue, how fast did it grow, how much of it came from Delivery?",
            [
                ("revenue", "revenue"),
                ("Delivery revenue", "Delivery revenue"),
                ("Delivery as a share of revenue", "Delivery revenue / revenue"),
            ],
        ),
        (
            "How much of Uber's 2021 revenue came from the United States and Canada region?",
            [
                ("United States and Canada region revenue", "United States and Canada region revenue"),
                (
                    "United States and Canada region as a share of revenue",
                    "United States and Canada region revenue / revenue",
                ),
            ],
        ),
    ],
)
def test_a_share_is_read_with_its_part_and_its_whole(question, expected):
    assert [(r.name, r.formula) for r in figure_requests(question, 2023)] == expected


def test_a_share_of_it_with_no_figure_before_is_no_request():
    # A clause read alone ("how much of it came from Delivery"): "it" refers to nothing in it.
    assert figure_requests("how much of it came from Delivery") == []


def test_a_share_is_not_read_where_none_is_asked():
    # A yes-or-no threshold, a whole that is the figure itself, and the same share in other words.
    assert (
        figure_requests("Are there any product categories that represent more than 20% of revenue?", 2022)
        == []
    )
    listed = figure_requests("Apple FY2024: revenue, growth, share of total net sales?", 2024)
    assert all(r.formula != "revenue / revenue" for r in listed)
    shares = figure_requests(
        "How much of 2021 revenue did stock-based compensation eat up? Give SBC as a % of revenue."
    )
    assert len([r for r in shares if "/" in r.formula]) == 1


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # The part a clause is about is the subject of its figures, also when named away from them.
        ("What did Uber's Delivery business bring in as revenue in 2021?", ["Delivery revenue"]),
        (
            "What operating margin did Apple's Greater China segment earn in FY2023?",
            ["Greater China operating margin"],
        ),
        (
            "Greater China segment operating income for Apple in fiscal 2024?",
            ["Greater China operating income"],
        ),
        # A list of parts: one figure each.
        (
            "Compare the operating income of NVIDIA's two reportable segments, Compute & Networking and Graphics, "
            "for fiscal 2024.",
            ["Compute & Networking operating income", "Graphics operating income"],
        ),
        (
            "Compare segment adjusted EBITDA for Mobility and Delivery at Uber in FY2021.",
            ["Mobility EBITDA", "Delivery EBITDA"],
        ),
        # A name right after the company's possessive is a part of it; a line item or a period is not.
        (
            "Gross margin % on Apple's Services for the three months ended July 1, 2023?",
            ["Services gross margin"],
        ),
        ("What was the gross margin of Apple's Services in 2023?", ["Services gross margin"]),
        ("How much did Apple's R&D expenditure grow in 2023?", ["research and development expense"]),
        # No part named: the whole company's figures.
        ("What were revenue and net income in 2023?", ["revenue", "net income"]),
        # A heading names the part the figures listed after its colon are of (the planner has written the
        # company's own name as "the company"); a name that opens the heading is the company's.
        (
            "the company FY2023 Services: revenue, growth, share of total net sales, and why it grew?",
            ["Services revenue", "Services revenue as a share of revenue"],
        ),
        (
            "the company Intelligent Cloud, quarter ended September 30, 2023: revenue, growth, share of total revenue",
            ["Intelligent Cloud revenue", "Intelligent Cloud revenue as a share of revenue"],
        ),
        ("Lyft 2021: revenue, growth and net loss", ["revenue", "net loss"]),
        ("Note: what was revenue in 2023?", ["revenue"]),
        # A pronoun owning a figure refers to the part of the figure before it, else to the company.
        (
            "AWS sales grew in Q1 2023 but its operating income fell. How much did it fall?",
            ["AWS revenue", "AWS operating income"],
        ),
        ("What was the company's revenue in 2023 and its net income?", ["revenue", "net income"]),
        # Parts named as alternatives ("or") are each asked for; "and" may join the words of one part's name.
        (
            "How did revenue from Windows or Surface devices vary in 2023?",
            ["Windows revenue", "Surface devices revenue"],
        ),
        ("Did Apple's iPhone or Mac net sales grow in 2023?", ["iPhone revenue", "Mac revenue"]),
        (
            "Was Services or Products gross margin higher in 2023?",
            ["Services gross margin", "Products gross margin"],
        ),
        (
            "Any trends in Intel's Data Center Group or IoT segment revenues in 2023?",
            ["Data Center Group revenue", "IoT revenue"],
        ),
        ("What was Intel's Data Center and AI revenue in 2023?", ["Data Center and AI revenue"]),
    ],
)
def test_figures_are_read_with_the_part_of_the_company_they_are_asked_for(question, expected):
    assert [r.name for r in figure_requests(question, 2023)] == expected


def test_an_amount_per_head_is_the_amount_over_the_headcount():
    (request,) = figure_requests("Apple revenue per head in fiscal 2023, using the FTE headcount?", 2023)
    assert request.formula == "revenue / number of employees" and request.name == "revenue per employee"
    # Per share is a metric of its own, per Active Rider a figure the company reports itself.
    assert all(
        "number of" not in r.formula for r in figure_requests("What was diluted EPS per share in 2021?")
    )


def test_a_companys_people_are_its_employee_count_and_how_it_describes_them_is_prose():
    requests = figure_requests(
        "How big is the company's workforce at FY2023 year-end and how does the company describe its approach "
        "to its people and pay?",
        2023,
    )
    assert [(r.name, r.formula) for r in requests] == [("number of employees", "number of employees")]


@pytest.mark.parametrize(
    "question",
    [
        "Why did the company's Mac sales drop so much in FY23?",
        "Why did the company's Mac sales fall in fiscal 2023?",
        "What made Mac sales shrink in 2023?",
    ],
)
def test_why_a_figure_dropped_asks_for_the_figure_and_its_change(question):
    [request] = figure_requests(question, 2023)
    assert (request.name, request.aggregate, request.years) == ("Mac revenue", "change", [2022, 2023])


def test_a_line_item_inside_an_unknown_figure_is_still_asked_where_it_stands_alone():
    """ "revenue" in "Surface devices revenue" (a part the vocabulary does not know) is that part's; the
    "Windows revenue" of another sentence is still asked for (a plan step asks for both)."""
    requests = figure_requests(
        "What is the Windows revenue amount for Q1 FY2023? What is the Surface devices revenue amount for Q1 FY2023?"
    )
    assert [r.name for r in requests] == ["Windows revenue", "Surface devices revenue"]
    assert [r.name for r in figure_requests("What was deferred revenue in 2023?", 2023)] == [
        "deferred revenue"
    ]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # A company's debt, its structure, how it changed: the debt it carries.
        (
            "What changes in debt and interest expense did Acme report in 2023?",
            ["total debt", "interest expense"],
        ),
        ("How did Acme's debt structure change in 2023?", ["total debt"]),
        # Debt it holds, or costs of issuing it, are not what it owes.
        ("Did the company's debt securities portfolio change in 2023?", []),
        # A figure set against one the vocabulary does not know is still read.
        ("How did Acme's operating expenses stack up against its earnings in 2023?", ["operating expenses"]),
    ],
)
def test_debt_and_a_figure_set_against_another_are_read(question, expected):
    assert [r.name for r in figure_requests(question, 2023)] == expected


def test_two_figures_sharing_a_head_are_each_asked_for():
    requests = figure_requests(
        "Cash paid for income taxes and for interest in FY2021 (supplemental cash flow info)?"
    )
    assert [r.name for r in requests] == ["Cash paid for income taxes", "Cash paid for interest"]


def test_a_part_written_before_one_figure_qualifies_that_figure_only():
    requests = figure_requests(
        "How did its Fleet Software segment revenue and R&D spending change in fiscal 2025?"
    )
    assert [r.name for r in requests] == ["Fleet Software revenue", "research and development expense"]


def test_a_share_re_read_from_a_plan_step_keeps_its_part():
    # The planner writes "What is the Data Center revenue as a share of revenue for FY2024?" for the calculator.
    (share,) = figure_requests("What is the Data Center revenue as a share of revenue for FY2024?", 2024)
    assert share.formula == "Data Center revenue / revenue"
    assert (
        figure_requests("What risks does NVIDIA flag around U.S. export controls in the FY2024 10-K?", 2024)
        == []
    )


def test_a_figure_read_from_a_row_whose_printed_and_tagged_values_disagree_says_so():
    from core.finance.compute import compute
    from core.finance.formula import Found

    (request,) = figure_requests("What was revenue in FY2023?", 2023)

    def lookup(operand, year):
        return Found(
            value=1243.0,
            label="Revenue",
            year=year,
            scale=1e6,
            caveat="Printed 1,243 for FY2023 but tagged 1,234 million",
        )

    figure = compute(request, lookup)
    assert figure.complete and "caution: Printed 1,243 for FY2023 but tagged 1,234 million" in figure.headline
    assert figure.sentence.endswith("Caution: Printed 1,243 for FY2023 but tagged 1,234 million.")


def test_a_company_named_before_a_known_line_item_is_not_part_of_its_name():
    assert [r.name for r in figure_requests("What did Apple spend on share repurchases in fiscal 2024?")] == [
        "share repurchases"
    ]
    # A capital that opens the question may be the figure's own word.
    assert [
        r.name
        for r in figure_requests("Restricted cash & cash equivalents on Lyft's balance sheet at 12/31/2021?")
    ] == ["Restricted cash & cash equivalents"]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # A move over periods in other words than "change": the figure is asked for, with its change.
        ("How did Acme's inventory levels shift over the year in 2023?", [("inventories", "change")]),
        ("Have Acme's operating expenses fluctuated in 2023?", [("operating expenses", "change")]),
        # "revenue (generated) from iDrive sales" names one figure, the product's revenue, once.
        (
            "How has the revenue generated from Acme's iDrive sales varied in 2023?",
            [("iDrive revenue", "change")],
        ),
        # Two figures compared are stated beside their ratio.
        (
            "How did Acme's operating expenses compare to its revenue in 2023?",
            [
                ("operating expenses as a ratio of revenue", None),
                ("operating expenses", None),
                ("revenue", None),
            ],
        ),
        # Operational for operating: the same line item.
        ("What were Acme's operational expenditures in 2023?", [("operating expenses", None)]),
        # What a figure comes from, in the analyst's words, is the part asked for (found by meaning) ...
        (
            "How did Acme's revenue from online retail services vary in 2023?",
            [("online retail services revenue", "change")],
        ),
        # ... but not where it is printed, nor the whole company's operations.
        ("What was Acme's interest expense from the income statement in 2023?", [("interest expense", None)]),
    ],
)
def test_a_figure_is_read_in_the_words_analysts_use_for_it(question, expected):
    assert [(r.name, r.aggregate) for r in figure_requests(question, 2023)] == expected


def test_a_ratio_the_planner_names_reads_back_as_the_same_ratio():
    (asked,) = figure_requests("How did Acme's operational spending relate to its revenue in 2023?", 2023)
    assert asked.formula == "operating expenses / revenue"
    # The calculator step the planner writes for it names the ratio: it must read back as one ratio.
    (again,) = figure_requests(f"What is the {asked.name} for FY2023?", 2023)
    assert again.formula == asked.formula


def test_segments_named_in_an_analysts_words_ask_for_the_line_item_part_by_part():
    (request,) = figure_requests("What was revenue from Acme's wholesale and direct segments in 2023?", 2023)
    assert request.by_part and request.parts_asked == "wholesale and direct segments"
    (request,) = figure_requests(
        "Give the net sales breakdown across Acme's product offerings in 2023.", 2023
    )
    assert request.by_part and request.parts_asked == "product offerings"
    assert not figure_requests("What was Acme's revenue in 2023?", 2023)[0].by_part


def test_a_figure_read_as_printed_says_which_row_it_was_read_from(lookup):
    figure = compute(figure_requests("What was total revenue in 2019?", 2019)[0], lookup)
    assert figure.working == "as printed in the row “Total net revenues”"
    assert "6,000" in figure.headline


def test_a_figure_named_in_the_plural_takes_a_plural_verb():
    from core.finance.compute import verb_for

    assert verb_for("Apple inventories") == verb_for("Operating expenses") == "were"
    assert (
        verb_for("Revenue") == verb_for("Diluted EPS") == verb_for("Cash from operations as a share") == "was"
    )
    assert verb_for("Gross margin") == verb_for("Total debt") == verb_for("Cash from operations") == "was"
    assert verb_for("Operating expenses as a ratio of revenue") == "was"


def test_figures_are_asked_in_the_order_the_question_names_them():
    requests = figure_requests(
        "For fiscal 2023, give Apple's interest and dividend income and its interest expense, in USD millions."
    )
    assert [r.name for r in requests] == ["interest and dividend income", "interest expense"]


def test_whether_one_figure_is_more_than_another_is_their_difference():
    question = (
        "For fiscal 2023, give Apple's interest and dividend income and its interest expense, in USD millions. "
        "Did it earn more than it paid?"
    )
    difference, *figures = figure_requests(question, 2023)
    assert (
        difference.formula == "interest and dividend income - interest expense"
        and difference.kind == "amount"
    )
    assert [r.name for r in figures] == ["interest and dividend income", "interest expense"]
    # The sign of the difference answers it, whichever clause asks.
    assert (
        yes_or_no(question, "Interest and dividend income minus interest expense (FY2023): −$183 million")
        == "No"
    )
    assert yes_or_no("Does its cash exceed its debt?", "Cash minus debt (FY2023): −$1,200 million") == "No"
    assert (
        yes_or_no("Did it spend less than it earned?", "Spending minus earnings (FY2023): −$5 million")
        == "Yes"
    )
    # "Higher than last year" is one figure's change, not two figures weighed.
    assert (
        yes_or_no("Is revenue higher than last year?", "Revenue: FY2022 90, FY2023 94; change +4.4%") == "Yes"
    )
    # Two figures and no comparison: no difference.
    assert len(figure_requests("What were revenue and net income in 2023?")) == 2


def test_shares_bought_back_in_the_analysts_word_order_are_share_repurchases():
    (request,) = figure_requests("how many shares did nvidia buy back in Q2 of fiscal 2024 and for how much")
    assert request.name == "share repurchases"


def test_two_figures_set_against_each_other_are_both_asked_for():
    requests = figure_requests(
        "How did Amazon's operating expenses stack up against its net sales in Q1 2023?"
    )
    assert [r.name for r in requests] == ["operating expenses", "net sales"]


def test_a_formula_phrase_keeps_the_whole_name_of_its_part():
    (operand,) = operands(parse_formula("Compute & Networking operating income"))
    assert operand.qualifier == "Compute & Networking" and operand.item is not None


def test_an_adjusted_metric_is_the_companys_own_row_not_the_textbook_formula():
    (request,) = figure_requests("Why did Acme's adjusted EBITDA improve in 2021?", 2021)
    assert request.name == request.formula == "adjusted EBITDA" and not request.line_items
    # "Unadjusted" EBITDA is the textbook formula.
    (request,) = figure_requests("What was Acme's FY2021 unadjusted EBITDA?", 2021)
    assert request.formula == "operating income + depreciation and amortization"


def test_a_figure_said_to_have_moved_is_asked_with_its_change():
    # "rose", "jumped": the question asks how much it moved, not only where it ended.
    (request,) = figure_requests("Acme's cost of revenue rose in 2021 - by how much and why?", 2021)
    assert (
        request.name == "cost of revenue" and request.years == [2020, 2021] and request.aggregate == "change"
    )
    (request,) = figure_requests("Acme's effective tax rate jumped in fiscal 2024; what was it?", 2024)
    assert request.name == "effective tax rate" and request.aggregate == "change"


def test_a_missing_parts_input_is_named_with_its_part():
    [operand] = operands(parse_formula("Cloud Services revenue"))
    assert operand.item is not None and operand.qualifier == "Cloud Services"
    assert operand.name == "Cloud Services revenue"  # not "revenue": the follow-up searches for the part


#: A retailer's statement prints its sales apart from the membership income that completes its revenue.
SALES_AND_FEES = """CONSOLIDATED STATEMENTS OF INCOME (in millions)
2022 2021
Net sales 84,300 78,100
Membership fees 1,900 1,750
Total revenue 86,200 79,850
Net income 2,100 1,900
"""


def test_a_line_item_asked_in_the_words_of_another_of_its_rows_reads_that_row():
    """ "Net sales" asked where the statement prints both "Net sales" and "Total revenue": the row named as
    asked, named so in the answer; "revenue" asked reads the item's first row, as before."""
    requests = figure_requests("How much were net sales and membership fees in fiscal 2022?", 2022)
    assert requests[0].name == "net sales"
    lookup = _rows_lookup(SALES_AND_FEES)
    (sales,) = operands(parse_formula("net sales"))
    (revenue,) = operands(parse_formula("revenue"))
    assert lookup(sales, 2022).label == "Net sales" and lookup(sales, 2022).value == 84_300
    assert lookup(revenue, 2022).label == "Total revenue"
    # Where no row prints the words asked, the item's rows are read in their usual order.
    (only_revenue,) = operands(parse_formula("net sales"))
    assert _rows_lookup(INCOME)(only_revenue, 2019).label == "Total net revenues"
    # The item's first label and the item's own name change nothing; a sales figure is asked once.
    assert [r.name for r in figure_requests("What was total revenue in fiscal 2022?", 2022)] == ["revenue"]
    requests = figure_requests("What were net sales and membership fee revenue in fiscal 2022?", 2022)
    assert [r.name for r in requests] == ["net sales", "membership fee revenue"]
