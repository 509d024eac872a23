"""One policy for failures shown to a person: what failed and what to do, never the exception's text."""

from __future__ import annotations

import pytest

from core.config import ServiceUnavailable
from core.evaluation.questions import EvalSetError
from core.failures import WorkbenchError, error_kind, failure_message
from core.graph.background import RunBusy, describe_action_failure
from core.graph.checkpoints import CheckpointStoreUnavailable
from core.graph.runner import RunNotFound, RunStateError
from core.index.vector_store import VectorStoreUnavailable
from core.ingest.errors import IngestError

SECRET = "/home/analyst/keys/sk-live-1234 and a passage of the filing"


@pytest.mark.parametrize(
    "cls",
    [
        ServiceUnavailable,
        VectorStoreUnavailable,
        CheckpointStoreUnavailable,
        RunBusy,
        RunStateError,
        EvalSetError,
        IngestError,
    ],
)
def test_errors_raised_on_purpose_carry_a_message_to_show(cls):
    error = cls("The thing cannot be done: do this instead.")
    assert isinstance(error, WorkbenchError)
    assert error.message == str(error) == "The thing cannot be done: do this instead."
    assert failure_message("Saving", error) == "Saving failed: The thing cannot be done: do this instead"


def test_a_missing_run_says_so_and_keeps_its_id():
    error = RunNotFound("abc123")
    assert isinstance(error, WorkbenchError) and isinstance(error, KeyError)  # str() is not KeyError's repr
    assert (str(error), error.run_id) == ("there is no run abc123", "abc123")
    assert (
        describe_action_failure("Continuing…", error)
        == "Continuing was not possible: there is no run abc123."
    )


def test_any_other_error_is_named_by_its_kind_never_by_its_text():
    for error in (RuntimeError(SECRET), KeyError(SECRET), OSError(2, SECRET)):
        message = failure_message("The search", error)
        assert message == f"The search failed unexpectedly ({type(error).__name__}); the log has the details"
        assert "sk-live" not in describe_action_failure("Approving the plan…", error)


def test_a_checkpointed_error_is_named_by_the_class_in_its_repr():
    assert error_kind(repr(RuntimeError(SECRET))) == "RuntimeError"
    assert error_kind("('not', 'a class')") == "error"
    assert error_kind("no class here") == "error"


def test_pages_show_a_message_written_for_a_person_and_never_an_exception_text():
    from views.components.display import error_text

    leaked = error_text("Opening the run", RuntimeError(SECRET))
    assert "sk-live" not in leaked and "(RuntimeError)" in leaked and "Settings page" in leaked
    assert error_text("The evaluation", EvalSetError("Unknown filing(s): a.pdf.")) == (
        "The evaluation failed: Unknown filing(s): a.pdf."
    )
    assert "no longer exists" in error_text("Opening run x", RunNotFound("x"))
    assert "(run x is finished, not awaiting\\_plan\\_review)" in error_text(
        "Approving", RunStateError("run x is finished, not awaiting_plan_review")
    )
