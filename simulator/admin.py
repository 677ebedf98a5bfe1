from django.contrib import admin

from simulator.engines import EpisodeError
from simulator.models import Device, Episode, PlayerChoice, Step, Task
from simulator.services.baseline import baseline_mark


@admin.register(Device)
class DeviceAdmin(admin.ModelAdmin):
    list_display = ("device_id", "category", "source", "updated_at")
    list_filter = ("category", "source")
    search_fields = ("device_id",)


class InBaseline(admin.SimpleListFilter):
    title = "human baseline set"
    parameter_name = "baseline"

    def lookups(self, request, model_admin):
        return (("yes", "In the set"), ("no", "Not in the set"))

    def queryset(self, request, queryset):
        if self.value() in ("yes", "no"):
            return queryset.filter(baseline_rank__isnull=self.value() == "no")
        return queryset


@admin.register(Task)
class TaskAdmin(admin.ModelAdmin):
    list_display = ("task_id", "device", "goals_count", "baseline_rank", "sample")
    list_filter = (InBaseline,)
    search_fields = ("task_id",)
    raw_id_fields = ("device", "sample")
    actions = ["mark_baseline_set"]

    @admin.action(description="Choose the baseline set again (1 task per stratum, seed 0); use /simulator/baseline/ for options")
    def mark_baseline_set(self, request, queryset):
        try:
            tasks = baseline_mark(user=request.user, per_stratum=1, seed=0)
        except EpisodeError as exc:
            self.message_user(request, exc.message, level="error")
        else:
            self.message_user(request, f"The baseline set now has {len(tasks)} tasks.")


class StepInline(admin.TabularInline):
    model = Step
    fields = ("index", "raw_output", "outcome")
    readonly_fields = fields
    extra = 0


@admin.register(Episode)
class EpisodeAdmin(admin.ModelAdmin):
    list_display = ("pk", "task", "kind", "owner", "finished", "success", "gave_up", "lam", "history", "instruction",
                    "perturbation", "created_at")
    list_filter = ("kind", "finished", "success", "gave_up", "instruction")
    raw_id_fields = ("task", "owner")
    inlines = [StepInline]


@admin.register(Step)
class StepAdmin(admin.ModelAdmin):
    list_display = ("episode", "index", "created_at")
    raw_id_fields = ("episode",)


@admin.register(PlayerChoice)
class PlayerChoiceAdmin(admin.ModelAdmin):
    list_display = ("user", "name_on_replays", "updated_at")
    list_filter = ("name_on_replays",)
    raw_id_fields = ("user",)
