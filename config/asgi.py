"""ASGI entry point: HTTP through Django, websockets through Channels (one router, app routes in each app)."""
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack
from channels.routing import ProtocolTypeRouter, URLRouter
from channels.security.websocket import AllowedHostsOriginValidator

from config.routing import websocket_urlpatterns
from leaderboard.asgi import board_fast_path
from simulator.asgi import agent_admission

application = ProtocolTypeRouter(
    {
        # Anonymous board reads are answered from the page cache before the middleware stack (see leaderboard.asgi);
        # agent API requests enter Django a few at a time per process (see simulator.asgi).
        "http": board_fast_path(agent_admission(django_asgi_app)),
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)
