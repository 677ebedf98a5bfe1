"""Site pages: home, sign-up, API token, health."""
from __future__ import annotations

from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from rest_framework.authtoken.models import Token

from leaderboard import health
from scoring.models import Benchmark


def home(request: HttpRequest) -> HttpResponse:
    benchmarks = Benchmark.objects.prefetch_related("splits").all()
    return render(request, "home.html", {"benchmarks": benchmarks})


def signup(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        form = UserCreationForm(request.POST)
        if form.is_valid():
            user = form.save()
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect("home")
    else:
        form = UserCreationForm()
    return render(request, "registration/signup.html", {"form": form}, status=400 if form.errors else 200)


@login_required
def api_token(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        Token.objects.filter(user=request.user).delete()
        token = Token.objects.create(user=request.user)
    else:
        token = Token.objects.filter(user=request.user).first()
    return render(request, "registration/token.html", {"token": token})


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    checks = {
        "database": health.check_database(),
        "broker": health.check_broker(),
        "channel_layer": health.check_channel_layer(),
    }
    ok = all(result for result, _ in checks.values())
    body = {"status": "ok" if ok else "degraded", "checks": {k: {"ok": r, "detail": d} for k, (r, d) in checks.items()}}
    return JsonResponse(body, status=200 if ok else 503)
