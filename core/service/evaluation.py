"""The workbench's evaluations: question sets, runs in a workspace of their own, stored results, summaries."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.config import Settings
from core.evaluation.harness import EvalProgress, Evaluator, summarise
from core.evaluation.questions import NAMED_SETS, QuestionSet, load_set, load_user_set
from core.evaluation.workspace import Workspace
from core.index.store import IndexStore
from core.models import EvalConfig, EvalRun

EvalProgressFn = Callable[[EvalProgress], None]


class EvaluationMethods:
    """The evaluation methods of the Workbench (a mixin): the Workbench is the analyst's library and gives
    the workbench of the evaluation workspace."""

    # Given by the Workbench (the analyst's library):
    settings: Settings
    store: IndexStore

    def evaluation_workspace(self, data_dir: Path) -> Workspace:
        """The workbench of the data directory evaluations run in."""
        raise NotImplementedError

    def evaluator(self, data_dir: Path | None = None) -> Evaluator:
        """Evaluations in their own workspace (default: <data dir>/evaluation), apart from the library;
        filings of an uploaded question set are taken from this library by file name."""
        workspace = self.evaluation_workspace(data_dir or self.settings.data_dir / "evaluation")
        return Evaluator(workspace, library=self)

    def question_set(
        self, name: str, *, data: bytes | None = None, filename: str | None = None
    ) -> QuestionSet:
        """A set by name (sample, FinanceBench, Docugami's 10-Qs), a CSV/JSONL path, or an uploaded file's
        bytes."""
        if data is not None:
            return load_user_set(data, filename or name)
        return load_set(name, self.settings.financebench_dir)

    def run_evaluation(
        self,
        qset: QuestionSet,
        config: EvalConfig,
        on_progress: EvalProgressFn | None = None,
        data_dir: Path | None = None,
    ) -> EvalRun:
        """Run every chosen system on every question and score it; results are stored as they come."""
        return self.evaluator(data_dir).start(qset, config, on_progress)

    def resume_evaluation(
        self, eval_id: str, on_progress: EvalProgressFn | None = None, data_dir: Path | None = None
    ) -> EvalRun:
        """Finish an interrupted evaluation (the pairs already scored are kept)."""
        evaluator = self.evaluator(data_dir)
        run = evaluator.store.load(eval_id)
        qset = None
        if run.config.set_name in NAMED_SETS:
            qset = self.question_set(run.config.set_name)
        elif run.config.set_path:
            qset = self.question_set(run.config.set_path)
        return evaluator.resume(eval_id, qset, on_progress)

    def evaluations(self, data_dir: Path | None = None) -> list[EvalRun]:
        """Stored evaluations, newest first."""
        return self.evaluator(data_dir).store.list()

    def evaluation(self, eval_id: str, data_dir: Path | None = None) -> EvalRun:
        return self.evaluator(data_dir).store.load(eval_id)

    @staticmethod
    def evaluation_summary(run: EvalRun) -> dict[str, Any]:
        """Means per system and metric, overall and per question type."""
        return summarise(run)
