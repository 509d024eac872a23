"""Question sets with ground truth: FinanceBench, Docugami's 10-Q questions, the sample filing's set, and an
analyst's own CSV/JSONL.

A user set has one question per row with the columns `question`, `answer` and `filing` (the file name of
an ingested filing, or of a file next to the set), and optionally `evidence` (text), `page` (the page a
PDF viewer shows; several separated by ';'), `type`, `id` and `figures` (the figures that answer it,
separated by ';'; in JSON Lines also `parts`, each with its own `figures`).
"""

from __future__ import annotations

import csv
import fnmatch
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from core.evaluation.numbers import main_figures
from core.failures import WorkbenchError
from core.models import EvalPart, EvalQuestion

_PROJECT = Path(__file__).resolve().parents[2]
SAMPLE_SET = _PROJECT / "sample_docs" / "questions.json"
#: Where FinanceBench is looked for when no folder is configured: beside the project.
DEFAULT_FINANCEBENCH = _PROJECT.parent / "shared" / "data" / "financebench"
#: Where Docugami's 10-Q question set (qna_data.csv and docs/) is looked for: beside the project.
DEFAULT_DOCUGAMI = _PROJECT.parent / "shared" / "data" / "docugami_sec10q"
#: Where the public filings beside the project are looked for when a question set names a filing that is
#: neither next to the set nor in the library (the question sets under assets/questions use them).
SHARED_DOCUMENTS = [
    *(_PROJECT.parent / "shared" / "data" / folder for folder in ("filings", "financebench/pdfs")),
    DEFAULT_DOCUGAMI / "docs",
]
#: The sets known by name (any other name is the path of a CSV/JSONL file).
NAMED_SETS = ("sample", "financebench", "docugami")
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
        """The set restricted to a question type and/or a filing (any of a question's), then to its first
        `limit` questions."""
        chosen = [
            q
            for q in self.questions
            if (not qtype or q.qtype == qtype)
            and (not filing or filing.lower() in (f.lower() for f in q.filings))
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


# --- Docugami's 10-Q questions ---------------------------------------------------------------------

#: A document of the Docugami set: "<year> Q<quarter> <ticker>.pdf".
_DOCUGAMI_NAME = re.compile(r"(\d{4}) Q([1-4]) ([A-Za-z.]+)\.pdf", re.I)
#: The line(s) of a reference that name its documents ("SOURCE(S): 2023 Q1 AAPL.pdf, ..."), and a
#: statement's own note ("(SOURCE: 2022 Q3 AAPL.pdf)", "("2023 Q1 AAPL.pdf")").
_SOURCE_LINE = re.compile(r"^[ \t]*SOURCE(?:\(S\)|S)?:.*$", re.I | re.M)
_SOURCE_NOTE = re.compile(
    r"[ \t]*\((?:SOURCE(?:\(S\)|S)?:[^)\n]*|\"?\d{4} Q[1-4] [A-Za-z.]+\.pdf\"?)\)", re.I
)
#: UTF-8 read as Windows-1252 ("Managementâ€™s"), as 13 of the set's answers print it.
_MOJIBAKE = re.compile("â€|â‚|Ã.|Â")


def period_order(name: str) -> tuple:
    """Sort key of a Docugami document name: year, quarter, then the name."""
    m = _DOCUGAMI_NAME.fullmatch(name)
    return (int(m.group(1)), int(m.group(2)), name.lower()) if m else (9999, 9, name.lower())


def docugami_documents(source_docs: str, documents: list[str]) -> list[str]:
    """The documents a "Source Docs" cell names, in period order: one glob ("*AAPL*", "*2023 Q1 AAPL*"),
    a file name ("2023 Q1 AAPL.pdf", with or without ".pdf"), or several of these separated by commas or
    semicolons. Matching ignores case."""
    found: set[str] = set()
    for part in re.split(r"[,;]", source_docs):
        pattern = part.strip().strip("\"'").strip().lower()
        if not pattern:
            continue
        if not any(c in pattern for c in "*?[") and not pattern.endswith(".pdf"):
            pattern += ".pdf"
        found.update(d for d in documents if fnmatch.fnmatchcase(d.lower(), pattern))
    return sorted(found, key=period_order)


def _cited(answer: str) -> list[str]:
    """The documents a reference's SOURCE(S) line(s) and source notes name, in period order."""
    notes = _SOURCE_LINE.findall(answer) + _SOURCE_NOTE.findall(answer)
    names = {
        f"{m.group(1)} Q{m.group(2)} {m.group(3).upper()}.pdf"
        for note in notes
        for m in _DOCUGAMI_NAME.finditer(note)
    }
    return sorted(names, key=period_order)


def _unmangled(text: str) -> str:
    """Text whose UTF-8 was read as Windows-1252, repaired; other text as it is."""
    if not _MOJIBAKE.search(text):
        return text
    try:
        return text.encode("cp1252").decode("utf-8")
    except UnicodeError:
        return text


def _reference(answer: str) -> str:
    """The reference answer without its source notes (file names, not the answer's words)."""
    text = _SOURCE_NOTE.sub("", _SOURCE_LINE.sub("", answer))
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _main_figures(reference: str, question: str) -> list[str]:
    """The reference's main figure(s) as it prints them (numbers that are not figures aside); [] when it
    states none, so that its answer is judged by its words."""
    return [q.raw for q in main_figures(reference, question)]


def load_docugami(root: Path) -> QuestionSet:
    """Docugami's questions about 20 10-Q reports (qna_data.csv, the reports under root/docs).

    Each question is scoped to the documents its "Source Docs" glob names (a company's four quarters for
    the multi-document questions), `cited_filings` are those its reference's SOURCE(S) line names, and the
    reference is kept without those notes. The set gives no pages, evidence text or figures: the figure an
    answer must state is the reference's main one, read with its dates' days, list numbers and note numbers
    aside (the first number of "quarter ended July 1, 2023: 1. Weakness in …" is no figure).
    """
    path, docs_dir = root / "qna_data.csv", root / "docs"
    if not path.is_file() or not docs_dir.is_dir():
        raise EvalSetError(
            f"The Docugami 10-Q set is not available: {root.name}/qna_data.csv or docs/ is missing."
        )
    documents = sorted(p.name for p in docs_dir.iterdir() if p.suffix.lower() == ".pdf")
    rows = _rows(path.read_bytes(), path.name)
    out: list[EvalQuestion] = []
    for number, row in enumerate(rows, start=1):
        question = _unmangled(str(row.get("question") or "").strip())
        glob = str(row.get("source docs") or "")
        answer = _unmangled(str(row.get("answer") or ""))
        cited, reference = _cited(answer), _reference(answer)
        filings = sorted(set(docugami_documents(glob, documents)) | set(cited), key=period_order)
        if not question or not filings:
            raise EvalSetError(f"Row {number} of {path.name}: no question, or no document matches {glob!r}.")
        absent = [name for name in filings if name not in documents]
        if absent:
            raise EvalSetError(f"Row {number} of {path.name} cites {', '.join(absent)}, absent from docs/.")
        out.append(
            EvalQuestion(
                qid=f"docugami-{number:03d}",
                question=question,
                answer=reference,
                filing=filings[0],
                filings=filings,
                cited_filings=cited,
                qtype=str(row.get("question type") or "").strip() or "all",
                figures=_main_figures(reference, question),
            )
        )
    return QuestionSet("docugami", out, docs_dir, sorted({q.qtype for q in out}))


def docugami_dir() -> Path | None:
    """The Docugami set's folder beside the project, when it is there."""
    return DEFAULT_DOCUGAMI if (DEFAULT_DOCUGAMI / "qna_data.csv").is_file() else None


def load_set(name: str, financebench: Path | None = None) -> QuestionSet:
    """A set by name (NAMED_SETS) or by the path of a CSV/JSONL file."""
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
    if name == "docugami":
        root = docugami_dir()
        if root is None:
            raise EvalSetError(
                "The Docugami 10-Q set is not available here: it is read from shared/data/docugami_sec10q "
                "beside the project (qna_data.csv and docs/)."
            )
        return load_docugami(root)
    path = Path(name)
    if not path.is_file():
        raise EvalSetError(
            f"No question set named {name!r}: use {', '.join(NAMED_SETS)}, or a CSV/JSONL file."
        )
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
