"""Compare PDF text extractors on FinanceBench 10-K PDFs: speed and whether the gold evidence page reads right.

Text quality = share of FinanceBench evidence items (on 10-K PDFs present locally) whose evidence words are found
(multiset word overlap >= 0.8) in the extractor's text of the gold page (`evidence_page_num`, 0-based).
Speed = whole-document extraction time over a sample of the PDFs.

    .venv/bin/python benchmarks/pdf_extractors.py [--speed-docs 12] [--engines pypdf,pypdf-layout,pymupdf]
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import re
import statistics
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
FINANCEBENCH = DATA / "financebench"
RESULTS = Path(__file__).resolve().parent / "results" / "pdf_extractors.json"
LYFT = DATA / "filings" / "LYFT_10K_FY2021.pdf"

#: The extractor core/ingest/loaders/pdf.py uses, and why (the table printed below is the evidence).
DECISION = (
    "pypdfium2 (PDFium): finds the gold-page evidence as often as PyMuPDF and more often than pypdf, reads "
    "about 30x more pages a second than pypdf (pure Python; its parse of a table-heavy 10-K took longer than "
    "embedding it), reads the RC4-encrypted Lyft filing, and is Apache-2.0/BSD licensed. PyMuPDF is as good "
    "but AGPL-licensed, so it stays a dev-only dependency for this comparison."
)

PageReader = Callable[[bytes], tuple[int, Callable[[int], str]]]


def _pypdf(layout: bool) -> PageReader:
    def open_pdf(data: bytes) -> tuple[int, Callable[[int], str]]:
        from pypdf import PdfReader

        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            reader.decrypt("")
        mode = "layout" if layout else "plain"

        def page_text(index: int) -> str:
            try:
                return reader.pages[index].extract_text(extraction_mode=mode) or ""
            except Exception:  # a bad page counts as empty, as in the loader
                return ""

        return len(reader.pages), page_text

    return open_pdf


def _pymupdf(data: bytes) -> tuple[int, Callable[[int], str]]:
    import pymupdf  # AGPL: a dev-only dependency, used here for the comparison

    doc = pymupdf.open(stream=data, filetype="pdf")
    if doc.needs_pass:
        doc.authenticate("")
    return doc.page_count, lambda index: doc[index].get_text()


def _pypdfium2(data: bytes) -> tuple[int, Callable[[int], str]]:
    import pypdfium2

    doc = pypdfium2.PdfDocument(data)
    return len(doc), lambda index: doc[index].get_textpage().get_text_range()


ENGINES: dict[str, PageReader] = {
    "pypdf": _pypdf(False),
    "pypdf-layout": _pypdf(True),
    "pypdfium2": _pypdfium2,
    "pymupdf": _pymupdf,
}


def _words(text: str) -> Counter[str]:
    return Counter(re.findall(r"[a-z0-9]+", text.lower()))


def overlap(needle: str, haystack: str) -> float:
    """Share of the needle's words (with multiplicity) found in the haystack."""
    want, have = _words(needle), _words(haystack)
    return sum(min(n, have[w]) for w, n in want.items()) / max(1, sum(want.values()))


def evidence_items() -> list[dict]:
    """FinanceBench evidence items that point into a 10-K PDF present on this machine."""
    rows = [json.loads(line) for line in (FINANCEBENCH / "financebench_open_source.jsonl").open()]
    return [
        ev
        for row in rows
        for ev in row["evidence"]
        if "_10K" in ev["doc_name"] and (FINANCEBENCH / "pdfs" / f"{ev['doc_name']}.pdf").exists()
    ]


def measure(name: str, reader: PageReader, items: list[dict], speed_docs: list[Path]) -> dict:
    """Quality on gold pages and whole-document speed for one engine."""
    scores: list[float] = []
    errors: list[str] = []
    by_doc: dict[str, list[dict]] = {}
    for ev in items:
        by_doc.setdefault(ev["doc_name"], []).append(ev)
    for doc, evs in by_doc.items():
        try:
            _, page_text = reader((FINANCEBENCH / "pdfs" / f"{doc}.pdf").read_bytes())
            scores.extend(overlap(ev["evidence_text"], page_text(ev["evidence_page_num"])) for ev in evs)
        except Exception as exc:
            errors.append(f"{doc}: {type(exc).__name__}")
            scores.extend(0.0 for _ in evs)
    pages = 0
    seconds = 0.0
    for path in speed_docs:
        data = path.read_bytes()
        started = time.perf_counter()
        try:
            count, page_text = reader(data)
            for index in range(count):
                page_text(index)
            pages += count
        except Exception as exc:
            errors.append(f"{path.stem}: {type(exc).__name__}")
        seconds += time.perf_counter() - started
    lyft_pages = lyft_text = 0
    if LYFT.exists():
        try:
            count, page_text = reader(LYFT.read_bytes())
            lyft_pages = count
            lyft_text = sum(1 for i in range(count) if len(page_text(i).strip()) > 50)
        except Exception as exc:
            errors.append(f"LYFT: {type(exc).__name__}")
    return {
        "engine": name,
        "evidence_items": len(scores),
        "evidence_found_rate": round(sum(s >= 0.8 for s in scores) / max(1, len(scores)), 4),
        "mean_word_overlap": round(statistics.fmean(scores), 4) if scores else 0.0,
        "speed_docs": len(speed_docs),
        "speed_pages": pages,
        "seconds": round(seconds, 2),
        "pages_per_second": round(pages / seconds, 1) if seconds else 0.0,
        "seconds_per_300_pages": round(300 * seconds / pages, 1) if pages else None,
        "lyft_pages_with_text": f"{lyft_text}/{lyft_pages}",
        "errors": errors,
    }


def main() -> None:
    """Run the comparison, print a Markdown table and write the JSON results."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--speed-docs", type=int, default=12, help="PDFs extracted whole for timing")
    parser.add_argument("--engines", default="pypdf,pypdf-layout,pypdfium2,pymupdf")
    args = parser.parse_args()
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # broken xrefs are routine in EDGAR PDFs
    if not FINANCEBENCH.exists():
        raise SystemExit(f"FinanceBench data not found under {FINANCEBENCH}")
    items = evidence_items()
    pdfs = sorted((FINANCEBENCH / "pdfs").glob("*_10K*.pdf"))
    step = max(1, len(pdfs) // max(1, args.speed_docs))
    speed_docs = pdfs[::step][: args.speed_docs]
    results = []
    for name in args.engines.split(","):
        try:
            results.append(measure(name, ENGINES[name], items, speed_docs))
        except ImportError as exc:
            print(f"skipping {name}: {exc}")
    print(
        "| engine | evidence found on gold page | mean word overlap | pages/s | s per 300 pages | Lyft pages |"
    )
    print("|---|---|---|---|---|---|")
    for r in results:
        print(
            f"| {r['engine']} | {r['evidence_found_rate']:.1%} of {r['evidence_items']} | {r['mean_word_overlap']:.3f} "
            f"| {r['pages_per_second']} | {r['seconds_per_300_pages']} | {r['lyft_pages_with_text']} |"
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    print(f"\nchoice: {DECISION}")
    payload = {"decision": DECISION, "pdfs_timed": [p.name for p in speed_docs], "results": results}
    RESULTS.write_text(json.dumps(payload, indent=2) + "\n")
    print(f"\nwrote {RESULTS.relative_to(Path(__file__).resolve().parents[1])}")


if __name__ == "__main__":
    main()
