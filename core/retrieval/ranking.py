"""Orders of reranked passages: by the reranker's scores, by page (a page scored from its passages), and
with the Item asked for ahead of widened passages. Shared by the cross-encoder and the local scorer."""

from __future__ import annotations

from core.models import ScoredChunk


def apply_rerank_scores(candidates: list[ScoredChunk], scores: list[float], top_n: int) -> list[ScoredChunk]:
    """Copies of the candidates ordered by score (ties keep first-stage order), cut to top_n."""
    order = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
    out: list[ScoredChunk] = []
    for rank, i in enumerate(order[: max(0, top_n)], start=1):
        cand = candidates[i]
        stage = cand.scores.model_copy(update={"rerank": float(scores[i]), "rerank_rank": rank})
        out.append(cand.model_copy(update={"score": float(scores[i]), "scores": stage}))
    return out


def keep_filter_first(ranked: list[ScoredChunk], top_n: int) -> list[ScoredChunk]:
    """Ranked chunks with those inside the Item filter ahead of those found by widening it, cut to top_n.

    Widening only makes up the numbers when an Item has few passages: the analyst asked for that Item,
    so its passages are kept first and a widened one is evidence only when the Item runs out. Each
    group keeps its order; rerank ranks, where set, are renumbered to the final order.
    """
    ordered = [c for c in ranked if not c.widened] + [c for c in ranked if c.widened]
    out: list[ScoredChunk] = []
    for rank, cand in enumerate(ordered[: max(0, top_n)], start=1):
        if cand.scores.rerank is not None and cand.scores.rerank_rank != rank:
            cand = cand.model_copy(update={"scores": cand.scores.model_copy(update={"rerank_rank": rank})})
        out.append(cand)
    return out


#: A page is scored from its passages in the reranked pool: the reciprocal rank of its best passage plus
#: this share of its second best's. A page that two passages of the pool match (a statement's rows and its
#: title, a note's table and its text) outranks a page that one passage matches about as well. FinanceBench,
#: 55 filings, auto top-5 per filing / pooled: 0 -> 75.5 / 73.4%, 0.25 -> 77.7 / 75.5%, 0.5 -> 78.7 / 77.7%
#: (no question lost at either step).
PAGE_SUPPORT = 0.5
#: Reciprocal-rank constant of the page score: ranks are used, not raw scores, so the page score means the
#: same for the cross-encoder's logits and the local scorer's [0, 1] scores.
PAGE_RANK_K = 10


def rank_pages(ranked: list[ScoredChunk], support: float = PAGE_SUPPORT) -> list[ScoredChunk]:
    """Pages ranked by their passages, each page's best passage in page order, then the pages' other
    passages in rank order.

    Passages of one page overlap and share their context (the page reads as a whole, see PageReader), so a
    page's second passage adds less than the next page's best one: the top of the list covers more pages.
    """
    ranks: dict[tuple[str, int], list[int]] = {}
    for rank, cand in enumerate(ranked, start=1):
        ranks.setdefault((cand.chunk.filing_id, cand.chunk.page), []).append(rank)

    def page_score(page_ranks: list[int]) -> float:
        score = 1.0 / (PAGE_RANK_K + page_ranks[0])
        if len(page_ranks) > 1:
            score += support / (PAGE_RANK_K + page_ranks[1])
        return score

    order = sorted(ranks, key=lambda key: (-page_score(ranks[key]), ranks[key][0]))
    best = {ranks[key][0] for key in order}
    first = [ranked[ranks[key][0] - 1] for key in order]
    rest = [cand for rank, cand in enumerate(ranked, start=1) if rank not in best]
    return first + rest
