"""Parsed real filings, cached per test session (PDF extraction takes seconds per filing)."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from core.ingest.document import ParsedFiling, Section
from core.ingest.parse import parse_filing
from core.ingest.sections import split_sections
from core.models import SourceType
from tests.conftest import shared_file


def word_count(text: str) -> int:
    """A whitespace word counter standing in for the embedding tokenizer."""
    return len(text.split())


_CACHE: dict[tuple[str, ...], tuple[ParsedFiling, list[Section]]] = {}


def _parse_path(path: Path) -> tuple[ParsedFiling, list[Section]]:
    source: SourceType = (
        "pdf" if path.suffix == ".pdf" else "html" if path.suffix in {".htm", ".html"} else "txt"
    )
    parsed = parse_filing(path.read_bytes(), source)
    return parsed, split_sections(parsed)


def load_real(*parts: str) -> tuple[ParsedFiling, list[Section]]:
    """Parse (once per session) a filing under shared/data, skipping when it is absent."""
    if parts not in _CACHE:
        _CACHE[parts] = _parse_path(shared_file(*parts))
    return _CACHE[parts]


def prefetch_real(folder: tuple[str, ...], names: list[str]) -> None:
    """Parse many filings at once on every core."""
    todo = [name for name in names if (*folder, name) not in _CACHE]
    if not todo:
        return
    paths = [shared_file(*folder, name) for name in todo]
    with ProcessPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
        for name, result in zip(todo, pool.map(_parse_path, paths), strict=True):
            _CACHE[(*folder, name)] = result


@pytest.fixture(scope="session")
def real_filing() -> Callable[..., tuple[ParsedFiling, list[Section]]]:
    """Loader of parsed real filings with their sections."""
    return load_real
