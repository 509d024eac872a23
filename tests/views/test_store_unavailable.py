"""An unreachable server (Chroma, the checkpoint database): every page that needs it says so in a sentence
and stops; Settings opens."""

from __future__ import annotations

import socket

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import REPO_ROOT


@pytest.fixture
def unused_port(tmp_path, monkeypatch) -> int:
    """A port nothing listens on, and fresh settings and workbench over an empty data directory (the
    test points a server setting at the port)."""
    with socket.socket() as s:
        s.bind(("localhost", 0))
        port = s.getsockname()[1]  # nothing listens here once the socket is closed
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from core.config import get_settings
    from views.shared import workbench

    get_settings.cache_clear()
    workbench.clear()
    yield port
    get_settings.cache_clear()
    workbench.clear()


@pytest.fixture
def unreachable_store(unused_port, monkeypatch) -> int:
    monkeypatch.setenv("WORKBENCH_CHROMA_HOST", "localhost")
    monkeypatch.setenv("WORKBENCH_CHROMA_PORT", str(unused_port))
    return unused_port


@pytest.mark.parametrize("script", ["app.py", "pages/library.py", "pages/research.py"])
def test_pages_that_search_say_the_store_cannot_be_reached(unreachable_store, script):
    at = AppTest.from_file(str(REPO_ROOT / script), default_timeout=120).run()
    assert not at.exception
    assert [e.value for e in at.error] == [
        f"The Chroma server at localhost:{unreachable_store} (WORKBENCH_CHROMA_HOST) cannot be reached: start "
        "it, or unset WORKBENCH_CHROMA_HOST to keep the vectors in the data directory."
    ]


def test_settings_still_opens(unreachable_store):
    at = AppTest.from_file(str(REPO_ROOT / "pages" / "settings.py"), default_timeout=120).run()
    assert not at.exception and not at.error
    assert at.title[0].value == "Settings"


def test_an_unreachable_checkpoint_database_is_said_on_the_history_page(unused_port, monkeypatch):
    url = f"postgresql://analyst:pw-91c2@localhost:{unused_port}/research"
    monkeypatch.setenv("WORKBENCH_CHECKPOINT_URL", url)
    at = AppTest.from_file(str(REPO_ROOT / "pages" / "history.py"), default_timeout=120).run()
    assert not at.exception
    (error,) = [e.value for e in at.error]
    assert error.startswith(
        f"The checkpoint database (Postgres at localhost:{unused_port}, database research,"
    )
    assert "pw-91c2" not in error and "analyst" not in error
