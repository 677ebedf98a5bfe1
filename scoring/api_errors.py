"""The API's one exception handler (REST_FRAMEWORK["EXCEPTION_HANDLER"]): a service's refusal and DRF's own errors
answer in the one error shape of scoring.errors, {"detail", "field"?, "line"?, "errors"?}, documented as the
schema's `Error` component (scoring.serializers.ErrorOutput)."""
from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler

from scoring.errors import InvalidRequest, ServiceRefusal


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ValidationError):  # a serializer's is_valid(raise_exception=True), or a view's own check
        errors = exc.detail if isinstance(exc.detail, dict) else {api_settings.NON_FIELD_ERRORS_KEY: exc.detail}
        exc = InvalidRequest(errors)
    if isinstance(exc, ServiceRefusal):
        return Response(exc.body(), status=exc.status)
    # NotAuthenticated, PermissionDenied, NotFound (and Django's Http404), Throttled, ParseError (the bounded JSON
    # parser's too), MethodNotAllowed...: DRF's handler gives the status and headers (WWW-Authenticate,
    # Retry-After) and {"detail": ...}; anything else is a server error (None: Django's 500).
    return exception_handler(exc, context)
