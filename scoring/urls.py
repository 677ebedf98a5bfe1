from django.urls import path

from scoring import api, views

urlpatterns = [
    path("submissions/", views.submission_list, name="submission-list"),
    path("submissions/new/", views.submission_new, name="submission-new"),
    path("submissions/<int:pk>/", views.submission_detail, name="submission-detail"),
    path("api/submissions/", api.SubmissionCreateApi.as_view(), name="api-submission-create"),
    path("api/submissions/mine/", api.SubmissionListApi.as_view(), name="api-submission-list"),
    path("api/submissions/<int:pk>/", api.SubmissionDetailApi.as_view(), name="api-submission-detail"),
]
