"""Settings: language model, models, retrieval and research limits; applied without a restart."""

from __future__ import annotations

import logging

import streamlit as st
from pydantic import SecretStr, ValidationError

from core.config import Settings
from core.service.display import escape_markdown
from views.components.navigation import page_setup

log = logging.getLogger(__name__)

PROVIDERS = {"offline": "Offline engine (no LLM, no key)", "openai": "OpenAI or OpenAI-compatible server"}

bench = page_setup(
    "Settings",
    "Changes apply as soon as you save them, for every page and the next research run, and are kept in the "
    "data directory for the next start. An API key typed here is kept in memory only, until the app stops; "
    "set WORKBENCH_LLM_API_KEY to provide one at every start. A WORKBENCH_* environment variable always "
    "wins over a saved value.",
)
current = bench.settings


def masked(secret: SecretStr | None) -> str:
    """'•••• last 4' for a saved key, never the key itself."""
    if secret is None or not secret.get_secret_value():
        return "no key saved"
    value = secret.get_secret_value()
    return f"•••• {value[-4:]}" if len(value) >= 8 else "•••• (short key)"


with st.form("settings"):
    st.subheader("Language model", divider="gray")
    provider = st.radio(
        "Engine",
        options=list(PROVIDERS),
        index=list(PROVIDERS).index(current.llm_provider),
        format_func=PROVIDERS.get,
        horizontal=True,
        help="The offline engine gives extractive, fully cited answers. An LLM plans, distils and writes; "
        "any node whose LLM call fails falls back to the offline agent, and the run says so.",
    )
    left, right = st.columns(2)
    with left:
        base_url = st.text_input(
            "Base URL",
            value=current.llm_base_url or "",
            placeholder="empty = api.openai.com; e.g. http://localhost:8080/v1",
            help="For vLLM, Ollama, LM Studio or llama.cpp server; usually ends in /v1.",
        )
        model = st.text_input("Model", value=current.llm_model)
    with right:
        api_key = st.text_input(
            "API key",
            value="",
            type="password",
            placeholder=f"saved key {masked(current.llm_api_key)} — leave empty to keep it"
            if current.llm_api_key
            else "no key saved",
            help="Never shown back, logged or exported. Local servers usually need none.",
        )
        forget_key = st.checkbox("Forget the saved key", value=False)
        timeout = st.number_input(
            "Timeout per LLM call (s)", min_value=5.0, max_value=600.0, value=float(current.llm_timeout_s)
        )
    st.subheader("Models", divider="gray")
    left, right = st.columns(2)
    with left:
        embedding_model = st.text_input(
            "Embedding model",
            value=current.embedding_model,
            help="'all-MiniLM-L6-v2' uses the bundled weights. Changing it needs the filings re-ingested.",
        )
    with right:
        reranker_model = st.text_input(
            "Reranker (cross-encoder)",
            value=current.reranker_model,
            help="Loaded from the local cache; when it is unavailable a documented local scorer reranks "
            "and every run shows the fallback.",
        )
    st.subheader("Retrieval and research", divider="gray")
    cols = st.columns(4)
    k = cols[0].number_input("Candidates per step (k)", min_value=1, max_value=100, value=int(current.k))
    top_n = cols[1].number_input("Evidence kept (top-n)", min_value=1, max_value=50, value=int(current.top_n))
    max_steps = cols[2].number_input("Max steps", min_value=1, max_value=20, value=int(current.max_steps))
    with cols[3]:
        st.write("")
        web = st.toggle(
            "Web search", value=current.web_search_enabled, help="Steps may search the web (ddgs)."
        )
    route = st.toggle(
        "Route to the filings a question names",
        value=current.route_to_named_filings,
        help="A search over several filings looks only in the ones whose company and/or fiscal year the "
        "question names; each step says when it did. Off: every selected filing is searched.",
    )
    st.subheader("Storage", divider="gray")
    st.text_input(
        "Data directory",
        value=str(current.data_dir),
        disabled=True,
        help="Filings, indexes, run checkpoints and caches live here. Set WORKBENCH_DATA_DIR to change it.",
    )
    left, right, _ = st.columns([1, 1, 3])
    with left:
        test = st.form_submit_button("Test connection", icon=":material/network_check:", width="stretch")
    with right:
        save = st.form_submit_button("Save", type="primary", icon=":material/save:", width="stretch")

if test or save:
    key: SecretStr | None = None if forget_key else current.llm_api_key
    if api_key.strip():
        key = SecretStr(api_key.strip())
    try:
        candidate = Settings.model_validate(
            current.model_dump()
            | {
                "llm_provider": provider,
                "llm_base_url": base_url.strip() or None,
                "llm_model": model.strip() or current.llm_model,
                "llm_api_key": key,
                "llm_timeout_s": float(timeout),
                "embedding_model": embedding_model.strip() or current.embedding_model,
                "reranker_model": reranker_model.strip() or current.reranker_model,
                "k": int(k),
                "top_n": min(int(top_n), int(k)),
                "max_steps": int(max_steps),
                "web_search_enabled": bool(web),
                "route_to_named_filings": bool(route),
            }
        )
    except ValidationError as exc:
        log.info("settings rejected: %s", exc.errors(include_input=False))
        st.error(f"These settings are not valid: {escape_markdown(str(exc.errors()[0]['msg']))}.")
        st.stop()
    if test:
        with st.spinner("Calling the model…"):
            ok, message = bench.test_llm_connection(candidate)
        if ok:
            st.success(escape_markdown(message), icon=":material/check_circle:")
        else:
            st.error(escape_markdown(message), icon=":material/error:")
    if save:
        bench.save_settings(candidate)
        note = (
            " Re-ingest your filings: the embedding model changed."
            if (candidate.embedding_model != current.embedding_model)
            else ""
        )
        st.success(f"Settings saved and applied.{note}", icon=":material/check_circle:")
        if candidate.llm_api_key is not None:
            st.caption(f"API key: {masked(candidate.llm_api_key)}")
