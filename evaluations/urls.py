from django.urls import path

from evaluations import views

urlpatterns = [
    path("evaluations/", views.run_list, name="evaluation-runs"),
    path("evaluations/new/", views.run_new, name="evaluation-run-new"),
    path("evaluations/<int:pk>/", views.run_detail, name="evaluation-run"),
    path("evaluations/<int:pk>/progress.json", views.run_progress, name="evaluation-run-progress"),
    path("evaluations/<int:pk>/partial.jsonl", views.run_partial, name="evaluation-run-partial"),
    path("evaluations/<int:pk>/r<int:repeat>.jsonl", views.run_file, name="evaluation-run-file"),
    path("evaluations/<int:pk>/<slug:action>/", views.run_action, name="evaluation-run-action"),
]
