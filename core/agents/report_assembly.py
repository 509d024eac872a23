"""Turn a report draft into Markdown with numbered citations, each resolving to a verbatim quote."""

from __future__ import annotations

import re

from core.agents.contracts import DraftClaim, DraftTable, ReportDraft
from core.models import EVIDENCE_ID_PATTERN, Citation, Evidence
from core.text.escape import escape_markdown, escape_markdown_inline
from core.text.markdown_table import is_table_line, row_cells
from core.text.sentences import jaccard, normalise_ws, split_sentences
from core.text.tokens import content_terms

MAX_QUOTE = 400
SOURCES_HEADING = "### Sources"
_EVIDENCE_REF_RE = re.compile(rf"\[((?:{EVIDENCE_ID_PATTERN})(?:\s*[,;]\s*{EVIDENCE_ID_PATTERN})*)\]")


def _inert(text: str) -> str:
    """Document text on one line as inert Markdown: no links, emphasis, HTML, math or fake citations."""
    return escape_markdown(normalise_ws(text))


def _inert_inline(text: str) -> str:
    """`_inert` for text in the middle of a line (a working after its figure, a table cell)."""
    return escape_markdown_inline(normalise_ws(text))


def best_quote(claim: str, passage: str) -> str:
    """The passage sentence that best supports `claim`, verbatim (cut at a word boundary if long)."""
    # Table rows are quoted as whole lines; prose as sentences.
    rows = [line.strip() for line in passage.splitlines() if is_table_line(line)]
    for row in rows:
        cells = [c for c in row_cells(row) if c]
        # A claim rendered from a table row names the row's label and repeats its cells.
        if len(cells) >= 2 and f"{cells[0]}:" in claim and all(c in claim for c in cells[1:]):
            return row
    sentences = [s for s in split_sentences(passage) if s.count("|") < 2] + rows or [passage.strip()]
    norm_claim = normalise_ws(claim)
    exact = next((s for s in sentences if normalise_ws(s) == norm_claim), None)
    if exact is None:
        exact = next((s for s in sentences if norm_claim and norm_claim in normalise_ws(s)), None)
    if exact is None and len(claim) <= MAX_QUOTE and norm_claim and norm_claim in normalise_ws(passage):
        return claim  # the passage's own words across sentence lines (a table row read as one line)
    if exact is None:
        terms = set(content_terms(claim))
        exact = max(sentences, key=lambda s: jaccard(terms, set(content_terms(s))))
    if len(exact) > MAX_QUOTE:
        exact = exact[:MAX_QUOTE].rsplit(" ", 1)[0]
    return exact


class CitationBook:
    """Numbers citations in order of first use; one number per (passage, quote): a passage two steps found
    (two evidence ids) is one source."""

    def __init__(self, evidence: dict[str, Evidence]) -> None:
        self.evidence = evidence
        self.citations: list[Citation] = []
        self._numbers: dict[tuple[str, str, str], int] = {}  # (passage, its text, quote) -> number

    def cite(self, evidence_ids: list[str], claim: str) -> str:
        """'[1][2]' for the citable evidence among `evidence_ids` ('' when none is citable)."""
        marks = []
        for eid in dict.fromkeys(evidence_ids):
            ev = self.evidence.get(eid)
            if ev is None or ev.kind not in ("filing", "web"):
                continue
            quote = ev.quote or best_quote(claim, ev.text)
            key = (ev.chunk_id or eid, ev.text, quote)
            if key not in self._numbers:
                self._numbers[key] = len(self.citations) + 1
                self.citations.append(
                    Citation(
                        number=self._numbers[key],
                        evidence_id=eid,
                        quote=quote,
                        chunk_id=ev.chunk_id,
                        filing_id=ev.filing_id,
                        filing_label=ev.filing_label,
                        section=ev.section,
                        page=ev.page,
                        url=ev.url,
                        title=ev.title,
                        date=ev.date,
                    )
                )
            marks.append(f"[{self._numbers[key]}]")
        return "".join(dict.fromkeys(marks))


