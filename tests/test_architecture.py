"""Rules of the code that a reviewer would otherwise have to remember (README, "For developers").

The layering: each unit (a package or module of core/, the pages) may import units of lower layers only;
pages import the service, the models and the settings, nothing else; no module imports itself back through
others. Imports under `if TYPE_CHECKING:` count like any other: a type hint is a dependency of the code's
meaning, and a cycle through one is still a cycle.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT

CORE = REPO_ROOT / "core"

#: Lowest first. A unit is core/<name> (package or module), `views` (the pages) or `app`.
LAYERS: list[set[str]] = [
    {"core.failures", "core.text"},
    {"core.models", "core.config", "core.prompts"},
    {"core.citations", "core.llm", "core.index", "core.finance"},
    {"core.ingest", "core.retrieval", "core.tools"},
    {"core.agents", "core.report"},
    {"core.graph"},
    {"core.evaluation"},
    {"core.service"},
    {"views"},
    {"core.cli", "pages", "app"},
]
#: What the pages (pages/, app.py and their helpers in views/) may import of the project besides views/.
PAGE_IMPORTS = ("core.service", "core.models", "core.config")


def _unit(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "core" and len(parts) > 1 else parts[0]


def _layer(unit: str) -> int | None:
    return next((i for i, units in enumerate(LAYERS) if unit in units), None)


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _project_imports(path: Path) -> list[str]:
    """Modules of the project this file imports (at any depth: in functions and `if TYPE_CHECKING:` blocks too)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
    return [name for name in found if name.split(".")[0] in ("core", "views", "pages", "app")]


def _sources(root: Path) -> list[Path]:
    folders = ("core", "views", "pages")
    return [*(path for folder in folders for path in sorted((root / folder).rglob("*.py"))), root / "app.py"]


def layering_problems(root: Path) -> list[str]:
    """One sentence per import that breaks the layering, naming the file and the import."""
    problems: list[str] = []
    for path in (p for p in _sources(root) if p.exists()):
        here = _unit(_module_name(path, root))
        for target in _project_imports(path):
            there = _unit(target)
            where = f"{path.relative_to(root).as_posix()} imports {target}"
            if there == here:
                continue
            if here in ("views", "pages", "app") and not target.startswith((*PAGE_IMPORTS, "views")):
                problems.append(f"{where}: pages may import only {', '.join(PAGE_IMPORTS)} (and views/)")
                continue
            mine, theirs = _layer(here), _layer(there)
            if mine is None or theirs is None:
                problems.append(f"{where}: {here if mine is None else there} has no layer in LAYERS")
            elif theirs >= mine:
                problems.append(f"{where}: {here} (layer {mine}) may not import {there} (layer {theirs})")
    return problems


def import_cycles(root: Path) -> list[list[str]]:
    """Groups of modules that import each other, directly or through others."""
    sources = {_module_name(p, root): p for p in _sources(root) if p.exists()}
    graph: dict[str, set[str]] = {}
    for name, path in sources.items():
        targets = set()
        for target in _project_imports(path):
            while target and target not in sources:
                target = target.rpartition(".")[0]
            if target and target != name:
                targets.add(target)
        graph[name] = targets
    # Tarjan's strongly connected components.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def strong(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in index:
                strong(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for node in graph:
        if node not in index:
            strong(node)
    return cycles


def test_imports_follow_the_layers():
    problems = layering_problems(REPO_ROOT)
    assert not problems, "\n".join(problems)


def test_no_module_imports_itself_back():
    cycles = import_cycles(REPO_ROOT)
    assert not cycles, "\n".join(" <-> ".join(group) for group in cycles)


def test_a_wrong_import_is_named(tmp_path):
    """The checks above can fail: a report module that imports the graph, a page that imports the index, a
    type hint that imports upwards, and a cycle made only of type hints."""
    (tmp_path / "core" / "report").mkdir(parents=True)
    (tmp_path / "core" / "index").mkdir(parents=True)
    (tmp_path / "pages").mkdir()
    (tmp_path / "core" / "report" / "render.py").write_text("from core.graph.runner import ResearchRunner\n")
    (tmp_path / "pages" / "library.py").write_text(
        "from core.index.catalog import Catalog\nfrom core.service import Workbench\n"
    )
    hint = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    {}\n"
    (tmp_path / "app.py").write_text(hint.format("import core.graph"))
    (tmp_path / "core" / "index" / "store.py").write_text(hint.format("from core.service import Workbench"))
    assert layering_problems(tmp_path) == [
        "core/index/store.py imports core.service: core.index (layer 2) may not import core.service (layer 7)",
        "core/report/render.py imports core.graph.runner: core.report (layer 4) may not import core.graph (layer 5)",
        "pages/library.py imports core.index.catalog: pages may import only core.service, core.models, core.config "
        "(and views/)",
        "app.py imports core.graph: pages may import only core.service, core.models, core.config (and views/)",
    ]
    (tmp_path / "core" / "report" / "labels.py").write_text("import core.report.render\n")
    (tmp_path / "core" / "report" / "render.py").write_text("from core.report.labels import safe_url\n")
    assert import_cycles(tmp_path) == [["core.report.labels", "core.report.render"]]
    (tmp_path / "core" / "report" / "labels.py").write_text(hint.format("from core.report.render import Run"))
    (tmp_path / "core" / "report" / "render.py").write_text(hint.format("import core.report.labels"))
    assert import_cycles(tmp_path) == [["core.report.labels", "core.report.render"]]


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
