"""The notifications pages: mail on or off, webhook endpoints (made here, their secret shown once), and each
endpoint's delivery log."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from notifications import selectors, services
from notifications.forms import MailForm, WebhookForm
from scoring.errors import ServiceRefusal


@login_required
def notification_settings(request: HttpRequest) -> HttpResponse:
    current = selectors.notification_settings_of(user=request.user)
    mail_form = MailForm(initial={"email_on_finish": current.email_on_finish})
    webhook_form = WebhookForm()
    created = None
    status = 200
    if request.method == "POST" and request.POST.get("action") == "mail":
        mail_form = MailForm(request.POST)
        if mail_form.is_valid():
            services.notification_settings_set(user=request.user,
                                               email_on_finish=mail_form.cleaned_data["email_on_finish"])
            messages.success(request, "Mail about your submissions is now "
                             f"{'on' if mail_form.cleaned_data['email_on_finish'] else 'off'}.")
            return redirect("notification-settings")
    elif request.method == "POST" and request.POST.get("action") == "webhook":
        webhook_form = WebhookForm(request.POST)
        if webhook_form.is_valid():
            try:
                endpoint, secret = services.webhook_endpoint_create(user=request.user, **webhook_form.cleaned_data)
            except ServiceRefusal as exc:
                webhook_form.add_error("url" if exc.field == "url" else None, exc.message)
                status = exc.status
            else:
                # Answered here, not redirected: the secret is on this page only, this once.
                created = (endpoint, secret)
                webhook_form = WebhookForm()
        else:
            status = 400
    return render(request, "notifications/settings.html", {
        "mail_form": mail_form, "webhook_form": webhook_form, "created": created, "has_email": bool(request.user.email),
        "endpoints": selectors.endpoints_of(user=request.user), "notices": selectors.notices_of(user=request.user),
    }, status=status)


@login_required
def webhook_detail(request: HttpRequest, pk: int) -> HttpResponse:
    endpoint = selectors.endpoint_of(user=request.user, pk=pk)
    if endpoint is None:
        raise Http404("No such webhook endpoint of yours.")
    new_secret = None
    if request.method == "POST" and request.POST.get("action") == "delete":
        services.webhook_endpoint_delete(endpoint=endpoint)
        messages.success(request, f"Webhook endpoint {endpoint.url} deleted.")
        return redirect("notification-settings")
    if request.method == "POST" and request.POST.get("action") == "rotate":
        new_secret = services.webhook_secret_rotate(endpoint=endpoint)
    return render(request, "notifications/webhook.html", {
        "endpoint": endpoint, "deliveries": selectors.deliveries_of(endpoint=endpoint), "new_secret": new_secret})
