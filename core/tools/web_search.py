"""Web search through ddgs, bounded by a timeout; failures become a visible fallback, never a crash."""

from __future__ import annotations

import concurrent.futures
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from core.config import Settings
from core.models import Evidence, Fallback, evidence_id

log = logging.getLogger(__name__)

SearchFn = Callable[[str, int], list[dict[str, Any]]]
UNAVAILABLE = "web search unavailable"


@dataclass
class WebSearchOutcome:
    """Web results as evidence, or an empty list with the reason and a fallback record."""

    evidence: list[Evidence] = field(default_factory=list)
    note: str | None = None
    fallback: Fallback | None = None


def ddgs_search(query: str, max_results: int, timeout_s: float = 8.0) -> list[dict[str, Any]]:
    """Raw ddgs text results (title, href, body); raises DDGSException when offline."""
    from ddgs import DDGS  # imported lazily: it pulls HTTP client libraries

    return DDGS(timeout=max(1, int(timeout_s))).text(query, max_results=max_results)


def search_web(
    query: str,
    settings: Settings,
    *,
    step_index: int,
    max_results: int = 5,
    search_fn: SearchFn | None = None,
) -> WebSearchOutcome:
    """Search the web for `query`; returns Evidence(kind="web") or a 'web search unavailable' note."""
    if not settings.web_search_enabled:
        return _unavailable("it is turned off in Settings")
    fn: SearchFn = search_fn or (lambda q, n: ddgs_search(q, n, settings.web_search_timeout_s))
    # ddgs has its own HTTP timeout, but a hung DNS lookup is not covered by it: bound the whole call.
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="web-search")
    try:
        future = pool.submit(fn, query, max_results)
        raw = future.result(timeout=settings.web_search_timeout_s)
    except concurrent.futures.TimeoutError:
        return _unavailable(f"the search timed out after {settings.web_search_timeout_s:g} s")
    except Exception as exc:  # noqa: BLE001 - any search failure must leave the run going
        log.info("web search for %r failed: %s: %s", query, type(exc).__name__, exc)
        return _unavailable("the search service could not be reached or returned an error")
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    retrieved = datetime.now(UTC).date().isoformat()
    evidence = []
    for i, item in enumerate(raw or [], start=1):
        body = str(item.get("body") or item.get("snippet") or "").strip()
        url = str(item.get("href") or item.get("url") or "").strip()
        if not body or not url:
            continue
        evidence.append(
            Evidence(
                evidence_id=evidence_id(step_index, i),
                kind="web",
                text=body,
                url=url,
                title=str(item.get("title") or url),
                date=str(item.get("date") or retrieved),
                score=1.0 / i,
            )
        )
    if not evidence:
        return WebSearchOutcome([], f"{UNAVAILABLE}: no results for {query!r}", None)
    return WebSearchOutcome(evidence, None, None)


def _unavailable(reason: str) -> WebSearchOutcome:
    note = f"{UNAVAILABLE}: {reason}"
    return WebSearchOutcome(
        evidence=[],
        note=note,
        fallback=Fallback(
            component="web search",
            used="no web evidence; the step is recorded as unsearched",
            reason=f"{reason[:1].upper()}{reason[1:]}.",
        ),
    )
