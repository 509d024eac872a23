"""core.citations: every [n] resolves and its quote is in the cited chunk; failures are removed."""

from __future__ import annotations

from core.citations import quote_in_text, validate_answer
from core.models import Chunk, Citation, Evidence

CHUNKS = {
    "c1": "We face intense   competition from\nlarge companies. Revenue was $26.97 billion.",
    "c2": "Data Center revenue was up 41% from a year ago.",
}


class Catalog:
    def get_chunks(self, chunk_ids: list[str]) -> list[Chunk]:
        return [
            Chunk(
                chunk_id=i,
                filing_id="f",
                section="Item 7",
                page=1,
                chunk_index=0,
                char_start=0,
                char_end=len(CHUNKS[i]),
                text=CHUNKS[i],
            )
            for i in chunk_ids
            if i in CHUNKS
        ]


def _cite(n: int, chunk_id: str | None, quote: str, url: str | None = None) -> Citation:
    return Citation(number=n, evidence_id=f"E{n}", quote=quote, chunk_id=chunk_id, url=url)


ANSWER = """## Answer

Summary line.

### 1. Competition
- We face intense competition from large companies. [1]
- Revenue was $26.97 billion. [2][4]
- Data Center revenue fell. [3]
- A claim with no citation at all.
_No supporting passage found. Searched: query "x"._

### Sources
- [1] filing: “...”
- [3] filing: “...”
"""


def test_quotes_are_compared_whitespace_normalised() -> None:
    assert quote_in_text("intense competition from large companies.", CHUNKS["c1"])
    assert not quote_in_text("intense competition from small companies.", CHUNKS["c1"])
    assert not quote_in_text("   ", CHUNKS["c1"])


def test_bad_citations_are_dropped_and_unsupported_claims_removed() -> None:
    citations = [
        _cite(1, "c1", "We face intense competition from large companies."),
        _cite(2, "c1", "Revenue was $26.97 billion."),
        _cite(3, "c2", "Data Center revenue fell sharply."),  # not in the chunk
        _cite(4, "missing", "anything"),  # chunk not in the catalog
    ]
    report = validate_answer(ANSWER, citations, Catalog())
    assert [c.number for c in report.citations] == [1, 2]
    reasons = {p.number: p.reason for p in report.problems}
    assert reasons == {3: "quote is not in the cited chunk", 4: "chunk missing is not in the catalog"}
    assert "Data Center revenue fell" not in report.answer
    assert "- Revenue was $26.97 billion. [2]" in report.answer  # the bad [4] is stripped, the claim stays
    assert "[3] filing" not in report.answer  # and its source line goes
    assert report.unsupported_claims == ["Data Center revenue fell.", "A claim with no citation at all."]
    assert "_No supporting passage found" in report.answer  # notes about gaps are not claims
    assert not report.ok


def test_flagging_instead_of_removing_and_unknown_numbers() -> None:
    citations = [_cite(1, "c1", "We face intense competition from large companies.")]
    report = validate_answer(
        "- Claim one. [1]\n- Claim two. [7]\n", citations, Catalog(), remove_unsupported=False
    )
    assert "⚠" in report.answer and "Claim two." in report.answer
    assert any(p.number == 7 and p.reason == "no such citation" for p in report.problems)


def test_web_citations_check_the_result_text() -> None:
    web = Evidence(
        evidence_id="E1", kind="web", text="AMD launched the MI300X accelerator.", url="https://a.example"
    )
    ok = _cite(1, None, "AMD launched the MI300X accelerator.", url="https://a.example")
    bad = _cite(2, None, "AMD bought NVIDIA.", url="https://a.example").model_copy(
        update={"evidence_id": "E1"}
    )
    report = validate_answer(
        "- AMD launched it. [1]\n- AMD bought it. [2]\n", [ok, bad], None, evidence={"E1": web}
    )
    assert [c.number for c in report.citations] == [1]
    assert report.unsupported_claims == ["AMD bought it."]


def test_a_grouped_citation_keeps_its_valid_numbers_and_loses_the_others() -> None:
    citations = [_cite(1, "c1", "We face intense competition from large companies.")]
    report = validate_answer("- Competition is intense. [1, 9]\n", citations, Catalog())
    assert report.answer == "- Competition is intense. [1]\n"
    assert [p.number for p in report.problems] == [9]
