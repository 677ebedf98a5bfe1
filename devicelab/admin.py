from django.contrib import admin

from devicelab.models import (
    BoxMark,
    DeviceDraft,
    DeviceProject,
    DevicePublication,
    DraftReview,
    DraftRevision,
    ViewPhoto,
)


@admin.register(DeviceProject)
class DeviceProjectAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "created_by", "created_at")
    prepopulated_fields = {"slug": ("name",)}


@admin.register(DeviceDraft)
class DeviceDraftAdmin(admin.ModelAdmin):
    list_display = ("device_id", "project", "category", "state", "version", "assignee", "updated_at")
    list_filter = ("state", "category")


@admin.register(DraftRevision)
class DraftRevisionAdmin(admin.ModelAdmin):
    list_display = ("draft", "version", "kind", "author", "created_at")


@admin.register(ViewPhoto)
class ViewPhotoAdmin(admin.ModelAdmin):
    list_display = ("draft", "view", "image")


@admin.register(BoxMark)
class BoxMarkAdmin(admin.ModelAdmin):
    list_display = ("draft", "component", "view", "box", "author", "proposed_by")


@admin.register(DraftReview)
class DraftReviewAdmin(admin.ModelAdmin):
    list_display = ("draft", "round", "reviewer", "verdict", "created_at")


@admin.register(DevicePublication)
class DevicePublicationAdmin(admin.ModelAdmin):
    list_display = ("draft", "version", "split", "tasks", "created_at")
