"""The API's ReDoc page, kept to the site: ReDoc's bundle shows Redocly's logo from their CDN in its menu whatever its
options say, so the page's Content-Security-Policy allows images, fonts, scripts and fetches from this site only
(the logo's request is never made; ReDoc hides an image that fails). Swagger UI needs no such help."""
from __future__ import annotations

from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularRedocView

LOCAL_ONLY_POLICY = ("default-src 'self'; img-src 'self' data:; font-src 'self' data:; style-src 'self' 'unsafe-inline'; "
                     "script-src 'self' 'unsafe-inline'; worker-src 'self' blob:; connect-src 'self'")


class LocalRedocView(SpectacularRedocView):
    template_name = "api/redoc.html"  # drf-spectacular's own, without its Google web fonts

    @extend_schema(exclude=True)
    def get(self, request, *args, **kwargs):
        response = super().get(request, *args, **kwargs)
        response["Content-Security-Policy"] = LOCAL_ONLY_POLICY
        return response
