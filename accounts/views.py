"""Account pages: sign-up, the API token, and the sign-in locks (django-axes' lock-out page, a curator's list).
Sign-in, sign-out, password change and reset are Django's own views (accounts/urls.py), on templates/registration/.
"""
from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from rest_framework.authtoken.models import Token

from accounts.roles import is_curator
from accounts.sign_in import cool_off_minutes, sign_in_lock_lift, sign_in_locks


def _next_page(request: HttpRequest) -> str:
    """Where the page that sent the visitor here asked to go back to (`next`), if it is a page of this site."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    safe = url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()},
                                           require_https=request.is_secure())
    return target if safe else ""


def signup(request: HttpRequest) -> HttpResponse:
    """A new account, signed in at once, then back to the page that asked for it (`next`: e.g. the upload form a
    visitor's Submit link led to), else the home page."""
    if request.method == "POST":
        form = UserCreationForm(request.POST)
        if form.is_valid():
            user = form.save()
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect(_next_page(request) or "home")
    else:
        form = UserCreationForm()
    return render(request, "registration/signup.html", {"form": form, "next": _next_page(request)},
                  status=400 if form.errors else 200)


@login_required
def api_token(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        Token.objects.filter(user=request.user).delete()
        token = Token.objects.create(user=request.user)
    else:
        token = Token.objects.filter(user=request.user).first()
    return render(request, "registration/token.html", {"token": token})


def sign_in_locked_out(request: HttpRequest, original_response=None, credentials=None) -> HttpResponse:
    """What a locked-out sign-in gets (django-axes' AXES_LOCKOUT_CALLABLE): 429 and why, never the form again."""
    minutes = cool_off_minutes()
    context = {"minutes": minutes, "unit": "minute" if minutes == 1 else "minutes"}
    return render(request, "registration/locked_out.html", context, status=429)


@login_required
def sign_in_lockouts(request: HttpRequest) -> HttpResponse:
    """The sign-in locks in force, each with a button for a curator to lift it."""
    if not is_curator(request.user):
        raise Http404("No such page.")
    if request.method == "POST":
        attempt_id = request.POST.get("attempt", "")
        lifted = sign_in_lock_lift(user=request.user, attempt_id=int(attempt_id)) if attempt_id.isdigit() else None
        if lifted is None:
            messages.error(request, f"No sign-in lock #{attempt_id} (lifted already, or ended).")
        else:
            messages.success(request, f"The lock of '{lifted.username}' from {lifted.ip_address} is lifted.")
        return redirect("sign-in-lockouts")
    return render(request, "registration/lockouts.html", {"locks": sign_in_locks(), "minutes": cool_off_minutes(),
                                                          "limit": settings.AXES_FAILURE_LIMIT})
