from django.urls import path

from simulator import api

urlpatterns = [
    path("api/vge/episodes/", api.EpisodeCreateApi.as_view(), name="api-vge-episode-create"),
    path("api/vge/episodes/<int:pk>/", api.EpisodeDetailApi.as_view(), name="api-vge-episode-detail"),
    path("api/vge/episodes/<int:pk>/act/", api.EpisodeActApi.as_view(), name="api-vge-episode-act"),
    path("api/vge/episodes/<int:pk>/view.png", api.EpisodeViewImageApi.as_view(), name="api-vge-episode-view"),
    path("api/vge/submissions/", api.EpisodeBundleApi.as_view(), name="api-vge-bundle"),
]
