"""Where research runs are checkpointed: SQLite in the data directory (the default), or a Postgres server
that several app servers share (`WORKBENCH_CHECKPOINT_URL`).

Either way LangGraph writes a checkpoint after every node (the runner invokes with durability="sync"), so
a run interrupted by a crash resumes after its last finished step, on this app server or on another one
that reaches the same database.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.config import ServiceUnavailable, Settings, describe_postgres

log = logging.getLogger(__name__)

#: Seconds to wait for a Postgres connection at start-up before saying the server cannot be reached.
CONNECT_TIMEOUT_S = 10.0


#: Every run id with a checkpoint (LangGraph's savers name the table and column alike in SQLite and Postgres).
RUN_IDS_SQL = "SELECT DISTINCT thread_id FROM checkpoints"


class CheckpointStoreUnavailable(ServiceUnavailable):
    """The configured checkpoint database cannot be used; the message says why in a sentence."""


@dataclass
class Checkpoints:
    """A LangGraph checkpointer with the two things the runner needs beyond it."""

    saver: Any  # a langgraph BaseCheckpointSaver
    thread_ids: Callable[[], list[str]]  # every run id that has a checkpoint
    close: Callable[[], None]


def open_checkpoints(settings: Settings) -> Checkpoints:
    """The checkpointer `settings` ask for, with its tables created."""
    if settings.checkpoint_url is not None:
        return _postgres(settings.checkpoint_url.get_secret_value(), settings.max_concurrent_runs)
    return _sqlite(settings)


def _sqlite(settings: Settings) -> Checkpoints:
    from langgraph.checkpoint.sqlite import SqliteSaver

    settings.checkpoint_path.parent.mkdir(parents=True, exist_ok=True)
    # One connection shared by threads (Streamlit reruns); SqliteSaver serialises access itself.
    conn = sqlite3.connect(str(settings.checkpoint_path), check_same_thread=False)
    saver = SqliteSaver(conn)
    saver.setup()

    def thread_ids() -> list[str]:
        return [row[0] for row in conn.execute(RUN_IDS_SQL).fetchall()]

    return Checkpoints(saver, thread_ids, conn.close)


def _postgres(url: str, workers: int) -> Checkpoints:
    try:
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg import Error as PostgresError
        from psycopg.rows import dict_row
        from psycopg_pool import ConnectionPool, PoolTimeout
    except ImportError as exc:
        raise CheckpointStoreUnavailable(
            "Checkpoints in Postgres need the packages in requirements-scale.txt "
            "(pip install -r requirements-scale.txt)."
        ) from exc
    where = describe_postgres(url)
    # What PostgresSaver expects of its connections (its own from_conn_string sets the same).
    options = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
    # A connection per research worker, one for the pages reading runs, one spare.
    pool = ConnectionPool(url, min_size=1, max_size=max(2, workers + 2), kwargs=options, open=False)
    # The pool logs a warning per failed connection attempt while it retries; the one sentence raised
    # below says it once, and this module's log keeps the detail.
    logging.getLogger("psycopg.pool").setLevel(logging.ERROR)
    try:
        pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
        saver = PostgresSaver(pool)
        saver.setup()
    except (PoolTimeout, PostgresError, OSError) as exc:
        pool.close()
        log.info("checkpoint database %s unavailable: %s: %s", where, type(exc).__name__, exc)
        raise CheckpointStoreUnavailable(
            f"The checkpoint database ({where}, WORKBENCH_CHECKPOINT_URL) cannot be reached: start it, or "
            "unset WORKBENCH_CHECKPOINT_URL to keep checkpoints in the data directory."
        ) from exc

    def thread_ids() -> list[str]:
        with pool.connection() as conn:
            rows = conn.execute(RUN_IDS_SQL).fetchall()
        return [row["thread_id"] for row in rows]

    return Checkpoints(saver, thread_ids, pool.close)
