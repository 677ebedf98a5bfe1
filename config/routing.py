"""Websocket routes of every app, gathered in one list; `token_websocket_urlpatterns`: the sockets that authenticate
by API token alone (harnesses, which send no Origin header), routed without the session stack and the origin check."""
from leaderboard.routing import websocket_urlpatterns as leaderboard_ws
from scoring.routing import websocket_urlpatterns as scoring_ws
from simulator.routing import token_websocket_urlpatterns as simulator_token_ws
from simulator.routing import websocket_urlpatterns as simulator_ws

websocket_urlpatterns = [*scoring_ws, *leaderboard_ws, *simulator_ws]
token_websocket_urlpatterns = [*simulator_token_ws]
