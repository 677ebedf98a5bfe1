from django.contrib import admin

from evaluations.models import EvaluationRun, RunAnswer, RunLine


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
