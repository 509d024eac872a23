"""Run checkpoints on a real PostgreSQL server (WORKBENCH_CHECKPOINT_URL): a run planned by one app server
is approved and finished by another, both list it, nothing is checkpointed in the data directory and the
URL's password is written nowhere; an unreachable server is a sentence without the password."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from core.config import Settings, describe_postgres
from core.graph.checkpoints import CheckpointStoreUnavailable
from core.service import Workbench

QUESTION = "How did Northwind's Fleet Software revenue change in FY2025?"
PASSWORD = "pw-6b1e0c2d"  # the test server trusts local connections, so any password gets in


def _with_password(url: str) -> str:
    assert url.startswith("postgresql://postgres:@"), url
    return url.replace("postgresql://postgres:@", f"postgresql://postgres:{PASSWORD}@", 1)


def test_a_run_moves_between_app_servers_through_postgres(sample_index, postgres_url) -> None:
    data_dir, filing_id = sample_index
    settings = Settings(
        data_dir=data_dir, checkpoint_url=_with_password(postgres_url), web_search_enabled=False
    )
    planner = Workbench(settings)
    planned = planner.start_research(QUESTION, [filing_id], run_id="pg-moves")
    assert planned.status == "awaiting_plan_review"
    planner.close()

    other = Workbench(settings)  # another app server (a restart, or a second replica)
    assert "pg-moves" in {r.run_id for r in other.list_runs()}
    finished = other.approve_plan("pg-moves")
    assert finished.status == "finished" and finished.citations, finished.error
    assert [s.index for s in finished.steps] == list(range(len(finished.plan.steps)))
    assert next(r for r in other.list_runs() if r.run_id == "pg-moves").status == "finished"
    assert "checkpoint_url" not in finished.settings
    other.close()

    import psycopg

    with psycopg.connect(postgres_url) as conn:
        (count,) = conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = 'pg-moves'").fetchone()
    assert count > len(finished.steps)  # a checkpoint per node, on the server
    sqlite = data_dir / "checkpoints.sqlite"  # the shared sample index may hold other tests' runs
    assert not sqlite.exists() or b"pg-moves" not in sqlite.read_bytes()
    for path in Path(data_dir).rglob("*"):
        if path.is_file():
            assert PASSWORD.encode() not in path.read_bytes(), path


def test_an_unreachable_checkpoint_database_is_a_sentence(tmp_path) -> None:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        port = s.getsockname()[1]
    url = f"postgresql://analyst:{PASSWORD}@localhost:{port}/research"
    bench = Workbench(Settings(data_dir=tmp_path / "data", checkpoint_url=url))
    started = time.monotonic()
    with pytest.raises(CheckpointStoreUnavailable) as raised:
        bench.startup_repairs()
    message = str(raised.value)
    assert f"Postgres at localhost:{port}, database research" in message and "cannot be reached" in message
    assert PASSWORD not in message and "analyst" not in message
    assert time.monotonic() - started < 30
    assert describe_postgres("postgresql://u:p@db.internal/x") == "Postgres at db.internal:5432, database x"
