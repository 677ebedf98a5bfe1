"""The notifications pages (/notifications/) and API (/api/notifications/): each prefix routed here only."""
from django.urls import path

from notifications import api, views

urlpatterns = [
    path("notifications/", views.notification_settings, name="notification-settings"),
    path("notifications/webhooks/<int:pk>/", views.webhook_detail, name="webhook-detail"),
    path("api/notifications/settings/", api.NotificationSettingsApi.as_view(), name="api-notification-settings"),
    path("api/notifications/webhooks/", api.WebhookListApi.as_view(), name="api-webhook-list"),
    path("api/notifications/webhooks/<int:pk>/", api.WebhookDetailApi.as_view(), name="api-webhook-detail"),
    path("api/notifications/webhooks/<int:pk>/secret/", api.WebhookSecretApi.as_view(), name="api-webhook-secret"),
    path("api/notifications/webhooks/<int:pk>/deliveries/", api.WebhookDeliveriesApi.as_view(),
         name="api-webhook-deliveries"),
]
