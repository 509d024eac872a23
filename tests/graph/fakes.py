"""An in-memory retriever over a handful of chunks, for unit tests of nodes and wiring only."""

from __future__ import annotations

from dataclasses import dataclass, field

from core.models import Chunk, ScoredChunk, SearchResult, StageScores
from core.text.tokens import content_terms

PASSAGES = [
    (
        "Item 1A",
        14,
        "We face intense competition from large companies such as Acme Chips and from start-ups. "
        "Competitors may introduce new products at lower prices, which could reduce our market share.",
    ),
    (
        "Item 1A",
        15,
        "Our competitors have greater resources than we do. If we fail to compete effectively, "
        "our revenue and gross margin could decline significantly.",
    ),
    (
        "Item 7",
        40,
        "Research and development expenses were $7,339 million in fiscal year 2023, up 39% "
        "from $5,268 million in fiscal year 2022, driven by headcount growth.",
    ),
    (
        "Item 7",
        41,
        "Data Center revenue for fiscal year 2023 was $15,005 million, up 41% from $10,613 million "
        "in fiscal year 2022, led by cloud service providers.",
    ),
    (
        "Item 7",
        42,
        "Total revenue for fiscal year 2023 was $26,974 million compared to $26,914 million in "
        "fiscal year 2022, essentially flat year over year.",
    ),
    (
        "Item 3",
        60,
        "We are defendants in a securities class action alleging misleading statements about "
        "cryptocurrency mining demand; we believe the claims are without merit.",
    ),
]


def fake_chunks(filing_id: str = "f" * 64) -> list[Chunk]:
    """Small, realistic passages labelled with Items and pages."""
    return [
        Chunk(
            chunk_id=f"c{i}",
            filing_id=filing_id,
            company="Acme Graphics",
            section=section,
            page=page,
            chunk_index=i,
            char_start=0,
            char_end=len(text),
            text=text,
        )
        for i, (section, page, text) in enumerate(PASSAGES)
    ]


class FakeReranker:
    name = "fake lexical reranker"

    def rerank(self, query, candidates, top_n, analysis=None):
        return candidates[:top_n]


@dataclass
class FakeRetriever:
    """Lexical overlap over fake_chunks(); honours the Item filter and strategy argument."""

    chunks: list[Chunk] = field(default_factory=fake_chunks)
    reranker: FakeReranker = field(default_factory=FakeReranker)
    fallback: object = None
    calls: list[dict] = field(default_factory=list)

    def search(self, query, *, strategy="auto", section=None, filings=None, k=None, top_n=None, rerank=True):
        self.calls.append({"query": query, "strategy": strategy, "section": section, "rerank": rerank})
        terms = set(content_terms(query))
        pool = [c for c in self.chunks if section is None or c.section == section]
        scored = [(len(terms & set(content_terms(c.text))), c) for c in pool]
        ranked = [
            ScoredChunk(chunk=c, score=float(s), scores=StageScores())
            for s, c in sorted(scored, key=lambda p: -p[0])
            if s > 0
        ][: k or 10]
        return SearchResult(
            query=query,
            strategy="hybrid" if strategy == "auto" else strategy,
            candidates=ranked,
            chunks=ranked,
        )


def llm_runner(
    data_dir, base_url: str, model: str, *, retries: int, timeout_s: float, streaming: bool | None = None
):
    """A ResearchRunner in LLM mode against an OpenAI-compatible server, searching FakeRetriever."""
    from core.agents.registry import llm_agents
    from core.config import Settings
    from core.graph.deps import ResearchDeps
    from core.graph.runner import ResearchRunner
    from core.llm import build_chat_model

    settings = Settings(
        data_dir=data_dir,
        llm_provider="openai",
        llm_base_url=base_url,
        llm_model=model,
        llm_max_retries=retries,
        llm_timeout_s=timeout_s,
        llm_streaming=streaming,
        web_search_enabled=False,
    )
    deps = ResearchDeps(
        settings=settings,
        agents=llm_agents(settings.llm_model),
        retriever=FakeRetriever(),
        chat_model=build_chat_model(settings, cache=False),
    )
    return ResearchRunner(settings, lambda: deps)
