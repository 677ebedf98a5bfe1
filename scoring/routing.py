from django.urls import path

from scoring.consumers import SubmissionConsumer

websocket_urlpatterns = [path("ws/submissions/<int:pk>/", SubmissionConsumer.as_asgi())]
