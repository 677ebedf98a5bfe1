from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path, re_path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from config.api_docs import LocalRedocView
from config.health import healthz
from scoring.api import ApiNotFound
from scoring.benchmarks import plugins
from scoring.views import media_file

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("", include("annotation.urls")),
    # Each benchmark's own pages (PLAN's judge queue and audit), as its plugin declares them.
    *(path(plugin.url_prefix, include(plugin.urls)) for plugin in plugins() if plugin.urls),
    path("", include("simulator.urls")),
    path("", include("evaluations.urls")),
    path("", include("devicelab.urls")),
    path("", include("leaderboard.urls")),
    path("", include("notifications.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/redoc/", LocalRedocView.as_view(url_name="schema"), name="api-redoc"),
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg"), permanent=True)),
    # Media: media/public to anyone, media/hidden/<benchmark>/<split>/ to those allowed that split; the path is
    # resolved before it is judged (scoring.access.media_file_for); submissions (media/private) are never served.
    path("media/<path:path>", media_file, name="media-file"),
    # Last: an /api/ path nothing above matched is a JSON 404, not the site's HTML page.
    re_path(r"^api/", ApiNotFound.as_view()),
]
