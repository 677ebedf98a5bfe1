"""The HTML rendering of a refusal (scoring.errors.ServiceRefusal): one template, templates/error.html, with the
refusal's message and status. A section of the site that titles its error page itself (the simulator) says so with
`refusals_shown`; any other refusal an HTML view lets out becomes the site's error page (RefusalPageMiddleware)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.deprecation import MiddlewareMixin

from scoring.errors import ServiceRefusal


@dataclass(frozen=True)
class ErrorPage:
    """How a section of the site titles its error page and where the page sends the reader back."""

    heading: str | None  # None: "Not found" on a 404, "Bad request" otherwise
    back_url_name: str
    back_text: str


SITE = ErrorPage(None, "home", "Back to the benchmarks")


def refusal_page(request: HttpRequest, exc: ServiceRefusal, *, page: ErrorPage = SITE) -> HttpResponse:
    heading = page.heading or ("Not found" if exc.status == 404 else "Bad request")
    return render(request, "error.html", {
        "heading": heading, "message": exc.message, "status": exc.status,
        "back_url": reverse(page.back_url_name), "back_text": page.back_text,
    }, status=exc.status)


def refusals_shown(page: ErrorPage) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """A view whose refusals are shown as `page`'s error page, with the refusal's status."""

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            try:
                return view(request, *args, **kwargs)
            except ServiceRefusal as exc:
                return refusal_page(request, exc, page=page)

        return wrapped

    return decorator


class RefusalPageMiddleware(MiddlewareMixin):  # the mixin: sync and async, as Django's own middleware
    """A refusal no view caught: the site's error page with its status (an /api/ path that is not a DRF view, which
    has its own handler, gets the API's error body)."""

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, ServiceRefusal):
            return None
        if request.path.startswith("/api/"):
            return JsonResponse(exception.body(), status=exception.status)
        return refusal_page(request, exception)
