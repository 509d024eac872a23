"""Question-set loaders: FinanceBench, the sample set, and analysts' uploads (good and bad)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.evaluation.questions import EvalSetError, load_financebench, load_sample, load_set, load_user_set
from tests.conftest import shared_file


def test_sample_set_has_gold_evidence_for_every_answerable_question():
    qset = load_sample()
    assert len(qset.questions) == 14 and {q.filing for q in qset.questions} == {"northwind_10k_fy2025.html"}
    answerable = [q for q in qset.questions if q.answer != "not disclosed"]
    assert all(q.evidence_texts for q in answerable)
    assert qset.filtered(qtype="numeric").questions and all(
        q.qtype == "numeric" for q in qset.filtered(qtype="numeric").questions
    )
    assert len(qset.filtered(limit=3).questions) == 3


def test_financebench_10k_questions_with_pdfs():
    root = shared_file("financebench", "financebench_open_source.jsonl").parent
    qset = load_financebench(root)
    assert len(qset.questions) == 94 and len({q.filing for q in qset.questions}) == 55
    q = next(q for q in qset.questions if q.qid == "financebench_id_03029")
    assert q.filing == "3M_2018_10K.pdf" and q.evidence_pages == [60]  # 0-based 59 in the data
    assert {"metrics-generated", "domain-relevant", "novel-generated"} == set(qset.types)


def test_csv_and_jsonl_uploads():
    csv_data = b"question,answer,filing,evidence,page,type\nWhat was revenue?,$10 million,acme.pdf,Revenue was $10 million,4;5,numeric\n"
    qset = load_user_set(csv_data, "mine.csv")
    q = qset.questions[0]
    assert (q.question, q.filing, q.evidence_pages, q.qtype) == (
        "What was revenue?",
        "acme.pdf",
        [4, 5],
        "numeric",
    )
    lines = [{"question": "Who audits?", "answer": "KPMG", "filing": "dir/acme.pdf", "page": [7]}]
    qset = load_user_set("\n".join(json.dumps(x) for x in lines).encode(), "mine.jsonl")
    assert qset.questions[0].filing == "acme.pdf" and qset.questions[0].evidence_pages == [7]


@pytest.mark.parametrize(
    ("data", "name", "message"),
    [
        (b"", "empty.csv", "is empty"),
        (b"question,answer\nWhat?,x\n", "cols.csv", r"lacks the column\(s\) filing"),
        (b"question,answer,filing\n", "header.csv", "no questions"),
        (b"question,answer,filing\n,x,acme.pdf\n", "blank.csv", "no question or no filing"),
        (b"question,answer,filing,page\nWhat?,x,a.pdf,seven\n", "page.csv", "is not a number"),
        (b"{not json}\n", "bad.jsonl", "not valid JSON"),
        ("é".encode("latin-1"), "latin.csv", "not UTF-8"),
        (b"question\n", "set.xlsx", "upload a .csv or .jsonl"),
    ],
)
def test_bad_uploads_say_why(data, name, message):
    with pytest.raises(EvalSetError, match=message):
        load_user_set(data, name)


def test_unknown_set_name(tmp_path):
    with pytest.raises(EvalSetError, match="No question set named"):
        load_set(str(tmp_path / "missing.csv"))
    with pytest.raises(EvalSetError, match="FinanceBench is not available"):
        load_set("financebench", tmp_path / "nothing-here")


def _docugami_folder(tmp_path, rows: list[tuple[str, str, str, str]]):
    """A Docugami-shaped folder: qna_data.csv with these rows, and empty PDFs for six 10-Qs."""
    import csv

    docs = tmp_path / "docs"
    docs.mkdir()
    # Written out of period order, and one file that is not a PDF (never a document of the set).
    for name in ("2023 Q3 AAPL.pdf", "2022 Q3 AAPL.pdf", "2023 Q2 AAPL.pdf", "2023 Q1 AAPL.pdf"):
        (docs / name).write_bytes(b"%PDF-1.4\n")
    (docs / "2023 Q1 MSFT.pdf").write_bytes(b"%PDF-1.4\n")
    (docs / "2023 Q1 INTC.pdf").write_bytes(b"%PDF-1.4\n")
    (docs / "notes AAPL.txt").write_text("not a document of the set")
    with (tmp_path / "qna_data.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["Question", "Source Docs", "Question Type", "Source Chunk Type", "Answer"])
        writer.writerows(rows)
    return tmp_path


def test_docugami_source_docs_shapes_resolve_to_documents_in_period_order(tmp_path):
    from core.evaluation.questions import load_docugami

    multi_answer = (
        "Net sales were $82,959 million (SOURCE: 2022 Q3 AAPL.pdf) and then $117,154 million "
        '("2023 Q1 AAPL.pdf").\n\nSOURCE(S): "2022 Q3 AAPL.pdf", "2023 Q1 AAPL.pdf".'
    )
    root = _docugami_folder(
        tmp_path,
        [
            ("How have net sales changed?", "*AAPL*", "Multi-Doc RAG", "Table", multi_answer),
            (
                "What was Apple’s gross margin?",
                "*2023 Q2 AAPL*",
                "Single-Doc Single-Chunk RAG",
                "Table",
                "For the quarter ended April 1, 2023, Managementâ€™s figure was $21,000 million.\n\n"
                "SOURCE(S): 2023 Q2 AAPL.pdf",
            ),
            (
                "What drove the gross margin?",
                "2023 Q3 AAPL.pdf",
                "Single-Doc Multi-Chunk RAG",
                "Text",
                "For the quarter ended July 1, 2023 (Note 9, page 51, Level 2 inputs):\n\n1. Weakness in "
                "foreign currencies.\n2. COVID-19 costs, under case 4:18-cv-07669.\n\nSOURCE(S): 2023 Q3 AAPL.pdf",
            ),
            ("Name without its extension?", "2023 q1 msft", "Single-Doc Multi-Chunk RAG", "Text", "Yes."),
            (
                "Intel and Microsoft in the same quarter?",
                "*2023 Q1 MSFT*, *2023 Q1 INTC*",
                "Multi-Doc RAG",
                "Table",
                "Both reported.\nSOURCE(S): 2023 Q1 INTC.pdf, Notes to Financial Statements",
            ),
            (
                "A reference that cites a report its glob leaves out",
                "*2023 Q1 MSFT*",
                "Single-Doc Single-Chunk RAG",
                "Text",
                "Compare.\n\nSOURCE(S): 2023 Q1 MSFT.pdf, 2023 Q1 INTC.pdf",
            ),
        ],
    )
    qset = load_docugami(root)
    assert qset.name == "docugami" and qset.documents_dir == root / "docs"
    multi, single, exact, bare, pair, outside = qset.questions
    assert multi.filings == ["2022 Q3 AAPL.pdf", "2023 Q1 AAPL.pdf", "2023 Q2 AAPL.pdf", "2023 Q3 AAPL.pdf"]
    assert multi.filing == "2022 Q3 AAPL.pdf" and multi.qtype == "Multi-Doc RAG"
    assert multi.cited_filings == ["2022 Q3 AAPL.pdf", "2023 Q1 AAPL.pdf"]
    # The source notes are file names, not words of the answer.
    assert "SOURCE" not in multi.answer and ".pdf" not in multi.answer
    assert multi.answer.startswith("Net sales were $82,959 million and then $117,154 million.")
    assert single.filings == single.cited_filings == ["2023 Q2 AAPL.pdf"]
    # UTF-8 read as cp1252, repaired.
    assert single.answer == "For the quarter ended April 1, 2023, Management’s figure was $21,000 million."
    # The main figure is the first one the reference states, a date's day not being one; none is stated
    # when the numbers are days, list numbers, note, page and case numbers and names.
    assert multi.figures == ["$82,959 million"] and single.figures == ["$21,000 million"]
    assert exact.filings == exact.cited_filings == ["2023 Q3 AAPL.pdf"] and exact.figures == []
    assert bare.filings == ["2023 Q1 MSFT.pdf"]
    assert pair.filings == ["2023 Q1 INTC.pdf", "2023 Q1 MSFT.pdf"] and pair.cited_filings == [
        "2023 Q1 INTC.pdf"
    ]
    assert outside.filings == ["2023 Q1 INTC.pdf", "2023 Q1 MSFT.pdf"]
    assert [q.qid for q in qset.filtered(filing="2023 Q1 aapl.pdf").questions] == [multi.qid]
    assert len(qset.filtered(qtype="Multi-Doc RAG").questions) == 2


def test_docugami_glob_that_names_no_document_is_refused(tmp_path):
    from core.evaluation.questions import load_docugami

    root = _docugami_folder(tmp_path, [("What?", "*NVDA*", "Multi-Doc RAG", "Text", "Nothing.")])
    with pytest.raises(EvalSetError, match=r"Row 1 of qna_data.csv.*'\*NVDA\*'"):
        load_docugami(root)
    with pytest.raises(EvalSetError, match="not available"):
        load_docugami(tmp_path / "elsewhere")


def test_docugami_real_set_names_documents_that_exist():
    from collections import Counter

    root = shared_file("docugami_sec10q", "qna_data.csv").parent
    qset = load_set("docugami")
    assert qset.documents_dir == root / "docs" and len(qset.questions) == 195
    assert len({q.qid for q in qset.questions}) == 195
    assert Counter(q.qtype for q in qset.questions) == {
        "Single-Doc Single-Chunk RAG": 76,
        "Multi-Doc RAG": 65,
        "Single-Doc Multi-Chunk RAG": 54,
    }
    for q in qset.questions:
        assert q.filings and q.filing == q.filings[0]
        assert all((root / "docs" / name).is_file() for name in q.filings), q.qid
        assert set(q.cited_filings) <= set(q.filings)
        assert "SOURCE(S)" not in q.answer and "â€" not in q.answer
        # Multi-document questions are about one company's four quarters, the others about one report.
        assert len(q.filings) == (4 if q.qtype == "Multi-Doc RAG" else 1), q.qid
    assert len({name for q in qset.questions for name in q.filings}) == 20


@pytest.mark.parametrize("name", ["figures", "narrative"])
def test_our_sets_list_each_figure_of_a_part_once(name):
    """A part is answered when the answer states every figure it lists: one amount listed twice in two units
    ("9,067" and "9.07" for $9,067 million, $9.07 billion) would ask the answer to state both forms. Listed
    once with its unit ("$9,067 million"), either form counts (the rounded one within its rounding)."""
    from core.evaluation.numbers import quantities

    path = Path(__file__).resolve().parents[2] / "assets" / "questions" / f"{name}.jsonl"
    for question in load_user_set(path.read_bytes(), path.name).questions:
        for part in question.parts:
            amounts = [q.number for text in part.figures for q in quantities(text)[:1]]
            for i, a in enumerate(amounts):
                for b in amounts[i + 1 :]:
                    for factor in (1e3, 1e-3):
                        assert abs(a * factor - b) > 0.005 * abs(b), (question.qid, part.ask, part.figures)
