from django.contrib import admin

from evaluations.models import Endpoint, EvaluationRun, RunAnswer, RunChunk, RunLine


@admin.register(EvaluationRun)
class EvaluationRunAdmin(admin.ModelAdmin):
    list_display = ("id", "model_name", "split", "owner", "status", "units_done", "units_total", "created_at")
    list_filter = ("status",)
    exclude = ("api_key_sealed",)  # never shown
    readonly_fields = ("submissions",)


@admin.register(RunAnswer)
class RunAnswerAdmin(admin.ModelAdmin):
    list_display = ("run", "key", "seconds", "created_at")


@admin.register(RunLine)
class RunLineAdmin(admin.ModelAdmin):
    list_display = ("run", "unit", "repeat", "position")


@admin.register(RunChunk)
class RunChunkAdmin(admin.ModelAdmin):
    list_display = ("run", "index", "status", "heartbeat_at")
    list_filter = ("status",)


@admin.register(Endpoint)
class EndpointAdmin(admin.ModelAdmin):
    """Where a curator caps every run on an endpoint (its concurrency, its requests a minute)."""

    list_display = ("key", "concurrency", "rate_per_minute")
    readonly_fields = ("key", "next_request_at")
