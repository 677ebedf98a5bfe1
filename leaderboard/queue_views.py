"""Queue health, public: the page (/queue/) and its API (/api/queue/), both from `scoring.queue_health`."""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from scoring.queue_health import queue_health
from scoring.serializers import error_responses


@require_GET
def queue_page(request: HttpRequest) -> HttpResponse:
    return render(request, "leaderboard/queue.html", {"health": queue_health()})


class BenchmarkQueueOutput(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    queued = serializers.IntegerField(help_text="Submissions waiting for a worker.")
    running = serializers.IntegerField(help_text="Submissions being scored now.")
    overdue = serializers.IntegerField(help_text="Queued longer than stale_after_minutes.")
    oldest_queued_at = serializers.DateTimeField(allow_null=True)
    oldest_queued_seconds = serializers.FloatField(allow_null=True, help_text="Age of the oldest queued job.")
    workers_alive = serializers.IntegerField(help_text="Scoring workers with a recent heartbeat (every worker takes "
                                                       "every benchmark's jobs, so the same for each).")
    scored_last_day = serializers.IntegerField()
    median_scoring_seconds = serializers.FloatField(
        allow_null=True, help_text="Median time from a worker taking a job to its score, over the last day.")
    median_turnaround_seconds = serializers.FloatField(
        allow_null=True, help_text="Median time from upload to score, over the last day.")


class QueueHealthOutput(serializers.Serializer):
    at = serializers.DateTimeField()
    workers_alive = serializers.IntegerField()
    workers = serializers.ListField(child=serializers.CharField(), help_text="The live workers' host names.")
    stale_after_minutes = serializers.IntegerField(
        help_text="An upload queued longer is flagged, and the quota it used is given back.")
    benchmarks = BenchmarkQueueOutput(many=True)


class QueueHealthApi(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(responses={200: QueueHealthOutput, **error_responses(401)}, summary="Queue health",
                   description="Per benchmark: jobs queued and running, the oldest queued job's age, the workers "
                               "alive and the last day's median scoring time. Public; not cached.")
    def get(self, request: Request) -> Response:
        return Response(queue_health().as_dict())
