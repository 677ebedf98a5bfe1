"""The one error the annotation services raise: a message, its HTTP status and the field it is about."""
from __future__ import annotations

from typing import Any


class AnnotationError(Exception):
    def __init__(self, message: str, *, status: int = 400, field: str = "", extra: dict[str, Any] | None = None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.field = field
        self.extra = extra or {}
