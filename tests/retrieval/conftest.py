"""A small real index (Catalog + Chroma + BM25 + MiniLM) of two hand-written filings."""

from __future__ import annotations

import pytest

# (section, text) per filing. Every passage mentions "competition" so unfiltered searches reach all.
ACME = [
    (
        "Item 1",
        "Acme Corp designs industrial robots. Competition in robotics is intense; we compete on price.",
    ),
    ("Item 1", "Acme employs 12,000 people worldwide. Competition for engineering talent is strong."),
    ("Item 1A", "Risk: competition from low-cost Asian manufacturers could reduce our market share."),
    ("Item 1A", "Risk: supply chain disruption and tariffs may raise costs despite competition."),
    ("Item 1A", "Risk: cybersecurity attacks could disrupt operations; competition makes breaches costlier."),
    ("Item 7", "Revenue grew 12.5% to $1,577 million in fiscal 2023 as competition eased in Europe."),
    ("Item 7", "Operating margin fell to 9.1% because of pricing pressure from competition."),
    ("Item 7", "Liquidity: cash of $420 million funds capital expenditures despite competition."),
    (
        "Item 8",
        "Consolidated balance sheet: total assets $5,210 million; competition-related reserves $12 million.",
    ),
    ("Item 8", "Statement of cash flows: purchases of property, plant and equipment $(310) million."),
    ("Item 8", "Notes: goodwill impairment testing considers competition and discount rates."),
]
BETA = [
    ("Item 1A", "Beta Inc risk factors: competition from Acme and others may hurt our robot sales."),
    ("Item 1A", "Beta Inc risk factors: regulation of autonomous machines and competition."),
    ("Other", "Beta Inc exhibits index; competition law filings listed here."),
    ("Other", "Beta Inc management discussion: revenue of $880 million in fiscal 2023 amid competition."),
]


def _chunks(filing_id: str, company: str, rows: list[tuple[str, str]]):
    from core.models import Chunk

    chunks = []
    offset = 0
    for i, (section, text) in enumerate(rows):
        chunks.append(
            Chunk(
                chunk_id=f"{filing_id}-{i:03d}",
                filing_id=filing_id,
                company=company,
                fiscal_year=2023,
                section=section,
                section_title=section,
                page=i + 1,
                chunk_index=i,
                char_start=offset,
                char_end=offset + len(text),
                text=text,
            )
        )
        offset += len(text) + 1
    return chunks


def _filing(filing_id: str, company: str, chunks):
    from collections import Counter

    from core.models import Filing

    return Filing(
        filing_id=filing_id,
        filename=f"{company}.html",
        company=company,
        fiscal_year=2023,
        source_type="html",
        pages=len(chunks),
        chunks=len(chunks),
        sections=dict(Counter(c.section for c in chunks)),
    )


def populate(store) -> dict[str, str]:
    """Write both filings into every part of the store; returns company -> filing id."""
    ids = {}
    for filing_id, company, rows in [("acme", "Acme Corp", ACME), ("beta", "Beta Inc", BETA)]:
        chunks = _chunks(filing_id, company, rows)
        filing = _filing(filing_id, company, chunks)
        with store.catalog.transaction() as conn:
            store.catalog.insert_filing(conn, filing, chunks)
        store.vectors.add(chunks, store.embedder.embed_documents([c.text for c in chunks]))
        store.keywords.add_filing(filing_id, chunks)
        ids[company] = filing_id
    return ids


@pytest.fixture(scope="module")
def small_store(tmp_path_factory):
    """A populated IndexStore shared by a test module (read-only use)."""
    from core.config import Settings
    from core.index.store import IndexStore

    settings = Settings(data_dir=tmp_path_factory.mktemp("index"), k=3, top_n=2)
    store = IndexStore.open(settings)
    populate(store)
    return store
