"""Citation validator: every [n] must resolve, and its quote must be in the cited chunk."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Protocol

from pydantic import BaseModel, Field

from core.models import Chunk, Citation, Evidence
from core.text.sentences import normalise_ws

#: A citation mark in an answer: "[3]" or "[3, 4]" ("[3][4]" is two marks); never an escaped bracket ("\\[3]")
#: or a Markdown link ("[3](…)"). The one definition: the validator and the renderers both use it.
CITATION_MARK = re.compile(r"(?<!\\)\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\](?!\()")
#: The heading of an answer's Sources list, and one entry of that list ("- [3] …").
SOURCES_HEADING = re.compile(r"^#{1,6}\s+Sources\b", re.I | re.M)
SOURCE_ENTRY = re.compile(r"^\s*-\s*\[(\d+)\]")
_FLAG = " ⚠ *unsupported: citation removed*"


def mark_numbers(mark: re.Match[str]) -> list[int]:
    """The citation numbers of one CITATION_MARK match."""
    return [int(part) for part in mark.group(1).split(",")]


def cited_numbers(text: str) -> list[int]:
    """Every citation number in the text, in order (repeats kept)."""
    return [n for mark in CITATION_MARK.finditer(text) for n in mark_numbers(mark)]


def answer_body(answer: str) -> str:
    """The answer without its Sources list (quotes repeated there are not statements)."""
    m = SOURCES_HEADING.search(answer)
    return answer[: m.start()] if m else answer


def _keep_valid(mark: re.Match[str], valid: set[int]) -> str:
    """The mark with only its valid numbers ("" when none is)."""
    kept = [n for n in mark_numbers(mark) if n in valid]
    return f"[{', '.join(map(str, kept))}]" if kept else ""


class ChunkSource(Protocol):
    """What the validator needs from core.index.catalog.Catalog."""

    def get_chunks(self, chunk_ids: list[str]) -> list[Chunk]: ...


class CitationProblem(BaseModel):
    number: int
    reason: str


class CitationReport(BaseModel):
    """The checked answer: invalid citations dropped, unsupported claims removed and listed."""

    answer: str
    citations: list[Citation] = Field(default_factory=list)
    problems: list[CitationProblem] = Field(default_factory=list)
    unsupported_claims: list[str] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every citation resolved and no claim was unsupported."""
        return not self.problems and not self.unsupported_claims


def quote_in_text(quote: str, text: str) -> bool:
    """Whitespace- and quote-style-insensitive containment, as filings are re-flowed on extraction."""
    q = normalise_ws(quote)
    return bool(q) and q in normalise_ws(text)


def check_citation(
    citation: Citation, chunk_text: dict[str, str], evidence: dict[str, Evidence] | None = None
) -> str | None:
    """Why `citation` does not hold, or None when it does."""
    if not citation.quote.strip():
        return "empty quote"
    if citation.chunk_id:
        text = chunk_text.get(citation.chunk_id)
        if text is None:
            return f"chunk {citation.chunk_id} is not in the catalog"
        if not quote_in_text(citation.quote, text):
            return "quote is not in the cited chunk"
        return None
    if citation.url:
        ev = (evidence or {}).get(citation.evidence_id)
        if ev is not None and not quote_in_text(citation.quote, ev.text):
            return "quote is not in the cited web result"
        return None
    return "citation has neither a chunk nor a URL"


def load_chunk_text(source: ChunkSource | None, chunk_ids: Iterable[str]) -> dict[str, str]:
    """chunk_id -> text for the ids the catalog knows."""
    ids = list(dict.fromkeys(i for i in chunk_ids if i))
    if source is None or not ids:
        return {}
    return {c.chunk_id: c.text for c in source.get_chunks(ids)}


def _is_claim_line(line: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(("- ", "* ")) and not stripped.startswith(("- _", "* _"))


def validate_answer(
    answer: str,
    citations: list[Citation],
    source: ChunkSource | None,
    *,
    evidence: dict[str, Evidence] | None = None,
    remove_unsupported: bool = True,
    chunk_text: Callable[[list[str]], dict[str, str]] | None = None,
) -> CitationReport:
    """Check every citation against the catalog; drop bad ones, and remove (or flag) claims left unsupported."""
    ids = [c.chunk_id for c in citations if c.chunk_id]
    texts = chunk_text(ids) if chunk_text else load_chunk_text(source, ids)
    by_number = {c.number: c for c in citations}
    problems: list[CitationProblem] = []
    valid: set[int] = set()
    for c in citations:
        reason = check_citation(c, texts, evidence)
        if reason:
            problems.append(CitationProblem(number=c.number, reason=reason))
        else:
            valid.add(c.number)
    used = set(cited_numbers(answer))
    for n in sorted(used - set(by_number)):
        problems.append(CitationProblem(number=n, reason="no such citation"))

    out_lines: list[str] = []
    unsupported: list[str] = []
    in_sources = False
    for line in answer.splitlines():
        if SOURCES_HEADING.match(line.strip()):
            in_sources = True
        if in_sources:
            m = SOURCE_ENTRY.match(line)
            if m and int(m.group(1)) not in valid:
                continue
            out_lines.append(line)
            continue
        cited = cited_numbers(line)
        if not _is_claim_line(line) or (cited and all(n in valid for n in cited)):
            out_lines.append(line)
            continue
        # Keep only the citations that hold; a claim with none left is unsupported.
        kept = CITATION_MARK.sub(lambda m: _keep_valid(m, valid), line).rstrip()
        if any(n in valid for n in cited):
            out_lines.append(kept)
            continue
        claim = CITATION_MARK.sub("", line).strip().lstrip("-* ").strip()
        unsupported.append(claim)
        if not remove_unsupported:
            out_lines.append(kept + _FLAG)
    kept_citations = [c for c in citations if c.number in valid]
    return CitationReport(
        answer="\n".join(out_lines).rstrip() + "\n",
        citations=kept_citations,
        problems=problems,
        unsupported_claims=unsupported,
    )
