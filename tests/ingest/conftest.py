"""Parsed real filings, cached per test session (PDF extraction takes seconds per filing)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from core.ingest.document import ParsedFiling, Section
from core.ingest.parse import parse_filing, split_sections
from core.models import SourceType
from tests.conftest import shared_file


def word_count(text: str) -> int:
    """A whitespace word counter standing in for the embedding tokenizer."""
    return len(text.split())


_CACHE: dict[tuple[str, ...], tuple[ParsedFiling, list[Section]]] = {}


def load_real(*parts: str) -> tuple[ParsedFiling, list[Section]]:
    """Parse (once per session) a filing under shared/data, skipping when it is absent."""
    if parts not in _CACHE:
        path = shared_file(*parts)
        source: SourceType = (
            "pdf" if path.suffix == ".pdf" else "html" if path.suffix in {".htm", ".html"} else "txt"
        )
        parsed = parse_filing(path.read_bytes(), source)
        _CACHE[parts] = (parsed, split_sections(parsed))
    return _CACHE[parts]


@pytest.fixture(scope="session")
def real_filing() -> Callable[..., tuple[ParsedFiling, list[Section]]]:
    """Loader of parsed real filings with their sections."""
    return load_real
