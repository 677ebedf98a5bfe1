"""Cross-origin isolation, which lets a page use SharedArrayBuffer and so run WebAssembly on several threads (SAM's
decoder in the annotation editor, onnxruntime-web).

A page is isolated when its response carries COOP `same-origin` (Django's SecurityMiddleware sends it on every page,
SECURE_CROSS_ORIGIN_OPENER_POLICY) and COEP `require-corp` (`cross_origin_isolated` below, on the pages that need
it); then every resource it loads must be same-origin or say it may be embedded (CORP), and each worker script must
carry COEP itself. The site's pages load only their own static files and media, so static files carry both headers
(`static_file_headers`, WhiteNoise's WHITENOISE_ADD_HEADERS_FUNCTION): onnxruntime-web starts its proxy worker and
its WebAssembly threads from its own script."""
from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported by the settings module: nothing of Django's at import time
    from django.http import HttpRequest, HttpResponse

EMBEDDER_POLICY = "require-corp"


def static_file_headers(headers, path: str, url: str) -> None:
    headers["Cross-Origin-Embedder-Policy"] = EMBEDDER_POLICY
    headers["Cross-Origin-Resource-Policy"] = "same-origin"


def cross_origin_isolated(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        response = view(request, *args, **kwargs)
        response["Cross-Origin-Embedder-Policy"] = EMBEDDER_POLICY
        return response

    return wrapped
