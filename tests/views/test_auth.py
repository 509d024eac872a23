"""Which sign-in the secrets configure: none, the provider of [auth] itself, or a named one ([auth.okta])."""

from __future__ import annotations

import pytest
import streamlit as st
from streamlit.runtime.secrets import AttrDict

from views.components import auth


class _Secrets:
    def __init__(self, content: dict | None, broken: bool = False) -> None:
        self._content, self._broken = content, broken

    def load_if_toml_exists(self) -> bool:
        if self._broken:
            raise ValueError("the secrets file is not valid TOML")
        return self._content is not None

    def get(self, key, default=None):
        return AttrDict(self._content).get(key, default)


BASE = {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": "x"}


@pytest.mark.parametrize(
    ("content", "broken", "configured", "provider"),
    [
        (None, False, False, None),  # no secrets file
        ({"other": {"key": "v"}}, False, False, None),  # secrets, but no [auth]
        ({"auth": BASE}, False, False, None),  # [auth] without a provider
        (
            {"auth": {**BASE, "server_metadata_url": "https://idp/.well-known/openid-configuration"}},
            False,
            True,
            None,
        ),
        (
            {"auth": {**BASE, "okta": {"server_metadata_url": "https://okta/.well-known"}}},
            False,
            True,
            "okta",
        ),
        ({"auth": BASE}, True, False, None),  # an unreadable file: no sign-in here, Streamlit reports it
    ],
)
def test_the_secrets_say_whether_and_with_which_provider_analysts_sign_in(
    monkeypatch, content, broken, configured, provider
):
    monkeypatch.setattr(st, "secrets", _Secrets(content, broken))
    assert auth.sign_in_configured() is configured
    assert auth._provider() == provider
