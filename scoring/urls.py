from django.urls import path

from scoring import api, views

urlpatterns = [
    path("submissions/", views.submission_list, name="submission-list"),
    path("submissions/new/", views.submission_new, name="submission-new"),
    path("submissions/<int:pk>/", views.submission_detail, name="submission-detail"),
    path("submissions/<int:pk>/visibility/", views.submission_visibility, name="submission-visibility"),
    path("models/<slug:slug>/edit/", views.model_entry_edit, name="model-entry-edit"),
    path("api/submissions/", api.SubmissionCreateApi.as_view(), name="api-submission-create"),
    path("api/submissions/mine/", api.SubmissionListApi.as_view(), name="api-submission-list"),
    path("api/submissions/<int:pk>/", api.SubmissionDetailApi.as_view(), name="api-submission-detail"),
]
