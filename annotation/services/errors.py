"""The one error the annotation services raise: the site's refusal (a message, its HTTP status, the field)."""
from __future__ import annotations

from scoring.errors import ServiceRefusal


class AnnotationError(ServiceRefusal):
    """A refusal of the annotation services (the editor's socket and the review pages catch these)."""
