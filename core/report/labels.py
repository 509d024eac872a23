"""Text labels of a run shared by every report format: metadata, Items, pages, scores, references, URLs."""

from __future__ import annotations

from urllib.parse import urlsplit

from core.models import (
    FRONT_MATTER,
    ITEM_TITLES,
    UNSECTIONED,
    Citation,
    Evidence,
    Filing,
    RunRecord,
    section_rank,
)
from core.report.answer_markup import Run, one_line

REPORT_TITLE = "Research report"
EMPTY = "—"
# Table cells stay short so a PDF row never outgrows a page; the full text lives in the references.
_CELL_LIMIT = 240


def ref_anchor(number: int) -> str:
    """Anchor id of reference `number`, e.g. 'ref-3'."""
    return f"ref-{number}"


def safe_url(url: str | None) -> str | None:
    """The URL if it may become a live link (http/https with a host), else None."""
    if not url:
        return None
    candidate = url.strip()
    if any(ch.isspace() or ord(ch) < 32 or ch in "<>\"'`" for ch in candidate):
        return None
    try:
        parts = urlsplit(candidate)
    except ValueError:
        return None
    if parts.scheme.lower() not in {"http", "https"} or not parts.netloc:
        return None
    return candidate


def clip(text: str, limit: int = _CELL_LIMIT) -> str:
    """One-line text cut to at most `limit` characters with an ellipsis, after a whole word when one ends
    in the last third."""
    flat = one_line(text)
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    space = cut.rfind(" ")
    if space >= (2 * limit) // 3:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


def item_label(section: str | None, section_title: str | None = None) -> str:
    """'Item 1A (Risk Factors)' for an Item, the section name otherwise."""
    if not section:
        return EMPTY
    title = section_title or ITEM_TITLES.get(section)
    return f"{section} ({title})" if title and section.startswith("Item") else section


def page_label(page: int | None) -> str:
    """'page 12', or a dash when the page is unknown."""
    return EMPTY if page is None else f"page {page}"


def score_label(score: float | None) -> str:
    """A score with three decimals, or a dash."""
    return EMPTY if score is None else f"{score:.3f}"


def filing_labels(record: RunRecord) -> list[str]:
    """Labels of the filings this run searched, from its evidence and citations where known."""
    labels: dict[str, str] = {}
    sources: list[Evidence | Citation] = [ev for step in record.steps for ev in step.evidence]
    sources.extend(record.citations)
    for source in sources:
        if source.filing_id and source.filing_label:
            labels.setdefault(source.filing_id, source.filing_label)
    ordered = [labels.get(fid, f"filing {fid[:8]}") for fid in record.filing_ids]
    ordered.extend(label for fid, label in labels.items() if fid not in record.filing_ids)
    return list(dict.fromkeys(ordered))


def rerankers(record: RunRecord) -> list[str]:
    """Every reranker that ordered evidence in this run, in order of first use."""
    return list(dict.fromkeys(step.reranker for step in record.steps if step.reranker))


def metadata_rows(record: RunRecord) -> list[tuple[str, str]]:
    """Label/value rows describing the run (date, engine, rerankers, filings…)."""
    author = [("Author", record.started_by)] if record.started_by else []
    return [
        ("Date", record.updated_at.strftime("%Y-%m-%d %H:%M UTC")),
        *author,
        ("Run", record.run_id),
        ("Engine", record.engine),
        ("Status", record.status + (f" ({record.finish_reason})" if record.finish_reason else "")),
        ("Reranker", ", ".join(rerankers(record)) or "none"),
        ("Filings", "; ".join(filing_labels(record)) or "none"),
        ("Steps executed", str(len(record.steps))),
    ]


def citation_place(citation: Citation) -> str:
    """Where a filing citation points: 'Acme 10-K FY2023, Item 7 (MD&A), page 41'."""
    where = [
        citation.filing_label or "Unknown filing",
        item_label(citation.section),
        page_label(citation.page),
    ]
    return ", ".join(part for part in where if part != EMPTY)


def reference_runs(citation: Citation) -> list[Run]:
    """The reference line of one citation: filing, Item and page, or title, URL and date."""
    if citation.url or (citation.title and not citation.filing_label):
        runs = [Run(citation.title or "Web source", "strong")]
        url = safe_url(citation.url)
        if url:
            runs += [Run(" — "), Run(url, url=url)]
        elif citation.url:
            runs.append(Run(f" — {citation.url} (not linked: not an http(s) address)"))
        if citation.date:
            runs.append(Run(f" — {citation.date}"))
        return runs
    runs = [Run(citation_place(citation), "strong")]
    if citation.chunk_id:
        runs.append(Run(f" (chunk {citation.chunk_id})"))
    return runs


def library_row(filing: Filing) -> dict[str, object]:
    """A filing as the Library's table shows it: whose, which form and period, and which sections were found
    (a 10-K's Items, a 10-Q's Parts and Items, an 8-K's Items, a release's parts), in filing order."""
    found = sorted((s for s in filing.sections if s not in (FRONT_MATTER, UNSECTIONED)), key=section_rank)
    return {
        "Company": filing.company,
        "Form": filing.form,
        "Period": filing.period,
        "Period end": filing.period_end or "",
        "8-K Items": ", ".join(filing.event_items),
        "Pages": filing.pages,
        "Passages": filing.chunks,
        "Sections found": len(found),
        "Sections": ", ".join(found),
        "File": filing.filename,
        "Ingested": filing.ingested_at.strftime("%Y-%m-%d %H:%M"),
        "Filing id": filing.filing_id[:12],
    }
