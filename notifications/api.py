"""The notifications API: a user's mail setting and webhook endpoints, with each endpoint's delivery log."""
from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import permissions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from notifications import selectors, services
from notifications.models import WebhookEndpoint
from notifications.serializers import (
    NotificationSettingsSerializer,
    WebhookDeliveryOutput,
    WebhookEndpointCreatedOutput,
    WebhookEndpointInput,
    WebhookEndpointOutput,
    WebhookSecretOutput,
)
from scoring.errors import ServiceRefusal
from scoring.serializers import error_responses


def own_endpoint(request: Request, pk: int) -> WebhookEndpoint:
    endpoint = selectors.endpoint_of(user=request.user, pk=pk)
    if endpoint is None:
        raise ServiceRefusal("No such webhook endpoint of yours.", status=404)
    return endpoint


class WebhookListApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={200: WebhookEndpointOutput(many=True), **error_responses(401)})
    def get(self, request: Request) -> Response:
        """Your webhook endpoints (their secrets are never listed)."""
        return Response(WebhookEndpointOutput(selectors.endpoints_of(user=request.user), many=True).data)

    @extend_schema(request=WebhookEndpointInput,
                   responses={201: WebhookEndpointCreatedOutput, **error_responses(400, 401)})
    def post(self, request: Request) -> Response:
        """Register an endpoint for the events chosen; the answer holds its signing secret, shown this once."""
        data = WebhookEndpointInput(data=request.data)
        data.is_valid(raise_exception=True)
        endpoint, secret = services.webhook_endpoint_create(user=request.user, **data.validated_data)
        body = WebhookEndpointOutput(endpoint).data | {"secret": secret}
        return Response(body, status=status.HTTP_201_CREATED)


class WebhookDetailApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={200: WebhookEndpointOutput, **error_responses(401, 404)})
    def get(self, request: Request, pk: int) -> Response:
        return Response(WebhookEndpointOutput(own_endpoint(request, pk)).data)

    @extend_schema(responses={204: None, **error_responses(401, 404)})
    def delete(self, request: Request, pk: int) -> Response:
        """Delete the endpoint and its delivery log; calls still waiting to be retried are dropped."""
        services.webhook_endpoint_delete(endpoint=own_endpoint(request, pk))
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookSecretApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=None, responses={200: WebhookSecretOutput, **error_responses(401, 404)})
    def post(self, request: Request, pk: int) -> Response:
        """Replace the endpoint's secret (when the old one is lost or leaked); the new one is shown this once."""
        return Response({"secret": services.webhook_secret_rotate(endpoint=own_endpoint(request, pk))})


class WebhookDeliveriesApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={200: WebhookDeliveryOutput(many=True), **error_responses(401, 404)})
    def get(self, request: Request, pk: int) -> Response:
        """The endpoint's newest 100 deliveries: status, attempts, the last answer's status code and its first
        1000 bytes, and the exact body sent."""
        endpoint = own_endpoint(request, pk)
        return Response(WebhookDeliveryOutput(selectors.deliveries_of(endpoint=endpoint), many=True).data)


class NotificationSettingsApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={200: NotificationSettingsSerializer, **error_responses(401)})
    def get(self, request: Request) -> Response:
        return Response(NotificationSettingsSerializer(selectors.notification_settings_of(user=request.user)).data)

    @extend_schema(request=NotificationSettingsSerializer,
                   responses={200: NotificationSettingsSerializer, **error_responses(400, 401)})
    def patch(self, request: Request) -> Response:
        """Turn the mail about your submissions (scored, failed, re-scored) on or off."""
        data = NotificationSettingsSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        current = selectors.notification_settings_of(user=request.user)
        found = services.notification_settings_set(  # a PATCH without the field keeps the setting as it is
            user=request.user, email_on_finish=data.validated_data.get("email_on_finish", current.email_on_finish))
        return Response(NotificationSettingsSerializer(found).data)
