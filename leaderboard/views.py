"""The site's home page: the benchmarks and their splits."""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from scoring.models import Benchmark


def home(request: HttpRequest) -> HttpResponse:
    benchmarks = Benchmark.objects.prefetch_related("splits").all()
    return render(request, "home.html", {"benchmarks": benchmarks})
