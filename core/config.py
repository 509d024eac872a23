"""Application settings: the only place that reads environment variables."""

from __future__ import annotations

import json
import logging
import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from core.failures import WorkbenchError

log = logging.getLogger(__name__)

BUNDLED_EMBEDDING_MODEL = "all-MiniLM-L6-v2"
DEFAULT_RERANKER_MODEL = "cross-encoder/ms-marco-MiniLM-L-6-v2"


def model_cache_dir() -> Path:
    """Where models built on this machine are kept (the static table distilled from the bundled MiniLM):
    WORKBENCH_MODEL_CACHE, else `filing-workbench` in the user's cache folder (XDG_CACHE_HOME or ~/.cache)."""
    configured = os.environ.get("WORKBENCH_MODEL_CACHE")
    if configured:
        return Path(configured)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "filing-workbench"


class ServiceUnavailable(WorkbenchError, RuntimeError):
    """A configured server (vector store, checkpoint database) cannot be used; the message says so in a
    sentence a person understands, with no exception text and no password."""


class Settings(BaseSettings):
    """Every tunable of the workbench; override with WORKBENCH_<NAME> environment variables."""

    model_config = SettingsConfigDict(env_prefix="WORKBENCH_", extra="ignore")

    # Storage
    data_dir: Path = Field(default=Path("data"), description="Root of everything persistent.")
    chroma_host: str | None = Field(default=None, description="Chroma server host; None = embedded store.")
    chroma_port: int = 8000
    checkpoint_url: SecretStr | None = Field(
        default=None,
        description="postgresql://… URL of a database for run checkpoints; None = SQLite in data_dir.",
    )
    chroma_namespace: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$",
        description="Prefix of this library's collections on a Chroma server; None = an id kept with the "
        "catalog (in data_dir, or in the library database).",
    )
    library_url: SecretStr | None = Field(
        default=None,
        description="postgresql://… URL of a database holding the catalog (filings, passages, facts), the "
        "keyword index and the marks of writes under way, shared by every app server pointed at it; None = "
        "SQLite and files in data_dir.",
    )
    originals_dir: Path | None = Field(
        default=None,
        description="Where the uploaded originals are kept (a path every app server of a shared library "
        "mounts); None = data_dir/uploads.",
    )

    # Ingestion
    max_upload_mb: float = Field(default=50.0, description="Largest accepted upload, in MiB.")
    chunk_tokens: int = Field(default=220, description="Upper bound of a chunk, in embedding-model tokens.")
    chunk_overlap_tokens: int = Field(default=40, description="Tokens repeated between neighbouring chunks.")

    # Models
    embedding_model: str = Field(
        default=BUNDLED_EMBEDDING_MODEL,
        description=(
            "'all-MiniLM-L6-v2' loads the bundled weights; 'static-all-MiniLM-L6-v2' indexes with a static "
            "model distilled from them (ingestion several times faster, candidates rescored by MiniLM at query "
            "time); any other name loads via sentence-transformers."
        ),
    )
    reranker_model: str = DEFAULT_RERANKER_MODEL

    # Retrieval
    k: int = Field(
        default=30,
        description=(
            "Candidates retrieved per step and handed to the reranker. A pool deeper than top_n lets the "
            "reranker promote passages the first stage ranked low (FinanceBench, 55 filings: top-5 hit "
            "rate +4.2 points per filing and +2.1 pooled going from 10 to 30)."
        ),
    )
    top_n: int = Field(default=5, description="Evidence kept after reranking.")
    rrf_k: int = Field(default=60, description="Reciprocal-rank-fusion constant.")
    rrf_vector_weight: float = 1.0
    rrf_keyword_weight: float = 0.6
    route_to_named_filings: bool = Field(
        default=True,
        description=(
            "When a search spans several filings and the question names a company and/or fiscal year among "
            "them, search only those filings (the result says which). Off: search every selected filing."
        ),
    )

    # Research loop
    max_steps: int = Field(default=10, description="Most plan steps a run executes, follow-ups included.")
    max_parallel_steps: int | None = Field(
        default=None,
        ge=1,
        description="Independent plan steps a run executes at once (WORKBENCH_MAX_PARALLEL_STEPS). Unset: one "
        "at a time offline (the work is on this machine's cores), four with an LLM (model calls wait on the "
        "network). A calculator waits for the steps before it.",
    )
    max_concurrent_runs: int = Field(
        default=2,
        ge=1,
        description="Research actions that run at once in the app's worker pool; more wait their turn.",
    )
    web_search_enabled: bool = True
    web_search_timeout_s: float = 8.0

    # Evaluation
    financebench_dir: Path | None = Field(
        default=None,
        description="FinanceBench's folder (the two jsonl files and pdfs/); unset = shared/data/financebench "
        "next to the project, when present.",
    )

    # LLM
    llm_provider: Literal["offline", "openai"] = "offline"
    llm_base_url: str | None = None
    llm_model: str = "gpt-4o-mini"
    llm_api_key: SecretStr | None = None
    llm_timeout_s: float = 60.0
    llm_max_retries: int = 3
    llm_max_output_tokens: int = Field(
        default=4096,
        ge=64,
        description="Cap on the tokens one LLM call may generate (bounds a runaway answer).",
    )
    llm_structured_output_method: Literal["function_calling", "json_schema", "json_mode"] = "function_calling"
    llm_streaming: bool | None = Field(
        default=None,
        description="Stream each answer as the model writes it, so the Research page shows it growing. Unset: "
        "on for OpenAI's own API, off for other servers (not all stream function calls and token usage "
        "as OpenAI does).",
    )

    @property
    def uploads_dir(self) -> Path:
        return self.originals_dir or self.data_dir / "uploads"

    @property
    def chroma_dir(self) -> Path:
        return self.data_dir / "chroma"

    @property
    def catalog_path(self) -> Path:
        return self.data_dir / "catalog.sqlite"

    @property
    def keyword_index_dir(self) -> Path:
        """BM25 postings, one file per filing."""
        return self.data_dir / "keywords"

    @property
    def legacy_keyword_index_path(self) -> Path:
        """The single-file BM25 index of earlier versions, split into keyword_index_dir when found."""
        return self.data_dir / "bm25.pkl"

    @property
    def embedding_cache_path(self) -> Path:
        return self.data_dir / "embeddings.sqlite"

    @property
    def checkpoint_path(self) -> Path:
        return self.data_dir / "checkpoints.sqlite"

    @property
    def llm_cache_path(self) -> Path:
        return self.data_dir / "llm_cache.sqlite"

    @property
    def max_upload_bytes(self) -> int:
        return int(self.max_upload_mb * 1024 * 1024)


