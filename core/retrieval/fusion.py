"""Weighted reciprocal rank fusion of several rankings of the same items."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def fuse_rrf(
    rankings: Mapping[str, Sequence[str]], weights: Mapping[str, float] | None = None, k: int = 60
) -> list[tuple[str, float]]:
    """Fuse rankings (name -> ids, best first) by sum of weight / (k + rank), rank 1-based; best first.

    A ranking missing from ``weights`` counts with weight 1. Ties keep the order in which items were
    first seen across the rankings (in the order the rankings were given), so fusion is deterministic.
    """
    if k < 0:
        raise ValueError("the RRF constant k must be >= 0")
    weights = weights or {}
    scores: dict[str, float] = {}
    for name, ranking in rankings.items():
        weight = float(weights.get(name, 1.0))
        # A duplicate within one list counts once, at its best position; ranks stay contiguous.
        unique = dict.fromkeys(ranking)
        for position, item in enumerate(unique, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + position)
    first_seen = {item: i for i, item in enumerate(scores)}
    return sorted(scores.items(), key=lambda pair: (-pair[1], first_seen[pair[0]]))
