"""Web search: results become web evidence; any failure becomes 'web search unavailable' and a fallback."""

from __future__ import annotations

import time

from ddgs.exceptions import DDGSException

from core.config import Settings
from core.tools.web_search import UNAVAILABLE, search_web


def test_results_become_web_evidence(tmp_path) -> None:
    settings = Settings(data_dir=tmp_path)

    def fake(query: str, n: int) -> list[dict]:
        return [
            {
                "title": "AMD launches MI300",
                "href": "https://example.com/amd",
                "body": "AMD launched the MI300X.",
            },
            {"title": "no body", "href": "https://example.com/x", "body": ""},
        ]

    out = search_web("AMD 2024 AI chips", settings, step_index=1, search_fn=fake)
    assert out.fallback is None and out.note is None
    assert len(out.evidence) == 1
    ev = out.evidence[0]
    assert (ev.kind, ev.url, ev.evidence_id) == ("web", "https://example.com/amd", "S2-E1")
    assert ev.date  # retrieval date when the result has none


def test_disabled_records_fallback(tmp_path) -> None:
    out = search_web("anything", Settings(data_dir=tmp_path, web_search_enabled=False), step_index=0)
    assert out.evidence == [] and out.note is not None and out.note.startswith(UNAVAILABLE)
    assert out.fallback is not None and out.fallback.component == "web search"


def test_exception_and_timeout_become_unavailable(tmp_path) -> None:
    settings = Settings(data_dir=tmp_path, web_search_timeout_s=0.3)

    def offline(query: str, n: int) -> list[dict]:
        raise DDGSException("No results found.")

    def slow(query: str, n: int) -> list[dict]:
        time.sleep(2)
        return []

    failed = search_web("q", settings, step_index=0, search_fn=offline)
    assert "could not be reached" in (failed.note or "") and "DDGS" not in (failed.fallback.reason or "")
    started = time.perf_counter()
    out = search_web("q", settings, step_index=0, search_fn=slow)
    assert time.perf_counter() - started < 1.5
    assert out.fallback is not None and "timed out" in out.fallback.reason


def test_real_ddgs_never_raises(tmp_path) -> None:
    # No network here: ddgs fails at once and the step records it; with a network it returns results.
    out = search_web("NVIDIA 10-K 2023", Settings(data_dir=tmp_path, web_search_timeout_s=10), step_index=0)
    assert out.evidence or (out.note and out.note.startswith(UNAVAILABLE))
