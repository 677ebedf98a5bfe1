"""The home page, boards, exports, plots, model pages, submissions (scoring's pages, the drill-down and the format
pre-check beside them), the board API and the submission API. Each of these URL prefixes (leaderboard/, models/,
submissions/, api/submissions/, queue/, api/queue/) is routed here only, whichever app's view it reaches: the leaderboard may import
scoring, scoring no other app."""
from django.urls import path

from leaderboard import analysis_views, api, board_views, format_views, queue_views, submit_views, version_views, views
from scoring import api as scoring_api
from scoring import views as scoring_views

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
    path("leaderboard/<slug:slug>/diff/", version_views.board_diff, name="board-diff"),
    path("leaderboard/<slug:slug>/rescore/", version_views.board_rescore, name="board-rescore"),
    path("leaderboard/<slug:slug>/snapshots/", version_views.board_snapshots, name="board-snapshots"),
    path("leaderboard/<slug:slug>/snapshots/<slug:name>/", version_views.board_snapshot, name="board-snapshot"),
    path("leaderboard/<slug:slug>/snapshots/<slug:name>/snapshot.<str:fmt>", version_views.board_snapshot_export,
         name="board-snapshot-export"),
    path("leaderboard/<slug:slug>/analysis/", analysis_views.analysis, name="board-analysis"),
    path("leaderboard/<slug:slug>/analysis/method/", analysis_views.analysis_method, name="board-analysis-method"),
    path("leaderboard/<slug:slug>/analysis/<slug:key>.<str:fmt>", analysis_views.analysis_figure,
         name="board-analysis-figure"),
    path("models/<slug:slug>/", board_views.model_page, name="model-page"),
    path("models/<slug:slug>/edit/", scoring_views.model_entry_edit, name="model-entry-edit"),
    path("models/<slug:slug>/chart/<slug:benchmark>.svg", board_views.model_chart, name="model-chart"),
    path("submissions/", scoring_views.submission_list, name="submission-list"),
    path("submissions/new/", scoring_views.submission_new, name="submission-new"),
    path("submissions/<int:pk>/", scoring_views.submission_detail, name="submission-detail"),
    path("submissions/<int:pk>/provenance.json", scoring_views.submission_provenance, name="submission-provenance"),
    path("submissions/<int:pk>/reproduce/", scoring_views.submission_reproduce, name="submission-reproduce"),
    path("submissions/<int:pk>/visibility/", scoring_views.submission_visibility, name="submission-visibility"),
    path("submissions/<int:pk>/samples/", board_views.submission_samples, name="submission-samples"),
    path("submissions/<int:pk>/samples.jsonl", board_views.submission_samples_export, name="submission-samples-export"),
    path("submissions/<int:pk>/samples/<int:index>/overlay.png", board_views.sample_overlay, name="sample-overlay"),
    path("submissions/precheck/", submit_views.precheck, name="submission-precheck"),
    path("queue/", queue_views.queue_page, name="queue-health"),
    path("api/queue/", queue_views.QueueHealthApi.as_view(), name="api-queue-health"),
    path("api/leaderboards/<slug:benchmark>/", api.LeaderboardApi.as_view(), name="api-leaderboard"),
    path("api/submissions/", scoring_api.SubmissionCreateApi.as_view(), name="api-submission-create"),
    path("api/submissions/mine/", scoring_api.SubmissionListApi.as_view(), name="api-submission-list"),
    path("api/submissions/<int:pk>/", scoring_api.SubmissionDetailApi.as_view(), name="api-submission-detail"),
    path("api/submissions/provenance/verify/", scoring_api.ProvenanceVerifyApi.as_view(),
         name="api-provenance-verify"),
    path("api/submissions/precheck/", api.PrecheckApi.as_view(), name="api-submission-precheck"),
]
