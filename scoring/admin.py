from django import forms
from django.contrib import admin

from scoring.errors import SubmissionError
from scoring.models import (
    Benchmark,
    ChangeRecord,
    ModelEntry,
    Sample,
    SampleScore,
    Score,
    Split,
    Submission,
    UploadQuotaDay,
    WorkerBeat,
)
from scoring.services import model_entry_name_visible_check


@admin.register(Benchmark)
class BenchmarkAdmin(admin.ModelAdmin):
    list_display = ("slug", "name", "version", "scorer", "order")


@admin.register(Split)
class SplitAdmin(admin.ModelAdmin):
    list_display = ("__str__", "benchmark", "name", "version", "hidden_ground_truth", "is_default", "daily_quota")
    list_filter = ("benchmark", "hidden_ground_truth")


@admin.register(Sample)
class SampleAdmin(admin.ModelAdmin):
    list_display = ("key", "split", "category", "group", "task")
    list_filter = ("split", "category")
    search_fields = ("key",)


class ModelEntryAdminForm(forms.ModelForm):
    def clean_name(self) -> str:
        name = self.cleaned_data["name"]
        try:
            model_entry_name_visible_check(name=name)
        except SubmissionError as exc:
            raise forms.ValidationError(exc.message) from exc
        return name


@admin.register(ModelEntry)
class ModelEntryAdmin(admin.ModelAdmin):
    form = ModelEntryAdminForm
    list_display = ("name", "thinking", "kind", "organisation", "parameters_b", "owner")
    list_filter = ("kind", "thinking")
    search_fields = ("name", "organisation")
    prepopulated_fields = {"slug": ("name",)}


class ScoreInline(admin.StackedInline):
    model = Score
    extra = 0


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ("id", "model_entry", "split", "source", "status", "visibility", "submitter", "created_at",
                    "attempts")
    list_filter = ("status", "source", "visibility", "split")
    search_fields = ("model_entry__name", "original_filename")
    inlines = [ScoreInline]
    readonly_fields = ("sha256", "size_bytes", "attempts", "worker", "heartbeat_at", "started_at", "finished_at")


@admin.register(UploadQuotaDay)
class UploadQuotaDayAdmin(admin.ModelAdmin):
    list_display = ("day", "user", "split")
    list_filter = ("day", "split")


@admin.register(Score)
class ScoreAdmin(admin.ModelAdmin):
    list_display = ("submission", "overall", "scorer_version", "created_at")


@admin.register(SampleScore)
class SampleScoreAdmin(admin.ModelAdmin):
    list_display = ("submission", "index", "key", "task", "score", "outcome", "invalid")
    list_filter = ("outcome", "invalid")
    search_fields = ("key",)


@admin.register(ChangeRecord)
class ChangeRecordAdmin(admin.ModelAdmin):
    list_display = ("created_at", "subject", "object_id", "user")
    list_filter = ("subject",)
    readonly_fields = ("subject", "object_id", "user", "changes", "created_at")


@admin.register(WorkerBeat)
class WorkerBeatAdmin(admin.ModelAdmin):
    list_display = ("hostname", "queues", "started_at", "beat_at")
    readonly_fields = ("hostname", "queues", "started_at", "beat_at")
