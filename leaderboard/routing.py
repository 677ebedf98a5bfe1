from django.urls import path

from leaderboard.consumers import BoardConsumer

websocket_urlpatterns = [path("ws/boards/<int:split_id>/", BoardConsumer.as_asgi())]
