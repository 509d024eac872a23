"""A question across a company's quarterly reports: each report gives its own quarter's figure, the answer
states them in period order, each cited, then the change. The four 10-Qs are written here (an invented
company whose fiscal year ends June 30) and go through the real pipeline, index and research graph."""

from __future__ import annotations

import json
import os
import re

import pytest

from core.cli import main

os.environ.setdefault("HF_HUB_OFFLINE", "1")

REPORT = """UNITED STATES SECURITIES AND EXCHANGE COMMISSION
Washington, D.C. 20549
FORM 10-Q
QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the quarterly period ended {end}
Commission File Number 001-45678
BOREALIS FOODS INC.
(Exact name of registrant as specified in its charter)
Delaware 84-1234567

PART I — FINANCIAL INFORMATION
Item 1. Financial Statements

BOREALIS FOODS INC.
CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS (Unaudited)
(In millions) Three Months Ended {spans}
{dates}
Net sales {sales}
Cost of sales {cost}
Operating income {operating}

CONDENSED CONSOLIDATED BALANCE SHEETS (Unaudited)
(In millions)
{end} {year_end}
Inventories {inventories}
Total assets {assets}

Item 2. Management's Discussion and Analysis of Financial Condition and Results of Operations
Net sales for the quarter ended {end} changed compared with the same quarter a year earlier, driven by
volumes of frozen meals sold to grocery chains and by price increases taken on the company's soups.
Borealis Foods sells packaged foods to retailers in North America.

PART II — OTHER INFORMATION
Item 1A. Risk Factors
There have been no material changes to the risk factors disclosed in our Annual Report on Form 10-K for the
fiscal year ended {year_end}.
"""

# (period end, the fiscal year end before it, the columns' lengths and dates, net sales, cost, operating
#  income, inventories, total assets) — fiscal 2024 runs from July 1, 2023 to June 30, 2024.
QUARTERS = [
    ("September 30, 2023", "June 30, 2023", "", "Sep 30, 2023 Sep 30, 2022", "1,210 1,105", "800 760",
     "150 120", "310 290", "4,100 4,000"),
    ("December 31, 2023", "June 30, 2023", "Six Months Ended", "Dec 31, 2023 Dec 31, 2022 Dec 31, 2023 Dec 31, 2022",
     "1,480 1,390 2,690 2,495", "950 905 1,750 1,665", "210 190 360 310", "300 290", "4,250 4,000"),
    ("March 31, 2024", "June 30, 2023", "Nine Months Ended", "Mar 31, 2024 Mar 31, 2023 Mar 31, 2024 Mar 31, 2023",
     "1,320 1,250 4,010 3,745", "870 840 2,620 2,505", "170 160 530 470", "330 290", "4,300 4,000"),
    ("September 30, 2024", "June 30, 2024", "", "Sep 30, 2024 Sep 30, 2023", "1,299 1,210", "850 800",
     "160 150", "340 320", "4,500 4,400"),
]  # fmt: skip


@pytest.fixture(scope="module")
def quarterly_library(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("quarters")
    paths = []
    for n, (end, year_end, spans, dates, sales, cost, operating, inventories, assets) in enumerate(QUARTERS):
        path = data_dir.parent / f"borealis_10q_{n}.txt"
        path.write_text(
            REPORT.format(
                end=end, year_end=year_end, spans=spans, dates=dates, sales=sales, cost=cost,
                operating=operating, inventories=inventories, assets=assets,
            )
        )  # fmt: skip
        paths.append(str(path))
    assert main(["ingest", "--data-dir", str(data_dir), "--quiet", *paths]) == 0
    return data_dir


def test_a_question_across_four_quarterly_reports_is_answered_period_by_period(quarterly_library, capsys):
    capsys.readouterr()
    assert main(["filings", "--data-dir", str(quarterly_library)]) == 0
    filings = json.loads(capsys.readouterr().out)
    assert sorted((f["form"], f["fiscal_year"], f["fiscal_quarter"]) for f in filings) == [
        ("10-Q", 2024, 1), ("10-Q", 2024, 2), ("10-Q", 2024, 3), ("10-Q", 2025, 1),
    ]  # fmt: skip
    ids = [arg for f in filings for arg in ("--filing", f["filing_id"])]
    question = "How have Borealis's net sales changed over the last four quarters?"
    assert main(["ask", question, "--data-dir", str(quarterly_library), "--auto-approve", *ids]) == 0
    run = json.loads(capsys.readouterr().out)
    assert run["status"] == "finished"
    calculators = [s["sub_question"] for s in run["steps"] if s["tool"] == "calculator"]
    # One step per report, in period order, each asking for its own quarter.
    assert [c.split("for ")[-1].rstrip("?") for c in calculators] == [
        "Q1 FY2024", "Q2 FY2024", "Q3 FY2024", "Q1 FY2025",
    ]  # fmt: skip
    # The JSON carries the answer as plain text (no Markdown escapes), the Markdown the pages render beside it.
    assert "\\$" not in run["answer"] and "\\$" in run["answer_markdown"]
    first = run["answer"].split("Answer\n", 1)[1].strip().split("\n")[0]
    # The quarter's figure, never the year to date's (2,690; 4,010) printed beside it; the change, first to last.
    assert "1,210 million in Q1 FY2024" in first
    assert "1,480 million in Q2 FY2024" in first and "1,320 million in Q3 FY2024" in first
    assert "1,299 million in Q1 FY2025" in first
    assert (
        first.index("Q1 FY2024")
        < first.index("Q2 FY2024")
        < first.index("Q3 FY2024")
        < first.index("Q1 FY2025")
    )
    assert "rose 7.4%" in first
    assert "2,690" not in first and "4,010" not in first
    # Then a table by period, each cell cited.
    table = [line for line in run["answer"].splitlines() if re.match(r"Q\d FY\d{4} \| ", line)]
    assert [line.split(" | ")[0] for line in table] == ["Q1 FY2024", "Q2 FY2024", "Q3 FY2024", "Q1 FY2025"]
    assert all(re.search(r"\$[\d,]+ million \[\d+\]$", line) for line in table)
    cited = {c["number"] for c in run["citations"]}
    assert all(f"[{n}]" in first for n in range(1, 5)) and {1, 2, 3, 4} <= cited
