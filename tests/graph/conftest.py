"""Real indexes for end-to-end research tests: the sample filing, and the NVIDIA FY2023 10-K."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import SAMPLE_DOCS, shared_file

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def _ingest(data_dir: Path, path: Path) -> str:
    from core.config import Settings
    from core.index.store import IndexStore
    from core.ingest.pipeline import ingest_file

    store = IndexStore.open(Settings(data_dir=data_dir))
    result = ingest_file(store, path.read_bytes(), path.name)
    assert result.ok and result.filing is not None, result.error
    return result.filing.filing_id


@pytest.fixture(scope="session")
def sample_index(tmp_path_factory) -> tuple[Path, str]:
    """(data_dir, filing_id) of an index holding the sample Northwind 10-K."""
    path = SAMPLE_DOCS / "northwind_10k_fy2025.html"
    if not path.exists():
        pytest.skip("sample filing not present")
    data_dir = tmp_path_factory.mktemp("sample_index")
    return data_dir, _ingest(data_dir, path)


@pytest.fixture(scope="session")
def nvda_index(tmp_path_factory) -> tuple[Path, str]:
    """(data_dir, filing_id) of an index holding NVIDIA's FY2023 10-K (slow: ~500 chunks to embed)."""
    path = shared_file("filings", "NVDA_10K_FY2023.htm")
    data_dir = tmp_path_factory.mktemp("nvda_index")
    return data_dir, _ingest(data_dir, path)
