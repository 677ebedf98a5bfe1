from django import forms
from django.contrib import admin

from accounts.roles import is_curator
from scoring.errors import SubmissionError
from scoring.models import (
    Benchmark,
    ChangeRecord,
    ModelEntry,
    Phase,
    RescoreItem,
    RescoreRun,
    Sample,
    SampleScore,
    Score,
    ScoreVersion,
    Split,
    Submission,
    UploadQuotaDay,
    WorkerBeat,
)
from scoring.selectors import board_cache_invalidate
from scoring.services import model_entry_name_visible_check


@admin.register(Benchmark)
class BenchmarkAdmin(admin.ModelAdmin):
    list_display = ("slug", "name", "version", "scorer", "order")


class PhaseSplitInline(admin.TabularInline):
    model = Split
    fields = ("name", "version", "hidden_ground_truth", "is_default")
    readonly_fields = ("name", "version", "hidden_ground_truth", "is_default")
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None) -> bool:  # a split joins a phase on the split's own page
        return False


@admin.register(Phase)
class PhaseAdmin(admin.ModelAdmin):
    """Curators set a phase's dates (UTC), quotas and rules here; a split joins a phase on the split's page."""

    list_display = ("name", "benchmark", "slug", "opens_at", "closes_at", "daily_quota", "total_quota",
                    "results_at_close", "private_allowed")
    list_filter = ("benchmark", "results_at_close", "private_allowed")
    prepopulated_fields = {"slug": ("name",)}
    inlines = [PhaseSplitInline]
    fieldsets = [
        (None, {"fields": ("benchmark", "name", "slug", "description", "order")}),
        ("Dates (UTC)", {"fields": ("opens_at", "closes_at")}),
        ("Quotas per user", {"fields": ("daily_quota", "total_quota")}),
        ("Results", {"fields": ("results_at_close", "private_allowed")}),
    ]

    def save_model(self, request, obj, form, change) -> None:
        super().save_model(request, obj, form, change)
        for split_id in obj.splits.values_list("pk", flat=True):  # its dates and rules show on the boards
            board_cache_invalidate(split_id=split_id)

    def has_module_permission(self, request) -> bool:
        return is_curator(request.user) and request.user.is_staff

    def has_view_permission(self, request, obj=None) -> bool:
        return self.has_module_permission(request)

    has_change_permission = has_add_permission = has_delete_permission = has_view_permission  # type: ignore[assignment]


@admin.register(Split)
class SplitAdmin(admin.ModelAdmin):
    list_display = ("__str__", "benchmark", "name", "version", "hidden_ground_truth", "is_default", "phase")
    list_filter = ("benchmark", "hidden_ground_truth", "phase")
    readonly_fields = ("ground_truth_sha256",)  # computed from the samples (scoring.provenance), never typed


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
    readonly_fields = ("provenance",)  # what the score was made from: stamped by the pipeline, never edited


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ("id", "model_entry", "split", "source", "status", "visibility", "submitter", "created_at",
                    "attempts")
    list_filter = ("status", "source", "visibility", "split")
    search_fields = ("model_entry__name", "original_filename", "sha256")
    inlines = [ScoreInline]
    readonly_fields = ("sha256", "size_bytes", "attempts", "worker", "heartbeat_at", "started_at", "finished_at")


@admin.register(UploadQuotaDay)
class UploadQuotaDayAdmin(admin.ModelAdmin):
    list_display = ("day", "user", "phase")
    list_filter = ("day", "phase")


@admin.register(Score)
class ScoreAdmin(admin.ModelAdmin):
    list_display = ("submission", "overall", "scorer_version", "created_at")
    readonly_fields = ("provenance",)


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


@admin.register(WorkerBeat)
class WorkerBeatAdmin(admin.ModelAdmin):
    list_display = ("hostname", "queues", "started_at", "beat_at")
    readonly_fields = ("hostname", "queues", "started_at", "beat_at")