#: What the Settings page changes, kept in ``<data dir>/settings.json`` across restarts. The API key is never
#: among them: it comes from the environment or lives in memory for the running app only.
SAVED_FIELDS = (
    "llm_provider",
    "llm_base_url",
    "llm_model",
    "llm_timeout_s",
    "embedding_model",
    "reranker_model",
    "k",
    "top_n",
    "max_steps",
    "web_search_enabled",
    "route_to_named_filings",
)
#: What a research run records of the settings it ran with (shown in the report's appendix): no key, no
#: paths or hosts of the machine.
RUN_FIELDS = (
    *SAVED_FIELDS,
    "chunk_tokens",
    "chunk_overlap_tokens",
    "rrf_k",
    "rrf_vector_weight",
    "rrf_keyword_weight",
    "web_search_timeout_s",
    "llm_max_retries",
    "llm_max_output_tokens",
    "llm_structured_output_method",
    "max_parallel_steps",
)
SETTINGS_FILE = "settings.json"


def run_settings(settings: Settings) -> dict[str, Any]:
    """The settings a run records: RUN_FIELDS as JSON values."""
    return settings.model_dump(mode="json", include=set(RUN_FIELDS))


def save_settings(settings: Settings) -> Path:
    """Write the saved fields to the data directory (atomically); returns the file written."""
    path = settings.data_dir / SETTINGS_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(settings.model_dump(mode="json", include=set(SAVED_FIELDS)), indent=2), "utf-8")
    os.replace(tmp, path)
    return path


def load_settings(**overrides: Any) -> Settings:
    """Settings from `overrides` and the environment, then what was saved in the data directory for every
    field neither sets (an explicit value always wins). A damaged file is ignored and logged."""
    settings = Settings(**overrides)
    path = settings.data_dir / SETTINGS_FILE
    if not path.is_file():
        return settings
    try:
        saved = json.loads(path.read_text("utf-8"))
        if not isinstance(saved, dict):
            raise ValueError("not a JSON object")
        chosen = {k: v for k, v in saved.items() if k in SAVED_FIELDS and k not in settings.model_fields_set}
        return Settings(**chosen, **overrides)
    except (OSError, ValueError) as exc:  # pydantic's ValidationError is a ValueError
        log.warning("ignoring saved settings in %s: %s", path.name, exc)
        return settings


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Settings of this process (environment, then saved settings), read once."""
    return load_settings()


def describe_postgres(url: str, variable: str = "WORKBENCH_CHECKPOINT_URL") -> str:
    """'Postgres at db.internal:5432, database research' — never the user or the password."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        info = conninfo_to_dict(url)
    except Exception:  # noqa: BLE001 - a malformed URL is described without its content
        return f"Postgres (the URL in {variable} could not be read)"
    host = str(info.get("host") or "localhost")
    where = host if host.startswith("/") else f"{host}:{info.get('port') or 5432}"
    return f"Postgres at {where}, database {info.get('dbname') or 'postgres'}"
