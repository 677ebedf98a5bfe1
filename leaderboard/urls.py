"""The home page, boards, exports, plots, model pages, drill-down, the board API and the format pre-check."""
from django.urls import path

from leaderboard import analysis_views, api, board_views, format_views, submit_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("leaderboard/<slug:slug>/", board_views.board, name="board"),
    path("leaderboard/<slug:slug>/export.<str:fmt>", board_views.board_export, name="board-export"),
    path("leaderboard/<slug:slug>/format/", format_views.format_page, name="board-format"),
    path("leaderboard/<slug:slug>/format/<slug:split>-v<int:version>-example.jsonl", format_views.format_example,
         name="board-format-example"),
    path("leaderboard/<slug:slug>/format/<slug:split>-v<int:version>-inputs.zip", format_views.format_inputs,
         name="board-format-inputs"),
    path("leaderboard/<slug:slug>/plots/<str:kind>.svg", board_views.board_plot, name="board-plot"),
    path("leaderboard/<slug:slug>/analysis/", analysis_views.analysis, name="board-analysis"),
    path("leaderboard/<slug:slug>/analysis/<slug:key>.<str:fmt>", analysis_views.analysis_figure,
         name="board-analysis-figure"),
    path("models/<slug:slug>/", board_views.model_page, name="model-page"),
    path("models/<slug:slug>/chart/<slug:benchmark>.svg", board_views.model_chart, name="model-chart"),
    path("submissions/<int:pk>/samples/", board_views.submission_samples, name="submission-samples"),
    path("submissions/<int:pk>/samples.jsonl", board_views.submission_samples_export, name="submission-samples-export"),
    path("submissions/<int:pk>/samples/<int:index>/overlay.png", board_views.sample_overlay, name="sample-overlay"),
    path("submissions/precheck/", submit_views.precheck, name="submission-precheck"),
    path("api/leaderboards/<slug:benchmark>/", api.LeaderboardApi.as_view(), name="api-leaderboard"),
    path("api/submissions/precheck/", api.PrecheckApi.as_view(), name="api-submission-precheck"),
]
