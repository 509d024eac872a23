"""Page tests share one thing: a workbench over a fresh data directory."""

from __future__ import annotations

import pytest


@pytest.fixture
def bench(tmp_path, monkeypatch):
    """A workbench over a fresh data directory (the one the pages' cached workbench() returns)."""
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from core.config import get_settings
    from views.shared import workbench

    get_settings.cache_clear()
    workbench.clear()
    yield workbench()
    get_settings.cache_clear()
    workbench.clear()
