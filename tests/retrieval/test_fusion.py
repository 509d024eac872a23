"""Reciprocal rank fusion against hand-computed scores."""

from __future__ import annotations

import pytest

from core.retrieval.fusion import fuse_rrf


def test_unweighted_rrf_matches_hand_computation() -> None:
    fused = fuse_rrf({"vector": ["a", "b", "c"], "keyword": ["c", "a", "d"]}, k=60)
    # a: 1/61 + 1/62, c: 1/63 + 1/61, b: 1/62, d: 1/63
    expected = {"a": 1 / 61 + 1 / 62, "c": 1 / 63 + 1 / 61, "b": 1 / 62, "d": 1 / 63}
    assert [item for item, _ in fused] == ["a", "c", "b", "d"]
    for item, score in fused:
        assert score == pytest.approx(expected[item])


def test_weights_change_the_order() -> None:
    rankings = {"vector": ["a", "b"], "keyword": ["b", "a"]}
    assert fuse_rrf(rankings, {"vector": 1.0, "keyword": 0.5}, k=1)[0][0] == "a"
    assert fuse_rrf(rankings, {"vector": 0.5, "keyword": 1.0}, k=1)[0][0] == "b"
    # k=1: a = 1/2 + 0.5/3, b = 1/3 + 0.5/2
    scores = dict(fuse_rrf(rankings, {"vector": 1.0, "keyword": 0.5}, k=1))
    assert scores["a"] == pytest.approx(1 / 2 + 0.5 / 3)
    assert scores["b"] == pytest.approx(1 / 3 + 0.5 / 2)


def test_ties_are_deterministic_and_duplicates_ignored() -> None:
    fused = fuse_rrf({"x": ["a", "a", "b"], "y": ["b", "a"]}, k=0)
    # a: 1/1 + 1/2 ; b: 1/2 + 1/1 -> tie, a seen first
    assert [item for item, _ in fused] == ["a", "b"]
    assert fused[0][1] == pytest.approx(1.5)
    assert fused[1][1] == pytest.approx(1.5)


def test_empty_and_invalid() -> None:
    assert fuse_rrf({}) == []
    assert fuse_rrf({"v": []}) == []
    with pytest.raises(ValueError):
        fuse_rrf({"v": ["a"]}, k=-1)
