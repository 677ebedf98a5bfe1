"""ASGI entry point: HTTP through Django, websockets through Channels (one router, app routes in each app)."""
import gc
import os

from django.core.asgi import get_asgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack
from channels.routing import ProtocolTypeRouter, URLRouter
from channels.security.websocket import AllowedHostsOriginValidator

from config.routing import token_websocket_urlpatterns, websocket_urlpatterns
from config.warm_up import frozen_after_warm_up
from leaderboard.asgi import board_fast_path
from simulator.asgi import agent_admission


def websockets_by_auth(session_sockets, token_sockets, token_routes):
    """Sockets that read the session cookie go through the origin check (a page of another site must not open one
    with the visitor's cookie); sockets that authenticate by API token alone read no cookie, so an origin proves
    nothing there, and harnesses send none."""

    async def application(scope, receive, send):
        path = scope.get("path", "").lstrip("/")
        if any(route.pattern.match(path) for route in token_routes):
            return await token_sockets(scope, receive, send)
        return await session_sockets(scope, receive, send)

    return application


application = ProtocolTypeRouter(
    {
        # Anonymous board reads are answered from the page cache before the middleware stack (see leaderboard.asgi);
        # agent API requests enter Django a few at a time per process (see simulator.asgi).
        "http": frozen_after_warm_up(board_fast_path(agent_admission(django_asgi_app))),
        "websocket": websockets_by_auth(
            AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
            URLRouter(token_websocket_urlpatterns),
            token_websocket_urlpatterns,
        ),
    }
)

# Everything made so far (modules, settings, the URLconf's views, imported here rather than by the first request)
# lives as long as the process: frozen, it is left out of every garbage collection. A full collection walked its
# ~200,000 objects, 100-250 ms holding the GIL every few seconds under 200 agents: the agent socket's latency tail.
get_resolver().url_patterns  # noqa: B018 - imported now, so that it is frozen with the rest
gc.freeze()
