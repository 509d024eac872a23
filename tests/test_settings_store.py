"""Settings saved in the data directory: they survive a restart, the environment wins, the API key is never
written anywhere (data directory, checkpoints, caches, logs, exports), and each run records its settings."""

from __future__ import annotations

import json
import logging

import pytest
from pydantic import SecretStr

from core.config import SAVED_FIELDS, SETTINGS_FILE, Settings, load_settings, save_settings
from tests.conftest import SAMPLE_DOCS
from tests.graph.openai_stub import OpenAIStub

KEY = "sk-never-written-7f3a9c1e5b"


def test_saved_settings_come_back_at_the_next_start(tmp_path) -> None:
    saved = Settings(data_dir=tmp_path, k=17, top_n=4, llm_model="my-model", route_to_named_filings=False)
    path = save_settings(saved.model_copy(update={"llm_api_key": SecretStr(KEY)}))
    assert set(json.loads(path.read_text())) == set(SAVED_FIELDS)
    assert KEY not in path.read_text()
    loaded = load_settings(data_dir=tmp_path)
    assert (loaded.k, loaded.top_n, loaded.llm_model, loaded.route_to_named_filings) == (
        17,
        4,
        "my-model",
        False,
    )
    assert loaded.llm_api_key is None


def test_an_environment_variable_wins_over_a_saved_value(tmp_path, monkeypatch) -> None:
    save_settings(Settings(data_dir=tmp_path, k=17, max_steps=3))
    monkeypatch.setenv("WORKBENCH_K", "9")
    loaded = load_settings(data_dir=tmp_path)
    assert (loaded.k, loaded.max_steps) == (9, 3)


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"k": "many"}'])
def test_a_damaged_settings_file_is_ignored_and_logged(tmp_path, caplog, content) -> None:
    (tmp_path / SETTINGS_FILE).write_text(content)
    with caplog.at_level(logging.WARNING, logger="core.config"):
        loaded = load_settings(data_dir=tmp_path)
    assert loaded.k == Settings().k
    assert "ignoring saved settings" in caplog.text


@pytest.mark.slow
def test_the_api_key_is_used_but_never_written_and_the_run_records_its_settings(tmp_path, caplog) -> None:
    from core.report.export import export_report
    from core.service import Workbench

    data_dir = tmp_path / "data"
    with OpenAIStub(["500"] * 400) as stub, caplog.at_level(logging.DEBUG):
        settings = Settings(
            data_dir=data_dir,
            llm_provider="openai",
            llm_base_url=stub.base_url,
            llm_model="stub-model",
            llm_api_key=SecretStr(KEY),
            llm_max_retries=0,
            llm_timeout_s=5.0,
            web_search_enabled=False,
            max_steps=2,
        )
        bench = Workbench(settings)
        bench.save_settings(settings)
        (result,) = bench.ingest_paths([SAMPLE_DOCS / "northwind_10k_fy2025.html"])
        assert result.ok, result.error
        record = bench.start_research(
            "What was Northwind's revenue in fiscal 2025?", [result.filing.filing_id]
        )
        record = bench.approve_plan(record.run_id)
        exports = {fmt: export_report(record, fmt) for fmt in ("md", "html", "docx", "pdf")}
    assert record.status == "finished", record.error
    assert stub.authorizations and all(a == f"Bearer {KEY}" for a in stub.authorizations)  # the key was used
    assert record.settings["llm_model"] == "stub-model" and record.settings["max_steps"] == 2
    assert "llm_api_key" not in record.settings
    assert "Settings used" in exports["md"].decode() and "stub-model" in exports["md"].decode()
    written = [p for p in data_dir.rglob("*") if p.is_file()]
    assert any(p.name == "checkpoints.sqlite" for p in written)
    for path in written:
        assert KEY.encode() not in path.read_bytes(), path.relative_to(data_dir)
    for fmt, data in exports.items():
        assert KEY.encode() not in data, fmt
    assert KEY not in caplog.text


def test_applied_settings_reach_the_open_index(tmp_path) -> None:
    from core.service import Workbench

    bench = Workbench(Settings(data_dir=tmp_path))
    assert bench.store.settings.max_upload_mb == 50
    bench.apply_settings(bench.settings.model_copy(update={"max_upload_mb": 0.001}))
    (result,) = bench.ingest([("big.txt", b"Item 1. Business\n" + b"x" * 5000)])
    assert not result.ok and "MB" in (result.error or "")
