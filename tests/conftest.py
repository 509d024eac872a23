"""Shared fixtures: paths to real filings (skipped where absent) and isolated settings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: int = 600) -> subprocess.CompletedProcess:
    """`python -m core.cli ARGS` from the repository root, offline, output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "core.cli", *args],
        cwd=REPO_ROOT,
        env={**os.environ, "HF_HUB_OFFLINE": "1", **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
SAMPLE_DOCS = REPO_ROOT / "sample_docs"


def shared_file(*parts: str) -> Path:
    """Path to a file under shared/data, skipping the test with a reason when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"real filing data not available: {path.name} (shared/data is absent)")
    return path


def make_chunk(filing: str, i: int, section: str, text: str):
    """A minimal chunk for index tests (id '<filing>-<i>', page i)."""
    from core.models import Chunk

    return Chunk(
        chunk_id=f"{filing}-{i}",
        filing_id=filing,
        section=section,
        page=i,
        chunk_index=i,
        char_start=0,
        char_end=len(text),
        text=text,
    )


@pytest.fixture
def settings(tmp_path):
    """Settings pointing at a fresh data directory."""
    from core.config import Settings

    return Settings(data_dir=tmp_path / "data")
