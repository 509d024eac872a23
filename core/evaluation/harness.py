"""Run an evaluation: ingest the filings a question set needs, answer every question with every system (its
search scoped to all of the question's filings), score each answer, store each result as it comes (so a
crashed run resumes), and summarise."""

from __future__ import annotations

import json
import logging
import os
import statistics
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.evaluation.judge import llm_metrics
from core.evaluation.metrics import TABLE_METRICS, reference_metrics
from core.evaluation.questions import EvalSetError, QuestionSet, shared_document
from core.evaluation.systems import Systems
from core.evaluation.workspace import Library, Workspace
from core.failures import failure_message
from core.index.store import IndexStore
from core.ingest.pipeline import ingest_file
from core.models import EvalConfig, EvalQuestion, EvalResult, EvalRun, Filing

log = logging.getLogger(__name__)

BY_TYPE_METRICS = [
    "gold_evidence_hit",
    "document_coverage",
    "number_match",
    "answer_correctness",
    "token_f1",
    "faithfulness",
]


@dataclass
class EvalProgress:
    """Progress of an evaluation for progress bars: what happens now, and the last result if any."""

    done: int
    total: int
    message: str
    result: EvalResult | None = None


ProgressFn = Callable[[EvalProgress], None]


class EvalStore:
    """Evaluation runs on disk: <dir>/<eval_id>/{config,questions}.json, results.jsonl, summary.json."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _dir(self, eval_id: str) -> Path:
        if not eval_id or not all(c.isalnum() or c in "-_" for c in eval_id):
            raise EvalSetError(f"{eval_id!r} is not an evaluation id.")
        return self.root / eval_id

    def create(self, config: EvalConfig, questions: list[EvalQuestion]) -> None:
        folder = self._dir(config.eval_id)
        folder.mkdir(parents=True, exist_ok=False)
        (folder / "config.json").write_text(config.model_dump_json(indent=2), encoding="utf-8")
        payload = json.dumps([q.model_dump(mode="json") for q in questions], ensure_ascii=False)
        (folder / "questions.json").write_text(payload, encoding="utf-8")

    def append(self, eval_id: str, result: EvalResult) -> None:
        """Add one result durably: a crash loses at most the answer being computed."""
        with (self._dir(eval_id) / "results.jsonl").open("a", encoding="utf-8") as fh:
            fh.write(result.model_dump_json() + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def finish(self, eval_id: str, summary: dict[str, Any]) -> None:
        (self._dir(eval_id) / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")

    def load(self, eval_id: str) -> EvalRun:
        folder = self._dir(eval_id)
        if not (folder / "config.json").exists():
            raise EvalSetError(f"No evaluation {eval_id} in {self.root.name}.")
        config = EvalConfig.model_validate_json((folder / "config.json").read_text(encoding="utf-8"))
        questions = [
            EvalQuestion.model_validate(q)
            for q in json.loads((folder / "questions.json").read_text(encoding="utf-8"))
        ]
        results: list[EvalResult] = []
        path = folder / "results.jsonl"
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    results.append(EvalResult.model_validate_json(line))
                except ValueError:
                    log.warning("skipping a damaged result line in %s", path)  # a torn last write
        return EvalRun(
            config=config, questions=questions, results=results, finished=(folder / "summary.json").exists()
        )

    def list(self) -> list[EvalRun]:
        """Every stored evaluation, newest first."""
        runs = []
        for folder in self.root.glob("*/config.json"):
            try:
                runs.append(self.load(folder.parent.name))
            except (EvalSetError, ValueError):
                continue
        return sorted(runs, key=lambda r: r.config.created_at, reverse=True)


class Evaluator:
    """Evaluations in one workspace (a data directory of their own, apart from the analyst's library)."""

    def __init__(self, workspace: Workspace, library: Library | None = None) -> None:
        self.workspace = workspace
        self.library = library
        self.store = EvalStore(workspace.settings.data_dir / "evaluations")

    # --- filings ------------------------------------------------------------------------------

    def ensure_filings(self, qset: QuestionSet, on_progress: ProgressFn | None = None) -> dict[str, Filing]:
        """file name -> Filing for every filing the set needs, ingesting those not yet in the workspace."""
        report = on_progress or (lambda p: None)
        by_name = {f.filename.lower(): f for f in self.workspace.store.catalog.list_filings()}
        needed = list(dict.fromkeys(name for q in qset.questions for name in q.filings))
        missing: list[str] = []
        for i, name in enumerate(needed, start=1):
            if name.lower() in by_name:
                continue
            data = self._original(name, qset)
            if data is None:
                missing.append(name)
                continue
            report(EvalProgress(0, len(qset.questions), f"Ingesting {name} ({i} of {len(needed)} filings)"))
            result = ingest_file(self.workspace.store, data, name)
            if not result.ok or result.filing is None:
                raise EvalSetError(f"{name} could not be ingested: {result.error}")
            by_name[name.lower()] = result.filing
        if missing:
            shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
            raise EvalSetError(
                f"Unknown filing(s): {shown}. Upload them to the Library first, or put them next to the question set."
            )
        return {name: by_name[name.lower()] for name in needed}

    def _original(self, name: str, qset: QuestionSet) -> bytes | None:
        if qset.documents_dir is not None and (qset.documents_dir / name).is_file():
            return (qset.documents_dir / name).read_bytes()
        if self.library is not None:
            library = self.library.store
            for filing in library.catalog.list_filings():
                if filing.filename.lower() == name.lower():
                    path = library.original_path(filing)
                    return path.read_bytes() if path.exists() else None
        shared = shared_document(name)
        return shared.read_bytes() if shared is not None else None

    # --- runs ---------------------------------------------------------------------------------

    def start(self, qset: QuestionSet, config: EvalConfig, on_progress: ProgressFn | None = None) -> EvalRun:
        """Store a new evaluation of `qset` and run it to the end."""
        if not qset.questions:
            raise EvalSetError("No question matches the filters.")
        config = config.model_copy(update={"eval_id": config.eval_id or uuid.uuid4().hex[:10]})
        filings = self.ensure_filings(qset, on_progress)
        self.store.create(config, qset.questions)
        return self._run(self.store.load(config.eval_id), filings, on_progress)

    def resume(
        self, eval_id: str, qset: QuestionSet | None = None, on_progress: ProgressFn | None = None
    ) -> EvalRun:
        """Continue a stored evaluation after a crash: only the missing (question, system) pairs run."""
        run = self.store.load(eval_id)
        stored = QuestionSet(run.config.set_name, run.questions, qset.documents_dir if qset else None)
        return self._run(run, self.ensure_filings(stored, on_progress), on_progress)

    def _run(self, run: EvalRun, filings: dict[str, Filing], on_progress: ProgressFn | None) -> EvalRun:
        report = on_progress or (lambda p: None)
        systems = Systems(self.workspace, naive_k=run.config.naive_k)
        if "naive" in run.config.systems:
            unique = {f.filing_id: f for f in filings.values()}
            for i, filing in enumerate(unique.values(), start=1):
                if not systems.naive.has(filing.filing_id):
                    report(
                        EvalProgress(
                            len(run.results),
                            run.expected,
                            f"Building the naive index of {filing.filename} ({i})",
                        )
                    )
                    systems.naive.build(filing)
        done = {(r.qid, r.system) for r in run.results}
        judge = self._judge_deps() if run.config.judge == "llm" else None
        similarity = _similarity(self.workspace.store)
        names = {f.filing_id: name for name, f in filings.items()}
        for question in run.questions:
            scope = [filings[name] for name in question.filings]
            for system in run.config.systems:
                if (question.qid, system) in done:
                    continue
                report(EvalProgress(len(run.results), run.expected, f"{system}: {question.question[:80]}"))
                output = _safe_run(systems, system, question, scope)
                chunk_text = _chunk_text(self.workspace.store, systems, output)
                metrics = reference_metrics(
                    question, output, chunk_text, filings[question.filing].filing_id, similarity, names
                )
                if judge is not None:
                    metrics += llm_metrics(question, output, judge)
                result = EvalResult(
                    qid=question.qid,
                    qtype=question.qtype,
                    question=question.question,
                    reference=question.answer,
                    filing=question.filing,
                    system=system,
                    output=output,
                    metrics=metrics,
                )
                self.store.append(run.config.eval_id, result)
                run.results.append(result)
                report(
                    EvalProgress(len(run.results), run.expected, f"{system} answered {question.qid}", result)
                )
        self.store.finish(run.config.eval_id, summarise(run))
        run.finished = True
        return run

    def _judge_deps(self) -> Any:
        from core.agents.base import AgentDeps
        from core.llm import build_chat_model

        settings = self.workspace.settings
        if settings.llm_provider == "offline":
            raise EvalSetError(
                "The LLM judge needs an LLM: configure a provider in Settings, or judge by references."
            )
        return AgentDeps(settings=settings, chat_model=build_chat_model(settings))


def _safe_run(systems: Systems, system: str, question: EvalQuestion, filings: list[Filing]) -> Any:
    from core.models import SystemAnswer

    try:
        return systems.run(system, question.question, filings)
    except Exception as exc:
        log.exception("%s failed on %s", system, question.qid)
        error = failure_message(f"The {system} system", exc) + "."
        return SystemAnswer(system=system, error=error)  # type: ignore[arg-type]


def _chunk_text(store: IndexStore, systems: Systems, output: Any) -> dict[str, str]:
    ids = [c.chunk_id for c in output.citations if c.chunk_id]
    if output.system == "naive":
        return systems.naive.chunk_text(ids)
    return {c.chunk_id: c.text for c in store.catalog.get_chunks(ids)}


def _similarity(store: IndexStore) -> Callable[[str, str], float] | None:
    embedder = store.reader  # the same judge whatever model the index holds

    def cosine(a: str, b: str) -> float:
        vectors = embedder.embed_documents([a[:2000], b[:2000]])
        return round(float(vectors[0] @ vectors[1]), 4)

    return cosine


# --- summaries ------------------------------------------------------------------------------


def _mean(values: list[float]) -> float | None:
    return round(statistics.fmean(values), 4) if values else None


def summarise(run: EvalRun) -> dict[str, Any]:
    """Means per system and metric (variant-qualified), overall and per question type; p50 seconds."""

    def block(results: list[EvalResult]) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for system in run.config.systems:
            rows = [r for r in results if r.system == system]
            metrics: dict[str, Any] = {"questions": len(rows)}
            for name, variant, _ in TABLE_METRICS:
                values = [v for r in rows if (v := r.metric(name, variant)) is not None]  # type: ignore[arg-type]
                metrics[f"{name}/{variant}"] = {"mean": _mean(values), "n": len(values)}
            seconds = sorted(r.output.seconds for r in rows)
            metrics["seconds_p50"] = round(statistics.median(seconds), 2) if seconds else None
            metrics["errors"] = sum(1 for r in rows if r.output.error)
            out[system] = metrics
        return out

    types = sorted({r.qtype for r in run.results})
    return {
        "eval_id": run.config.eval_id,
        "set": run.config.set_name,
        "systems": list(run.config.systems),
        "questions": len(run.questions),
        "results": len(run.results),
        "overall": block(run.results),
        "by_type": {t: block([r for r in run.results if r.qtype == t]) for t in types},
    }


def _cell(entry: dict[str, Any] | None, percent: bool) -> str:
    if not entry or entry.get("mean") is None:
        return "–"
    value = entry["mean"]
    return f"{value * 100:.1f}% (n={entry['n']})" if percent else f"{value:.2f}"


_NOT_SHARES = {"steps", "seconds"}


def markdown_tables(summary: dict[str, Any]) -> str:
    """The overall table (systems side by side per metric) and the per-type table, in Markdown."""
    systems = summary["systems"]
    lines = [
        f"Evaluation {summary['eval_id']} on {summary['set']}: {summary['questions']} question(s), "
        f"{summary['results']} answer(s).",
        "",
        "| metric (variant) | " + " | ".join(systems) + " |",
        "|---|" + "---:|" * len(systems),
    ]
    overall = summary["overall"]
    for name, variant, label in TABLE_METRICS:
        cells = [overall[s].get(f"{name}/{variant}") for s in systems]
        if all(not c or c.get("mean") is None for c in cells):
            continue
        lines.append(f"| {label} | " + " | ".join(_cell(c, name not in _NOT_SHARES) for c in cells) + " |")
    lines.append(
        "| seconds (p50) | " + " | ".join(f"{overall[s].get('seconds_p50') or 0:.2f}" for s in systems) + " |"
    )
    lines += [
        "",
        "| question type | metric | " + " | ".join(systems) + " |",
        "|---|---|" + "---:|" * len(systems),
    ]
    for qtype, block in summary["by_type"].items():
        for name in BY_TYPE_METRICS:
            cells = [block[s].get(f"{name}/reference") for s in systems]
            if all(not c or c.get("mean") is None for c in cells):
                continue
            n = block[systems[0]]["questions"]
            lines.append(f"| {qtype} ({n}) | {name} | " + " | ".join(_cell(c, True) for c in cells) + " |")
    return "\n".join(lines) + "\n"
