from django.urls import path

from simulator.agent_socket import AgentConsumer
from simulator.consumers import PlayConsumer

websocket_urlpatterns = [path("ws/vge/episodes/<int:pk>/", PlayConsumer.as_asgi())]
# Sockets that authenticate by API token and read no cookie (config.asgi routes them past the origin check).
token_websocket_urlpatterns = [path("ws/vge/agent/", AgentConsumer.as_asgi(), name="vge-agent-socket")]
