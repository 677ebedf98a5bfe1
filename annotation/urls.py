from django.urls import include, path

from annotation import api, views

urlpatterns = [
    path("", include("annotation.review.urls")),  # issue 8: review rounds, second opinions, publishing
    path("annotation/", views.project_list, name="annotation-projects"),
    path("annotation/projects/<slug:slug>/", views.project_detail, name="annotation-project"),
    path("annotation/projects/<slug:slug>/export.zip", views.project_export, name="annotation-project-export"),
    path("annotation/items/<int:pk>/", views.item_editor, name="annotation-editor"),
    path("annotation/items/<int:pk>/editor.json", views.item_editor_data, name="annotation-editor-data"),
    path("api/annotation/images/", api.ImageUploadApi.as_view(), name="api-annotation-image-upload"),
    path("api/annotation/images/<int:pk>/file/", api.ImageFileApi.as_view(), name="api-annotation-image-file"),
    path("api/annotation/images/<int:pk>/segment/", api.SegmentApi.as_view(), name="api-annotation-segment"),
    path("api/annotation/images/<int:pk>/embedding/", api.EmbeddingStatusApi.as_view(),
         name="api-annotation-embedding"),
    path("api/annotation/images/<int:pk>/embedding/features/", api.EmbeddingFeaturesApi.as_view(),
         name="api-annotation-embedding-features"),
    path("api/annotation/decoders/<slug:model_key>/<slug:fingerprint>.onnx", api.BrowserDecoderApi.as_view(),
         name="api-annotation-decoder"),
    path("api/annotation/items/<int:pk>/", api.ItemApi.as_view(), name="api-annotation-item"),
    path("api/annotation/items/<int:pk>/submit/", api.ItemSubmitApi.as_view(), name="api-annotation-item-submit"),
    path("api/annotation/items/<int:pk>/overlay/", api.ItemOverlayApi.as_view(), name="api-annotation-item-overlay"),
]
