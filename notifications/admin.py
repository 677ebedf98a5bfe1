from django.contrib import admin

from notifications.models import Notice, NotificationSettings, WebhookDelivery, WebhookEndpoint


@admin.register(NotificationSettings)
class NotificationSettingsAdmin(admin.ModelAdmin):
    list_display = ("user", "email_on_finish")


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(admin.ModelAdmin):
    list_display = ("id", "user", "url", "events", "active", "created_at")
    list_filter = ("active",)
    exclude = ("secret",)  # never shown again after its owner saw it once


@admin.register(Notice)
class NoticeAdmin(admin.ModelAdmin):
    list_display = ("id", "event", "submission", "user", "mail", "created_at")
    list_filter = ("event", "mail")
    raw_id_fields = ("submission", "user")


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    list_display = ("delivery_id", "event", "endpoint", "status", "attempts", "response_status", "created_at")
    list_filter = ("status", "event")
    raw_id_fields = ("endpoint", "notice")
