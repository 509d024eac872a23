"""Question-set loaders: FinanceBench, the sample set, and analysts' uploads (good and bad)."""

from __future__ import annotations

import json

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
