"""How a failure is told to a person: what failed and what to do, never the exception's text.

An exception's text may hold paths, API keys or document text, so it goes to the log (the caller logs the
traceback) and never into a message. Errors the workbench raises on purpose derive from WorkbenchError and
carry a message written to be shown; any other error is named by its kind only.
"""

from __future__ import annotations


class WorkbenchError(Exception):
    """A failure the workbench raises on purpose; `message` (also `str(error)`) says what went wrong, and
    where it helps what to do, in words a person may be shown: no path, key or document text."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message  # also for the subclasses that are KeyErrors, whose str() would quote it


def error_kind(error: BaseException | str) -> str:
    """The name of an error's class; of an error a checkpoint kept as its repr, "RuntimeError('…')", the name
    before the parenthesis (never what is inside it)."""
    if not isinstance(error, str):
        return type(error).__name__
    kind = error.split("(", 1)[0].strip() if error[:1].isalpha() else ""
    return kind if kind.isidentifier() else "error"


def failure_message(what: str, error: BaseException | str) -> str:
    """`what` failed, said to a person: with a WorkbenchError's own message, else with the kind of error and
    that the log has the details. No full stop at the end, so the caller can add what follows from it."""
    if isinstance(error, WorkbenchError):
        return f"{what} failed: {error.message.rstrip('. ')}"
    return f"{what} failed unexpectedly ({error_kind(error)}); the log has the details"
