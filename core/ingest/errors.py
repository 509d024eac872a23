"""The one error type ingestion raises: its message is meant for the analyst."""

from core.failures import WorkbenchError


class IngestError(WorkbenchError):
    """A filing could not be ingested; str(error) is a one-line reason a person understands."""

    def __init__(self, message: str, *, stage: str = "validate") -> None:
        super().__init__(message)
        self.stage = stage
