from django.urls import path

from simulator import api, views

urlpatterns = [
    path("api/vge/tasks/", api.TaskListApi.as_view(), name="api-vge-tasks"),
    path("api/vge/episodes/", api.EpisodeCreateApi.as_view(), name="api-vge-episode-create"),
    path("api/vge/episodes/<int:pk>/", api.EpisodeDetailApi.as_view(), name="api-vge-episode-detail"),
    path("api/vge/episodes/<int:pk>/act/", api.EpisodeActApi.as_view(), name="api-vge-episode-act"),
    path("api/vge/episodes/act/", api.EpisodeActBatchApi.as_view(), name="api-vge-episode-act-batch"),
    path("api/vge/episodes/<int:pk>/view.png", api.EpisodeViewImageApi.as_view(), name="api-vge-episode-view"),
    path("api/vge/submissions/", api.EpisodeBundleApi.as_view(), name="api-vge-bundle"),
]

urlpatterns += [
    path("simulator/", views.home, name="simulator-home"),
    path("simulator/play/<path:task_id>/", views.play_task, name="simulator-play-task"),
    path("simulator/episodes/<int:pk>/play/", views.episode_play, name="simulator-episode-play"),
    path("simulator/player/replay-name/", views.player_replay_name, name="simulator-player-replay-name"),
    path("simulator/baseline/", views.baseline_curate, name="simulator-baseline"),
    path("simulator/baseline/next/", views.baseline_next, name="simulator-baseline-next"),
    path("simulator/baseline/refresh/", views.baseline_refresh, name="simulator-baseline-refresh"),
    path("simulator/replay/episode/<int:pk>/", views.replay_episode, name="simulator-replay-episode"),
    path("simulator/replay/episode/<int:pk>/view/<int:turn>.png", views.replay_episode_image,
         name="simulator-replay-episode-image"),
    path("simulator/replay/submission/<int:submission_id>/<int:index>/", views.replay_submission,
         name="simulator-replay-submission"),
    path("simulator/replay/submission/<int:submission_id>/<int:index>/view/<int:turn>.png",
         views.replay_submission_image, name="simulator-replay-submission-image"),
]
