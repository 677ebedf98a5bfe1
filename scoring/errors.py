"""Errors of the submission intake, shared by the services that check an upload and the views that answer."""
from __future__ import annotations


class SubmissionError(Exception):
    """An upload that is refused before anything is stored. `status` is the HTTP status to answer with."""

    def __init__(self, message: str, *, status: int = 400, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.field = field
