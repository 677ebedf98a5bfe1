from django.urls import path

from simulator.consumers import PlayConsumer

websocket_urlpatterns = [path("ws/vge/episodes/<int:pk>/", PlayConsumer.as_asgi())]
