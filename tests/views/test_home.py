"""Home page with Streamlit's AppTest: without sign-in configured, it says the app is open to anyone."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.conftest import REPO_ROOT


def test_home_says_who_can_open_the_app_without_sign_in(bench):
    at = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=180).run()
    assert not at.exception, at.exception
    assert any("no sign-in is configured" in caption.value for caption in at.caption)
    assert not [b for b in at.button if b.label == "Sign in"]  # every page stays open, as before
