from django.urls import path

from annotation.review import views

urlpatterns = [
    path("annotation/review/", views.review_queue, name="annotation-review-queue"),
    path("annotation/review/items/<int:pk>/", views.review_item, name="annotation-review-item"),
    path("annotation/review/items/<int:pk>/history/", views.item_history, name="annotation-item-history"),
    path("annotation/review/projects/<slug:slug>/", views.project_review, name="annotation-review-project"),
    path("annotation/review/splits/<int:pk>/", views.split_samples, name="annotation-split-samples"),
    path("annotation/second/<int:pk>/", views.second_opinion_editor, name="annotation-second-opinion"),
    path("api/annotation/second/<int:pk>/", views.second_opinion_api, name="api-annotation-second-opinion"),
    path("api/annotation/second/<int:pk>/submit/", views.second_opinion_submit_api,
         name="api-annotation-second-opinion-submit"),
]
