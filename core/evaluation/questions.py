"""Question sets with ground truth: FinanceBench, the sample filing's set, and an analyst's own CSV/JSONL.

A user set has one question per row with the columns `question`, `answer` and `filing` (the file name of
an ingested filing, or of a file next to the set), and optionally `evidence` (text), `page` (the page a
PDF viewer shows; several separated by ';'), `type`, `id` and `figures` (the figures that answer it,
separated by ';'; in JSON Lines also `parts`, each with its own `figures`).
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

from core.failures import WorkbenchError
from core.models import EvalPart, EvalQuestion

_PROJECT = Path(__file__).resolve().parents[2]
SAMPLE_SET = _PROJECT / "sample_docs" / "questions.json"
#: Where FinanceBench is looked for when no folder is configured: beside the project.
DEFAULT_FINANCEBENCH = _PROJECT.parent / "shared" / "data" / "financebench"
#: Where the public filings beside the project are looked for when a question set names a filing that is
#: neither next to the set nor in the library (the question sets under assets/questions use them).
SHARED_DOCUMENTS = [
    _PROJECT.parent / "shared" / "data" / folder
    for folder in ("filings", "financebench/pdfs", "docugami_sec10q/docs")
]
SAMPLE_FILING = "northwind_10k_fy2025.html"
REQUIRED_COLUMNS = ("question", "answer", "filing")


class EvalSetError(WorkbenchError, ValueError):
    """A question set that cannot be used, with a reason a person understands."""


def shared_document(name: str) -> Path | None:
    """The path of a public filing beside the project with this file name, if there is one."""
    for folder in SHARED_DOCUMENTS:
        if (folder / name).is_file():
            return folder / name
    return None


@dataclass
class QuestionSet:
    """Questions and where their filings can be found when they are not ingested yet."""

    name: str
    questions: list[EvalQuestion]
    documents_dir: Path | None = None
    types: list[str] = field(default_factory=list)

    def filtered(
        self, *, limit: int | None = None, qtype: str | None = None, filing: str | None = None
    ) -> QuestionSet:
        """The set restricted to a question type and/or a filing, then to its first `limit` questions."""
        chosen = [
            q
            for q in self.questions
            if (not qtype or q.qtype == qtype) and (not filing or q.filing.lower() == filing.lower())
        ]
        if limit:
            chosen = chosen[:limit]
        return QuestionSet(self.name, chosen, self.documents_dir, self.types)


def load_financebench(root: Path) -> QuestionSet:
    """FinanceBench's open-source questions about 10-K filings whose PDF is present under root/pdfs."""
    questions_path = root / "financebench_open_source.jsonl"
    docs_path = root / "financebench_document_information.jsonl"
    if not questions_path.exists() or not docs_path.exists():
        raise EvalSetError(
            f"FinanceBench is not available: {root.name}/financebench_open_source.jsonl is missing."
        )
    docs = {
        d["doc_name"]: d
        for d in map(json.loads, filter(str.strip, docs_path.read_text(encoding="utf-8").splitlines()))
    }
    out: list[EvalQuestion] = []
    for line in questions_path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        doc = row["doc_name"]
        if (
            docs.get(doc, {}).get("doc_type", "").lower() != "10k"
            or not (root / "pdfs" / f"{doc}.pdf").exists()
        ):
            continue
        evidence = [e for e in row.get("evidence", []) if e.get("doc_name", doc) == doc]
        out.append(
            EvalQuestion(
                qid=row["financebench_id"],
                question=row["question"],
                answer=row["answer"],
                filing=f"{doc}.pdf",
                qtype=row.get("question_type") or "all",
                evidence_texts=[e.get("evidence_text", "") for e in evidence],
                # FinanceBench counts pages from 0; a viewer (and this workbench) from 1.
                evidence_pages=[
                    int(e["evidence_page_num"]) + 1 for e in evidence if "evidence_page_num" in e
                ],
            )
        )
    return QuestionSet("financebench", out, root / "pdfs", sorted({q.qtype for q in out}))


def financebench_dir(configured: Path | None) -> Path | None:
    """The FinanceBench folder to use: the configured one, else the default location when it exists."""
    if configured is not None:
        return configured
    return (
        DEFAULT_FINANCEBENCH if (DEFAULT_FINANCEBENCH / "financebench_open_source.jsonl").exists() else None
    )


def load_set(name: str, financebench: Path | None = None) -> QuestionSet:
    """A set by name ('financebench', 'sample') or by the path of a CSV/JSONL file."""
    if name == "financebench":
        root = financebench_dir(financebench)
        if root is None:
            raise EvalSetError(
                "FinanceBench is not available here: set WORKBENCH_FINANCEBENCH_DIR to its folder "
                "(financebench_open_source.jsonl, financebench_document_information.jsonl, pdfs/)."
            )
        return load_financebench(root)
    if name == "sample":
        return load_sample()
    path = Path(name)
    if not path.is_file():
        raise EvalSetError(f"No question set named {name!r}: use financebench, sample, or a CSV/JSONL file.")
    return load_user_set(path.read_bytes(), path.name, documents_dir=path.parent)


