"""Site-wide request checks that come before any view."""
from __future__ import annotations

from collections.abc import Callable
from urllib.parse import unquote_to_bytes

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse


def reject_nul_bytes(get_response: Callable[[HttpRequest], HttpResponse]) -> Callable[[HttpRequest], HttpResponse]:
    """A NUL character in the path or the query string is a 400 before any view runs: no text the site stores or
    looks up may hold one (PostgreSQL refuses it outright, which would otherwise surface as a 500)."""

    def middleware(request: HttpRequest) -> HttpResponse:
        query = request.META.get("QUERY_STRING", "")
        if "\x00" in request.path or b"\x00" in unquote_to_bytes(query.replace("+", " ")):
            message = "The request's path or query string contains a NUL character (%00), which no field accepts."
            if request.path.startswith("/api/"):
                return JsonResponse({"detail": message}, status=400)
            return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")
        return get_response(request)

    return middleware
