from django.urls import path

from devicelab import views

urlpatterns = [
    path("devicelab/", views.project_list, name="devicelab-projects"),
    path("devicelab/projects/<slug:slug>/", views.project_detail, name="devicelab-project"),
    path("devicelab/projects/<slug:slug>/authoring.csv", views.project_authoring_csv,
         name="devicelab-project-authoring"),
    path("devicelab/drafts/<int:pk>/", views.draft_editor, name="devicelab-draft"),
    path("devicelab/drafts/<int:pk>/photos/<slug:view>/", views.draft_photo, name="devicelab-draft-photo"),
    path("devicelab/drafts/<int:pk>/looks/<slug:view>/", views.draft_look, name="devicelab-draft-look"),
    path("devicelab/drafts/<int:pk>/playtest/", views.draft_playtest, name="devicelab-draft-playtest"),
    path("devicelab/drafts/<int:pk>/review/", views.draft_review, name="devicelab-draft-review"),
    path("devicelab/drafts/<int:pk>/publish/", views.draft_publish, name="devicelab-draft-publish"),
    path("devicelab/drafts/<int:pk>/export.zip", views.draft_export, name="devicelab-draft-export"),
    path("api/devicelab/drafts/<int:pk>/", views.draft_api, name="api-devicelab-draft"),
    path("api/devicelab/drafts/<int:pk>/propose/", views.propose_api, name="api-devicelab-propose"),
    path("api/devicelab/drafts/<int:pk>/checks/", views.checks_api, name="api-devicelab-checks"),
]