def load_sample() -> QuestionSet:
    """The questions written for the sample filing (answers and evidence passages by hand)."""
    rows = json.loads(SAMPLE_SET.read_text(encoding="utf-8"))
    out = [
        EvalQuestion(
            qid=r["id"],
            question=r["question"],
            answer=r["answer"],
            filing=SAMPLE_FILING,
            qtype=r.get("type", "all"),
            evidence_texts=list(r.get("evidence", [])),
            figures=r.get("figures"),
        )
        for r in rows
    ]
    return QuestionSet("sample", out, SAMPLE_SET.parent, sorted({q.qtype for q in out}))


def _pages(value: object) -> list[int]:
    if isinstance(value, int):
        return [value]
    text = ";".join(map(str, value)) if isinstance(value, list) else str(value or "")
    pages = []
    for part in text.replace(",", ";").split(";"):
        part = part.strip()
        if not part:
            continue
        if not part.isdigit():
            raise EvalSetError(
                f"Page '{part}' is not a number; give pages as a PDF viewer numbers them (1, 2, …)."
            )
        pages.append(int(part))
    return pages


def _figures(row: dict) -> list[str] | None:
    """The figures that answer a question: a `figures` column (a list, or text separated by ';'), or the
    figures of its `parts`; None when the set does not say (the reference's first figure is used)."""
    value = row.get("figures")
    if value is None and isinstance(row.get("parts"), list):
        value = [f for part in row["parts"] if isinstance(part, dict) for f in part.get("figures") or []]
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return [part.strip() for part in value.split(";") if part.strip()]
    return [str(v) for v in value]


def _parts(row: dict) -> list[EvalPart]:
    """The question's parts, where the set lists them (a `parts` list of objects)."""
    parts = row.get("parts")
    if not isinstance(parts, list):
        return []
    out = []
    for part in parts:
        if not isinstance(part, dict):
            continue
        out.append(
            EvalPart(
                part=str(part.get("part") or ""),
                ask=str(part.get("ask") or ""),
                figures=[str(f) for f in part.get("figures") or []],
                key_phrases=[str(k) for k in part.get("key_phrases") or []],
                evidence=str(part.get("evidence") or ""),
            )
        )
    return out


def _rows(data: bytes, name: str) -> list[dict[str, str]]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise EvalSetError(f"{name} is not UTF-8 text; save it as UTF-8 and upload it again.") from exc
    if not text.strip():
        raise EvalSetError(f"{name} is empty.")
    if name.lower().endswith((".jsonl", ".json")):
        rows = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise EvalSetError(f"Line {number} of {name} is not valid JSON ({exc.msg}).") from exc
            if not isinstance(row, dict):
                raise EvalSetError(f"Line {number} of {name} is not a JSON object.")
            rows.append({str(k).strip().lower(): v for k, v in row.items()})
        return rows
    if not name.lower().endswith(".csv"):
        raise EvalSetError(f"{name}: upload a .csv or .jsonl file.")
    reader = csv.DictReader(io.StringIO(text))
    return [{str(k or "").strip().lower(): v for k, v in row.items()} for row in reader]


def load_user_set(data: bytes, name: str, documents_dir: Path | None = None) -> QuestionSet:
    """An analyst's question set (CSV or JSON Lines); raises EvalSetError with a reason on bad input."""
    rows = _rows(data, name)
    if not rows:
        raise EvalSetError(f"{name} has a header but no questions.")
    missing = [c for c in REQUIRED_COLUMNS if c not in rows[0]]
    if missing:
        raise EvalSetError(
            f"{name} lacks the column(s) {', '.join(missing)}; a question set needs question, answer and filing."
        )
    out = []
    for number, row in enumerate(rows, start=1):
        question, answer, filing = (str(row.get(c) or "").strip() for c in REQUIRED_COLUMNS)
        if not question or not filing:
            raise EvalSetError(f"Row {number} of {name} has no question or no filing.")
        evidence = row.get("evidence") or []
        out.append(
            EvalQuestion(
                qid=str(row.get("id") or f"q{number}"),
                question=question,
                answer=answer,
                filing=Path(filing).name,
                qtype=str(row.get("type") or "all").strip() or "all",
                evidence_texts=[evidence]
                if isinstance(evidence, str) and evidence.strip()
                else list(evidence or []),
                evidence_pages=_pages(row.get("page") or ""),
                figures=_figures(row),
                parts=_parts(row),
            )
        )
    return QuestionSet(Path(name).stem, out, documents_dir, sorted({q.qtype for q in out}))
