"""Rules of the code that a reviewer would otherwise have to remember (DESIGN.md §3)."""

from __future__ import annotations

import ast
import subprocess
import sys

from tests.conftest import REPO_ROOT

CORE = REPO_ROOT / "core"


def _imports(path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_core_never_imports_streamlit_or_views():
    offenders = [p.relative_to(REPO_ROOT) for p in CORE.rglob("*.py") if _imports(p) & {"streamlit", "views"}]
    assert offenders == []


def test_only_core_llm_imports_langchain_openai():
    users = [
        p.relative_to(REPO_ROOT).as_posix() for p in CORE.rglob("*.py") if "langchain_openai" in _imports(p)
    ]
    assert users in ([], ["core/llm.py"])


def test_only_config_reads_environment_variables():
    readers = []
    for path in CORE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if "os.environ" in text or "os.getenv" in text:
            readers.append(path.relative_to(REPO_ROOT).as_posix())
    assert readers in ([], ["core/config.py"])


def test_importing_the_service_loads_no_model_or_client():
    code = (
        "import sys, core.service, core.cli; "
        "heavy = [m for m in ('torch', 'sentence_transformers', 'chromadb', 'langchain_openai') if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


def test_no_utils_module():
    assert not list(REPO_ROOT.glob("core/**/utils.py"))