def _claim_line(book: CitationBook, claim: DraftClaim, *, headline: bool = False) -> str:
    marks = book.cite(claim.evidence_ids, claim.text)
    if headline and not marks:
        # An answer part the filings did not support ("not found ..."): a note, never a cited claim.
        return f"_{_inert(claim.text)}_"
    if headline and " — " in claim.text:
        # "Operating margin (FY2022): 34.6% — 5,000 / 14,000 = 34.6%": the figure in bold, then its working.
        head, working = claim.text.split(" — ", 1)
        return f"- **{_inert(head)}** — {_inert_inline(working)} {marks}".rstrip()
    if headline:
        return f"- **{_inert(claim.text)}** {marks}".rstrip()
    return f"- {_inert(claim.text)} {marks}".rstrip()


def _table_lines(book: CitationBook, table: DraftTable) -> list[str]:
    """A figures table as Markdown: the row's name, then each figure with its citations (cells inert)."""

    def cell(claim: DraftClaim) -> str:
        return f"{_inert_inline(claim.text)} {book.cite(claim.evidence_ids, claim.text)}".strip()

    lines = [
        "| " + " | ".join(_inert_inline(c) for c in table.columns) + " |",
        "|---|" + "---:|" * (len(table.columns) - 1),
    ]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in table.rows]
    return lines


def _summary(book: CitationBook, summary: str) -> str:
    # A drafted summary may cite evidence ids inline, e.g. "[S1-E2]"; turn them into numbers.
    out, last = [], 0
    for m in _EVIDENCE_REF_RE.finditer(summary):
        out.append(_inert(summary[last : m.start()]))
        ids = [i.strip() for i in re.split(r"[,;]", m.group(1))]
        # A mark cites what was written since the mark before it: the last full stop may be an abbreviation's
        # inside the quotation ("… in violation of U.S. antitrust laws” [S1-E3]").
        out.append(" " + book.cite(ids, summary[last : m.start()]))
        last = m.end()
    out.append(_inert(summary[last:]))
    return "".join(out).strip()


def source_line(c: Citation) -> str:
    """One line of the Sources list: where the quote is, and the quote itself."""
    if c.url:
        where = f"{_inert(c.title or c.url)} — {c.url} (retrieved {c.date or 'n.d.'})"
    else:
        parts = [
            c.filing_label or c.filing_id or "filing",
            c.section or "",
            f"p. {c.page}" if c.page is not None else "",
        ]
        where = _inert(", ".join(p for p in parts if p))
    return f"- [{c.number}] {where}: “{_inert(c.quote)}”"


def assemble_report(draft: ReportDraft, evidence: dict[str, Evidence]) -> tuple[str, list[Citation]]:
    """Markdown answer grouped by sub-question, with [n] citations, and the citations themselves."""
    book = CitationBook(evidence)
    lines = ["## Answer", ""]
    # The paragraph an analyst pastes into a note first, then each figure with its working and the passages.
    if draft.summary.strip():
        lines += [_summary(book, draft.summary), ""]
    for table in draft.tables:
        lines += [*_table_lines(book, table), ""]
    if draft.answer:
        lines += [_claim_line(book, claim, headline=True) for claim in draft.answer]
        lines.append("")
    if draft.method.strip():
        lines += [f"_{_inert(draft.method)}_", ""]
    for section in draft.sections:
        lines.append(f"### {_inert(section.heading)}")
        lines += [_claim_line(book, claim) for claim in section.claims]
        if section.gap:
            lines.append(f"_{_inert(section.gap)}_")
        lines.append("")
    if draft.conflicts:
        lines.append("### Conflicts in the evidence")
        lines += [_claim_line(book, claim) for claim in draft.conflicts]
        lines.append("")
    if book.citations:
        lines.append(SOURCES_HEADING)
        lines += [source_line(c) for c in book.citations]
    return "\n".join(lines).strip() + "\n", book.citations
