"""Sign-in: with an OpenID Connect provider configured in `.streamlit/secrets.toml` ([auth]), every page
needs a signed-in analyst (Streamlit's st.login / st.user); without one, the app is open to whoever reaches
its port, and the Home page says so."""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st


def _auth_section() -> dict:
    try:
        if not st.secrets.load_if_toml_exists():
            return {}
        return dict(st.secrets.get("auth") or {})
    except Exception:  # noqa: BLE001 - an unreadable secrets file: Streamlit reports it; no sign-in here
        return {}


def _provider() -> str | None:
    """The provider to sign in with: None for the one configured in [auth] itself, else the first named one
    ([auth.okta])."""
    auth = _auth_section()
    if "server_metadata_url" in auth:
        return None
    return next((name for name, value in auth.items() if isinstance(value, Mapping)), None)


def sign_in_configured() -> bool:
    """Whether `.streamlit/secrets.toml` configures sign-in (an [auth] section with a provider)."""
    auth = _auth_section()
    return "server_metadata_url" in auth or any(isinstance(v, Mapping) for v in auth.values())


def signed_in_analyst() -> str | None:
    """Who is signed in (their email, else name, else subject); None when sign-in is not configured or
    nobody is signed in."""
    if not sign_in_configured() or not st.user.is_logged_in:
        return None
    for claim in ("email", "name", "sub"):
        value = st.user.get(claim)
        if value:
            return str(value)
    return None


def require_sign_in(app_title: str) -> str | None:
    """Stop the page at a sign-in screen when sign-in is configured and nobody is signed in; otherwise the
    signed-in analyst (None when sign-in is not configured), with a sign-out button in the sidebar."""
    if not sign_in_configured():
        return None
    analyst = signed_in_analyst()
    if analyst is None:
        st.title(app_title)
        st.write("Sign in to open the library, the research runs and the reports.")
        provider = _provider()
        st.button(
            "Sign in",
            type="primary",
            icon=":material/login:",
            on_click=st.login,
            args=(provider,) if provider else (),
        )
        st.stop()
    with st.sidebar:
        st.caption(f"Signed in as {analyst}")
        st.button("Sign out", icon=":material/logout:", on_click=st.logout)
    return analyst
