from rest_framework import serializers

from notifications.models import Event, NotificationSettings, WebhookDelivery, WebhookEndpoint


class WebhookEndpointInput(serializers.Serializer):
    url = serializers.CharField(max_length=2000, help_text="http(s) URL the site POSTs the event's JSON to.")
    events = serializers.ListField(child=serializers.ChoiceField(choices=Event.choices), min_length=1,
                                   help_text="Any of scored, failed, re-scored.")
    description = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")


class WebhookEndpointOutput(serializers.ModelSerializer):
    class Meta:
        model = WebhookEndpoint
        fields = ["id", "url", "description", "events", "active", "created_at"]


class WebhookEndpointCreatedOutput(WebhookEndpointOutput):
    secret = serializers.CharField(help_text="Signs every call (X-EBH-Signature-256); shown this once only.")

    class Meta(WebhookEndpointOutput.Meta):
        fields = [*WebhookEndpointOutput.Meta.fields, "secret"]


class WebhookSecretOutput(serializers.Serializer):
    secret = serializers.CharField(help_text="The endpoint's new secret, shown this once; the old one no longer signs.")


class WebhookDeliveryOutput(serializers.ModelSerializer):
    submission = serializers.IntegerField(source="notice.submission_id")

    class Meta:
        model = WebhookDelivery
        fields = ["delivery_id", "event", "submission", "status", "attempts", "response_status", "response_snippet",
                  "error", "created_at", "last_attempt_at", "next_attempt_at", "delivered_at", "body"]


class NotificationSettingsSerializer(serializers.ModelSerializer):
    class Meta:
        model = NotificationSettings
        fields = ["email_on_finish"]
