from django import forms
from django.contrib import admin

from scoring.errors import SubmissionError
from scoring.models import (
    Benchmark,
    ChangeRecord,
    ModelEntry,
    RescoreItem,
    RescoreRun,
    Sample,
    SampleScore,
    Score,
    ScoreVersion,
    Split,
    Submission,
    UploadQuotaDay,
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


@admin.register(ScoreVersion)
class ScoreVersionAdmin(admin.ModelAdmin):
    """Scores a re-score replaced: a record, read only."""

    list_display = ("submission", "scorer_version", "split_version", "overall", "scored_at", "superseded_at", "run")
    list_filter = ("scorer_version",)
    raw_id_fields = ("submission", "run")

    def has_change_permission(self, request, obj=None) -> bool:
        return False


class RescoreItemInline(admin.TabularInline):
    model = RescoreItem
    fields = ("submission", "state", "attempts", "old_overall", "new_overall", "error_message")
    readonly_fields = fields
    raw_id_fields = ("submission",)
    extra = 0
    can_delete = False


@admin.register(RescoreRun)
class RescoreRunAdmin(admin.ModelAdmin):
    list_display = ("id", "benchmark", "split", "scorer_version", "reason", "started_by", "created_at", "finished_at")
    list_filter = ("benchmark", "reason")
    inlines = [RescoreItemInline]


@admin.register(RescoreItem)
class RescoreItemAdmin(admin.ModelAdmin):
    list_display = ("id", "run", "submission", "state", "attempts", "worker", "old_overall", "new_overall")
    list_filter = ("state",)
    raw_id_fields = ("run", "submission")
