"""The README's operator page, run: two app servers started with `make serve` and exactly the variables the
README's block exports, against a real Postgres (library and runs), a real Chroma server and a real OpenID
Connect provider. An analyst signed in on one uploads a filing; another, signed in on the other app server,
finds it in the library and researches it."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import running_app, screenshot, wait_for_app
from tests.browser.test_research_browser import ask, body_text, go_to, ingest_via_library, wait_for_text
from tests.browser.test_sign_in_browser import SECRETS, _sign_in
from tests.conftest import REPO_ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SAMPLE = REPO_ROOT / "sample_docs" / "northwind_10k_fy2025.html"


def readme_operator_block() -> str:
    """The bash block of the README's operator page (Scale-out)."""
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("**An operator's page.**", 1)[1]
    return section.split("```bash\n", 1)[1].split("```", 1)[0]


def test_the_operator_page_exports_what_an_app_server_of_a_shared_library_reads():
    from core.config import Settings

    block = readme_operator_block()
    exported = re.findall(r"^export (WORKBENCH_[A-Z_]+)=", block, flags=re.MULTILINE)
    assert exported and all(
        name.removeprefix("WORKBENCH_").lower() in Settings.model_fields for name in exported
    )
    assert re.search(r"^make serve\b", block, flags=re.MULTILINE)
    assert ".venv/bin/chroma run --path" in block  # the command tests/conftest.py's chroma_server runs


def test_two_app_servers_share_the_library_as_the_readme_says(tmp_path, browser, library_url, chroma_server):
    from oidc_provider_mock import run_server_in_thread

    values = {
        "WORKBENCH_LIBRARY_URL": library_url,
        "WORKBENCH_CHECKPOINT_URL": library_url,
        "WORKBENCH_CHROMA_HOST": chroma_server[0],
        "WORKBENCH_CHROMA_PORT": str(chroma_server[1]),
        "WORKBENCH_ORIGINALS_DIR": str(tmp_path / "originals"),
    }
    exported = re.findall(r"^export (WORKBENCH_[A-Z_]+)=", readme_operator_block(), flags=re.MULTILINE)
    assert sorted(exported) == sorted(values), "the README's block and this test set the same variables"
    env = {**values, "WORKBENCH_WEB_SEARCH_ENABLED": "false"}
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    with (
        run_server_in_thread() as provider,
        running_app(tmp_path / "one", SECRETS % provider.server_port, env=env, make_serve=True) as one,
        running_app(tmp_path / "two", SECRETS % provider.server_port, env=env, make_serve=True) as two,
    ):
        first = browser.new_page(viewport={"width": 1400, "height": 1400})
        _sign_in(first, one["url"], "ana@example.com")
        ingest_via_library(first, one["url"], SAMPLE)
        first.close()

        second = browser.new_page(viewport={"width": 1400, "height": 1400})
        _sign_in(second, two["url"], "ben@example.com")
        go_to(second, "Home")
        home = second.locator("[data-testid='stMain']").first.inner_text()
        assert "Northwind" in home, home[:1500]
        go_to(second, "Research")
        ask(second, "How did Northwind's Fleet Software revenue change in FY2025?", step_mode=False)
        second.get_by_role("button", name="Approve plan").click()
        wait_for_text(second, "References")
        wait_for_app(second)
        assert "112.5" in body_text(second)
        screenshot(second, "scale-out-second-app-server")
        second.close()
    assert (
        not (tmp_path / "one" / "catalog.sqlite").exists()
        and not (tmp_path / "two" / "catalog.sqlite").exists()
    )
    assert len(list((tmp_path / "originals").iterdir())) == 1
