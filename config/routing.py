"""Websocket routes of every app, gathered in one list."""
from leaderboard.routing import websocket_urlpatterns as leaderboard_ws
from scoring.routing import websocket_urlpatterns as scoring_ws
from simulator.routing import websocket_urlpatterns as simulator_ws

websocket_urlpatterns = [*scoring_ws, *leaderboard_ws, *simulator_ws]
