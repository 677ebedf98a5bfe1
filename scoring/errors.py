"""The one error model: a service's refusal carries the HTTP status to answer with and what it is about. The API
renders it (and DRF's own errors) through scoring.api_errors, the HTML pages through scoring.error_pages; every app
raises these, none builds an error body of its own."""
from __future__ import annotations

from typing import Any, Sequence

from scoring.core.contract import ProblemGroup

INVALID_REQUEST = "Invalid request."


class ServiceRefusal(Exception):
    """A request a service refuses before anything is changed: `message` for people, `status` for HTTP, and where
    it applies the request `field` or the file `line` at fault; `extra` adds keys to the body (an item's current
    `version` on a stale save)."""

    def __init__(self, message: str, *, status: int = 400, field: str | None = None, line: int | None = None,
                 extra: dict[str, Any] | None = None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.field = field or None
        self.line = line
        self.extra = extra or {}

    def body(self) -> dict[str, Any]:
        """The API's one error shape: {"detail", "field"?, "line"?, "errors"?, ...extra}."""
        body: dict[str, Any] = {"detail": self.message, **self.extra}
        if self.field:
            body["field"] = self.field
        if self.line is not None:
            body["line"] = self.line
        return body


class InvalidRequest(ServiceRefusal):
    """A request whose input did not validate: `errors` maps each field to its messages (a serializer's errors)."""

    def __init__(self, errors: dict[str, Any]):
        super().__init__(INVALID_REQUEST, status=400)
        self.errors = errors

    def body(self) -> dict[str, Any]:
        return {**super().body(), "errors": self.errors}


class SubmissionError(ServiceRefusal):
    """An upload (or a change to a submission or model entry) refused before anything is stored."""


class FileRefused(SubmissionError):
    """An upload refused for what its file holds, before anything of it is stored (no quota used, no submission, no
    model entry): `message` says why in a sentence; `groups` are the file's problems by kind, each said once with
    how many lines it is on ("50 lines: field `imgs` is not known — did you mean `images`?"), and `total` counts
    every problem, so no count is cut short unsaid."""

    def __init__(self, message: str, *, groups: Sequence[ProblemGroup], total: int):
        super().__init__(message, field="file")
        self.groups = list(groups)
        self.total = total

    def problem_lines(self) -> list[str]:
        """The groups as sentences, for pages and the command-line client."""
        return [str(group) for group in self.groups]

    def body(self) -> dict[str, Any]:
        return {**super().body(), "problems": [group.as_dict() for group in self.groups], "problem_count": self.total}
