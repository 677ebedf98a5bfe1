from django.contrib import admin

from simulator.models import Device, Episode, Step, Task


@admin.register(Device)
class DeviceAdmin(admin.ModelAdmin):
    list_display = ("device_id", "category", "source", "updated_at")
    list_filter = ("category", "source")
    search_fields = ("device_id",)


@admin.register(Task)
class TaskAdmin(admin.ModelAdmin):
    list_display = ("task_id", "device", "goals_count", "sample")
    search_fields = ("task_id",)
    raw_id_fields = ("device", "sample")


class StepInline(admin.TabularInline):
    model = Step
    fields = ("index", "raw_output", "outcome")
    readonly_fields = fields
    extra = 0


@admin.register(Episode)
class EpisodeAdmin(admin.ModelAdmin):
    list_display = ("pk", "task", "kind", "owner", "finished", "success", "created_at")
    list_filter = ("kind", "finished", "success")
    raw_id_fields = ("task", "owner")
    inlines = [StepInline]


@admin.register(Step)
class StepAdmin(admin.ModelAdmin):
    list_display = ("episode", "index", "created_at")
    raw_id_fields = ("episode",)
