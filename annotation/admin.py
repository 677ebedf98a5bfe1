from django.contrib import admin

from annotation.models import (
    ConsensusCheck,
    Embedding,
    GoldCheck,
    GoldStandard,
    Image,
    Item,
    ItemImage,
    ItemRevision,
    Project,
)
from annotation.review import admin as review_admin  # noqa: F401 - registers the review models in the admin


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "leaf", "created_at"]
    prepopulated_fields = {"slug": ["name"]}


class ItemImageInline(admin.TabularInline):
    model = ItemImage
    extra = 0
    raw_id_fields = ["image"]


@admin.register(Item)
class ItemAdmin(admin.ModelAdmin):
    list_display = ["name", "project", "state", "assignee", "version", "updated_at"]
    list_filter = ["project", "state"]
    raw_id_fields = ["assignee", "updated_by", "honeypot_of"]
    inlines = [ItemImageInline]


@admin.register(Image)
class ImageAdmin(admin.ModelAdmin):
    list_display = ["original_name", "width", "height", "format", "sha256", "created_at"]
    search_fields = ["original_name", "sha256"]


@admin.register(ItemRevision)
class ItemRevisionAdmin(admin.ModelAdmin):
    list_display = ["item", "version", "kind", "author", "state", "created_at"]
    list_filter = ["kind"]


@admin.register(Embedding)
class EmbeddingAdmin(admin.ModelAdmin):
    list_display = ["image", "model_key", "status", "progress", "seconds"]
    list_filter = ["status", "model_key"]


@admin.register(ItemImage)
class ItemImageAdmin(admin.ModelAdmin):
    list_display = ("item", "index", "image")
    raw_id_fields = ("item", "image")


@admin.register(GoldStandard)
class GoldStandardAdmin(admin.ModelAdmin):
    list_display = ("item", "version", "active", "marked_by", "marked_at")
    list_filter = ("active",)
    raw_id_fields = ("item", "revision")


@admin.register(GoldCheck)
class GoldCheckAdmin(admin.ModelAdmin):
    list_display = ("copy", "gold", "annotator", "mean_iou", "f1", "labels_match", "created_at")
    raw_id_fields = ("copy", "gold")


@admin.register(ConsensusCheck)
class ConsensusCheckAdmin(admin.ModelAdmin):
    list_display = ("item", "version", "masklet", "index", "status", "backend", "iou", "flagged")
    list_filter = ("flagged", "status", "backend")
    raw_id_fields = ("item",)
